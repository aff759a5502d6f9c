import crypto from "node:crypto";
import { readEnv } from "../config/env.js";
import { localDebug } from "./debug.js";
import type { JobKind, JobRow, LocalInstanceApi } from "./types.js";
import type { JobQueue, Lane } from "./jobs.js";
import { registerWorker, releaseDeadLeases, renewWorker, unregisterWorker } from "./worker-registry.js";

export interface WorkerOptions {
  id?: string;
  mode: "inline" | "detached";
  leaseMs: number;
  /** Renders (every kind but webhook) at most this many at once, counted across every process of the instance. */
  concurrency: number;
  /** Webhook deliveries have their own lane so they never wait behind renders. */
  webhookConcurrency?: number;
  /** How often the queue is looked at when nothing woke the worker (other processes enqueue too). */
  pollMs?: number;
  /** Keep the event loop alive (a detached worker process); inline workers must not hold a CLI open. */
  keepAlive?: boolean;
  /** Write a row in `workers` so `kick()` elsewhere finds this worker. */
  register?: boolean;
  /**
   * Completes the job kinds (the features' parts load lazily: `LocalParts.load`); the worker claims
   * nothing before it has resolved, and tries again at the next poll if it failed.
   */
  prepare?: () => Promise<void>;
  /**
   * `prepare` failed. A module that failed to load stays failed in this process, so trying again
   * may never succeed: a detached worker exits (the next command starts a fresh one), serve says so.
   */
  onPrepareFailed?: (e: unknown) => void;
}

export const DEFAULT_POLL_MS = 200;
/** How often a worker looks for jobs held by dead, zombie or stopped workers (their leases end at once). */
const RESCUE_INTERVAL_MS = 1000;
const LANES: Lane[] = ["webhook", "work"];

interface Active {
  job: JobRow;
  token: string;
  lane: Lane;
  ac: AbortController;
  released: boolean;
  done: Promise<void>;
}

const debug = (text: string): void => localDebug(text, "mediagen-local worker");

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/**
 * Claims due jobs lane by lane, runs them outside any transaction with a heartbeat on their lease,
 * and completes them only while the lease is still held. `pump` is synchronous (claims are single
 * transactions), so there is no async loop to race with.
 */
export class Worker {
  readonly id: string;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private rowTimer: NodeJS.Timeout | undefined;
  private readonly active = new Map<string, Active>();
  private readonly laneActive: Record<Lane, number> = { webhook: 0, work: 0 };
  private readonly laneMax: Record<Lane, number>;
  private seq = 0;
  private readonly pollMs: number;
  private lastRescue = -Infinity;
  private prepared: boolean;
  private preparing = false;

  constructor(
    private readonly instance: LocalInstanceApi,
    private readonly queue: JobQueue,
    private readonly kinds: Record<string, JobKind>,
    private readonly opts: WorkerOptions,
  ) {
    this.id = opts.id ?? `w_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
    this.laneMax = { work: Math.max(1, opts.concurrency), webhook: Math.max(1, opts.webhookConcurrency ?? 4) };
    this.pollMs = opts.pollMs ?? readEnv("MEDIAGEN_WORKER_POLL_MS") ?? DEFAULT_POLL_MS;
    this.prepared = !opts.prepare;
  }

  /** Starts `opts.prepare` once at a time; the pump runs again when it has resolved. */
  private prepare(): void {
    if (this.preparing || !this.opts.prepare) return;
    this.preparing = true;
    this.opts.prepare().then(
      () => {
        this.preparing = false;
        this.prepared = true;
        this.schedule(0);
      },
      (e: unknown) => {
        this.preparing = false;
        this.trouble("loading the job kinds failed", e);
        this.opts.onPrepareFailed?.(e);
        this.schedule(this.pollMs);
      },
    );
  }

  get isRunning(): boolean {
    return this.running;
  }

  get activeCount(): number {
    return this.active.size;
  }

  /** Nothing running here and nothing in the queue this worker could take now. */
  isIdle(): boolean {
    if (this.active.size > 0) return false;
    return LANES.every((lane) => !this.queue.hasDue(lane) || (lane === "work" && this.queue.runningCount(lane) >= this.laneMax.work));
  }

  /** Registers the row (if asked) and starts pumping. Returns false when an exclusive registration was refused. */
  start(exclusive = false): boolean {
    if (this.running) return true;
    if (this.opts.register) {
      const now = this.instance.leaseClock.now();
      const row = { id: this.id, pid: process.pid, mode: this.opts.mode, lease_expires: now + this.opts.leaseMs, started_at: now };
      if (!registerWorker(this.instance.db, this.instance.leaseClock, row, exclusive)) return false;
      this.rowTimer = setInterval(() => this.renewRow(), Math.max(10, Math.floor(this.opts.leaseMs / 3)));
      if (!this.opts.keepAlive) this.rowTimer.unref();
    }
    this.running = true;
    this.schedule(0);
    return true;
  }

  private renewRow(): void {
    try {
      const now = this.instance.leaseClock.now();
      // Through tx: it refuses a database that was deleted under this process.
      this.instance.tx(() => {
        if (!renewWorker(this.instance.db, this.id, now + this.opts.leaseMs)) {
          registerWorker(
            this.instance.db,
            this.instance.leaseClock,
            { id: this.id, pid: process.pid, mode: this.opts.mode, lease_expires: now + this.opts.leaseMs, started_at: now },
            false,
          );
        }
      });
    } catch (e) {
      this.trouble("renewing the worker row failed", e);
    }
  }

  /**
   * A write of the worker failed. Storage faults (a full disk, the database gone) are the operator's
   * to fix, so the instance logs them where it logs such things (serve's stderr, worker.log); the
   * rest only with MEDIAGEN_DEBUG, as the job records them.
   */
  private trouble(text: string, e: unknown): void {
    this.instance.reportStoreFault?.(e);
    debug(`${text}: ${(e as Error).message}`);
  }

  /** Looks at the queue now instead of at the next poll. */
  wake(): void {
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    if (ms === 0) {
      if (this.immediate) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.immediate = setImmediate(this.pump);
      if (!this.opts.keepAlive) this.immediate.unref();
      return;
    }
    if (this.immediate || this.timer) return;
    this.timer = setTimeout(this.pump, ms);
    if (!this.opts.keepAlive) this.timer.unref();
  }

  private readonly pump = (): void => {
    this.timer = undefined;
    this.immediate = undefined;
    if (!this.running) return;
    if (!this.instance.db.open) {
      // The instance was closed under a worker nobody stopped: nothing left to do.
      this.running = false;
      return;
    }
    if (!this.prepared) {
      this.prepare();
      return;
    }
    try {
      const t = performance.now();
      if (t - this.lastRescue >= RESCUE_INTERVAL_MS) {
        this.lastRescue = t;
        releaseDeadLeases(this.instance.db, this.queue);
      }
      for (const lane of LANES) {
        while (this.running && this.laneActive[lane] < this.laneMax[lane]) {
          const token = `${this.id}#${++this.seq}`;
          const job = this.queue.claim(token, lane, this.opts.leaseMs, lane === "work" ? this.laneMax.work : undefined);
          if (!job) break;
          this.launch(job, token, lane);
        }
      }
    } catch (e) {
      this.trouble("claiming failed", e);
    }
    this.schedule(this.pollMs);
  };

  private launch(job: JobRow, token: string, lane: Lane): void {
    this.laneActive[lane]++;
    const ac = new AbortController();
    const entry: Active = { job, token, lane, ac, released: false, done: Promise.resolve() };
    const heartbeat = (): void => {
      if (entry.released || ac.signal.aborted) return;
      try {
        if (!this.queue.renew(job.id, token, this.opts.leaseMs)) ac.abort(new Error("the job's lease was lost"));
      } catch (e) {
        this.trouble(`heartbeat of ${job.id} failed`, e);
      }
    };
    const hb = setInterval(heartbeat, Math.max(10, Math.floor(this.opts.leaseMs / 3)));
    hb.unref();
    this.active.set(token, entry);
    entry.done = (async () => {
      try {
        const kind = this.kinds[job.kind];
        if (!kind) throw new Error(`unknown job kind "${job.kind}"`);
        // A job_stall fault rule: the job waits (lease renewed by the heartbeat) before it starts.
        await this.instance.faults?.beforeJob(job, ac.signal);
        const { commit } = await kind.run(job, { instance: this.instance, signal: ac.signal, heartbeat });
        if (!entry.released) this.queue.complete(job, token, commit);
      } catch (e) {
        if (!entry.released) {
          try {
            this.queue.fail(job, token, e);
          } catch (e2) {
            this.trouble(`recording the failure of ${job.id} failed`, e2);
          }
        }
      } finally {
        clearInterval(hb);
        this.active.delete(token);
        this.laneActive[lane]--;
        this.schedule(0);
      }
    })();
  }

  /**
   * Stops claiming, lets running jobs finish for up to `graceMs`, then aborts the rest and hands
   * their jobs back to the queue (the interrupted attempt is not counted).
   */
  async stop(graceMs = 0): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    if (graceMs > 0 && this.active.size > 0) {
      await Promise.race([Promise.allSettled([...this.active.values()].map((a) => a.done)), sleep(graceMs)]);
    }
    const settling = this.releaseAll();
    await Promise.race([settling, sleep(2000)]);
  }

  /**
   * The synchronous part of stopping: after it returns nothing of this worker writes to the
   * database again, so the connection may be closed at once.
   */
  releaseAll(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    if (this.rowTimer) clearInterval(this.rowTimer);
    this.rowTimer = undefined;
    const pending = [...this.active.values()];
    for (const a of pending) {
      a.released = true;
      a.ac.abort(new Error("the worker is stopping"));
      try {
        this.queue.release(a.job.id, a.token);
      } catch (e) {
        debug(`releasing ${a.job.id} failed: ${(e as Error).message}`);
      }
    }
    if (this.opts.register) {
      try {
        this.instance.tx(() => unregisterWorker(this.instance.db, this.id));
      } catch (e) {
        debug(`removing the worker row failed: ${(e as Error).message}`);
      }
    }
    return Promise.allSettled(pending.map((a) => a.done)).then(() => undefined);
  }
}
