import { localDebug } from "./debug.js";
import type { JobQueue } from "./jobs.js";
import { ensureDetachedWorker } from "./spawn-worker.js";
import { sweepStaleTemps } from "./sweep.js";
import type { JobKind, LocalInstanceApi } from "./types.js";
import { Worker } from "./worker.js";
import { releaseDeadLeases } from "./worker-registry.js";

/**
 * How often, at most, a process looks after the queue on behalf of the requests it answers: every
 * status poll asks, and one look a second is enough to notice a dead worker without costing a
 * healthy instance anything but two reads.
 */
export const SUPERVISE_INTERVAL_MS = 1000;

export type WorkerMode = "inline" | "detached" | "none";

export interface BackgroundOptions {
  mode: WorkerMode;
  leaseMs: number;
  concurrency: number;
  jobKinds: Record<string, JobKind>;
  /** Completes `jobKinds` before a worker of this process claims a job (`LocalParts.load`). */
  prepare?: () => Promise<void>;
  /** `prepare` failed in this process's worker (see WorkerOptions.onPrepareFailed). */
  onPrepareFailed?: (e: unknown) => void;
  /** Script the detached worker process runs (`--home <home> --worker-id <id>`). */
  workerEntry: string;
}

/** The instance as background work sees it; `db` is read on every use, since a reset replaces it. */
type Host = LocalInstanceApi & { readonly jobs: JobQueue; readonly localDir: string };

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A bound on waiting that never keeps the process alive by itself. */
function graceTimer(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/**
 * Who runs the queued jobs of an instance: a worker in this process (`inline`: serve, tests), or one
 * detached worker process per instance started on demand (`detached`: CLI commands), or nobody.
 */
export class Background {
  private worker: Worker | undefined;
  private lastSupervised = -Infinity;

  constructor(
    private readonly instance: Host,
    private readonly o: BackgroundOptions,
  ) {}

  /** Puts a worker on duty in this process (no-op while one is). */
  launch(): void {
    if (this.worker?.isRunning) return;
    this.worker = new Worker(this.instance, this.instance.jobs, this.o.jobKinds, {
      mode: "inline",
      leaseMs: this.o.leaseMs,
      concurrency: this.o.concurrency,
      register: true,
      ...(this.o.prepare ? { prepare: this.o.prepare } : {}),
      ...(this.o.onPrepareFailed ? { onPrepareFailed: this.o.onPrepareFailed } : {}),
    });
    this.worker.start();
    // Temp files and render dirs of processes that died mid-render (their pid is in the name).
    void sweepStaleTemps(this.instance.localDir).catch((e: unknown) => localDebug(`sweeping temp files failed: ${(e as Error).message}`));
  }

  /** Jobs were queued: wakes this process's worker, or makes sure a detached one runs. */
  kick(): void {
    if (this.worker?.isRunning) {
      this.worker.wake();
      return;
    }
    if (this.o.mode !== "detached") return;
    try {
      ensureDetachedWorker(this.instance.db, this.instance.leaseClock, this.instance.home, this.o.workerEntry);
    } catch (e) {
      // The request that queued the work succeeded; the next kick (or `mediagen serve`) runs it.
      localDebug(`could not start a background worker: ${(e as Error).message}`);
    }
  }

  /**
   * Makes sure unfinished work has a worker that can run it, at most once per SUPERVISE_INTERVAL_MS
   * (called on every request, so `asset status --watch` polls keep the queue moving): leases held by
   * a worker whose process died, is a zombie or is stopped end at once, this process's worker is
   * woken, or (detached mode) a worker process is started when no running one is registered. While
   * everything is well it only reads.
   */
  supervise(): void {
    if (this.o.mode === "none") return;
    // process.uptime(), monotonic like performance.now(), whose first use loads perf_hooks (start-up time).
    const t = process.uptime() * 1000;
    if (t - this.lastSupervised < SUPERVISE_INTERVAL_MS) return;
    this.lastSupervised = t;
    try {
      if (!this.instance.jobs.hasUnfinished()) return;
      releaseDeadLeases(this.instance.db, this.instance.jobs);
      if (this.worker?.isRunning) {
        if (this.instance.jobs.hasDue()) this.worker.wake();
        return;
      }
      if (this.o.mode === "detached") ensureDetachedWorker(this.instance.db, this.instance.leaseClock, this.instance.home, this.o.workerEntry);
    } catch (e) {
      // The request goes on; the next look (a second later) tries again.
      localDebug(`looking after the job queue failed: ${(e as Error).message}`);
    }
  }

  /** Lets running jobs finish for up to `graceMs`, then hands the rest back to the queue. */
  async stop(graceMs = 1000): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.stop(graceMs);
  }

  /** Runs due jobs in this process until none is due and none is running here (tests). */
  async runUntilIdle(timeoutMs = 10_000): Promise<void> {
    let w = this.worker;
    let temp: Worker | undefined;
    if (!w?.isRunning) {
      temp = new Worker(this.instance, this.instance.jobs, this.o.jobKinds, {
        mode: "inline",
        leaseMs: this.o.leaseMs,
        concurrency: this.o.concurrency,
        ...(this.o.prepare ? { prepare: this.o.prepare } : {}),
      });
      temp.start();
      w = temp;
    } else {
      w.wake();
    }
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        await sleep(5);
        if (w.isIdle()) return;
        if (Date.now() > deadline) throw new Error(`the local instance still had work after ${timeoutMs} ms`);
      }
    } finally {
      if (temp) await temp.stop(0);
    }
  }

  /**
   * Takes this process's worker off duty and hands its running jobs back to the queue, waiting up to
   * `waitMs` for their runs to settle (a reset must not have them write into the new database).
   * `resume()` puts a worker back on duty if one was.
   */
  async pause(waitMs: number): Promise<{ settled: boolean; resume: () => void }> {
    const wasRunning = this.worker?.isRunning ?? false;
    const settled = await this.release(waitMs);
    return { settled, resume: () => (wasRunning ? this.launch() : undefined) };
  }

  /** Hands running jobs back to the queue at once; true when their runs settled within `waitMs`. */
  release(waitMs: number): Promise<boolean> {
    const w = this.worker;
    this.worker = undefined;
    if (!w) return Promise.resolve(true);
    return Promise.race([w.releaseAll().then(() => true), graceTimer(waitMs).then(() => false)]);
  }
}
