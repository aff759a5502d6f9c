import { LocalAdminError } from "./admin-error.js";
import type { Background } from "./background.js";
import type { InstancePaths, InstanceStorage } from "./storage.js";
import type { Clock, DB } from "./types.js";
import { processState, runsWorker, type WorkerRow } from "./worker-registry.js";

export interface ResetOptions {
  /** How long to wait for detached workers, and for jobs of this process, to stop (default 10 s). */
  waitMs?: number;
  /** How often the workers' rows are looked at while waiting (default 50 ms). */
  pollMs?: number;
}

/** How long `close` waits for the runs it handed back (it never blocks on them longer). */
const CLOSE_GRACE_MS = 2000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Refuses while another process serves the instance (an inline worker: `mediagen serve`), and
 * stops detached workers, waiting until their rows are gone. Rows of this process are ours.
 */
async function stopOtherWorkers(db: DB, clock: Clock, waitMs: number, pollMs: number, what = "reset"): Promise<void> {
  const deadline = Date.now() + waitMs;
  const signalled = new Set<number>();
  for (;;) {
    // Live workers, and stopped ones (SIGSTOP): those do no work but still hold the database open.
    const now = clock.now();
    const others = (db.prepare("SELECT * FROM workers ORDER BY started_at").all() as WorkerRow[]).filter((r) => {
      if (r.pid === process.pid || r.lease_expires <= now) return false;
      if (r.pid === null) return true;
      const state = processState(r.pid);
      // A dead worker's pid may name another process by now: only the worker itself is signalled.
      return (state === "running" || state === "stopped") && (r.mode !== "detached" || runsWorker(r.pid, r.id));
    });
    if (others.length === 0) return;
    const serving = others.find((r) => r.mode === "inline");
    if (serving) {
      throw new LocalAdminError(
        "invalid",
        `the local instance is in use by another process (pid ${serving.pid}, e.g. \`mediagen serve\`); stop it, then ${what}` +
          (what === "reset" ? "" : ` (or ask that serve to: POST /_mediagen/snapshots/<name>/restore)`),
      );
    }
    for (const r of others) {
      // A placeholder without a pid is a worker being spawned right now: signal it once it has one.
      if (r.pid === null || signalled.has(r.pid)) continue;
      signalled.add(r.pid);
      try {
        process.kill(r.pid, "SIGTERM");
        // A stopped process acts on the SIGTERM only once continued.
        if (processState(r.pid) === "stopped") process.kill(r.pid, "SIGCONT");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ESRCH") {
          throw new LocalAdminError("invalid", `cannot stop the background worker (pid ${r.pid}): ${(e as Error).message}`);
        }
      }
    }
    if (Date.now() >= deadline) {
      const pids = others.map((r) => r.pid ?? "starting").join(", ");
      throw new LocalAdminError(
        "invalid",
        `background workers (pid ${pids}) did not stop within ${waitMs / 1000} s; nothing was ${what === "reset" ? "reset" : "restored"}, try again`,
      );
    }
    await sleep(pollMs);
  }
}

/** Starting again from nothing (`reset`) and ending (`close`): what must stop first, and in what order. */
export class Lifecycle {
  private closed = false;

  constructor(
    private readonly storage: InstanceStorage,
    private readonly background: Background,
    private readonly clock: Clock,
    /** The files changed under the dispatch: verdicts it cached on keys must go. */
    private readonly forgetAuth: () => void,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Deletes the database, the media and the default key, and starts again from an empty instance.
   * Files are only deleted once no other process has them open through a worker: a `serve` (or any
   * other process running jobs in process) makes it refuse; detached workers are asked to stop
   * (SIGTERM) and waited for. Jobs running in this process are stopped and settled first, so none
   * of them writes into the new database.
   */
  async reset(opts: ResetOptions = {}): Promise<void> {
    if (this.closed) throw new Error("the local instance is closed");
    const waitMs = opts.waitMs ?? 10_000;
    await stopOtherWorkers(this.storage.db, this.clock, waitMs, opts.pollMs ?? 50);
    const paused = await this.background.pause(waitMs);
    if (!paused.settled) {
      paused.resume();
      throw new LocalAdminError("invalid", `jobs running in this process did not stop within ${waitMs / 1000} s; nothing was reset, try again`);
    }
    this.storage.wipe();
    this.forgetAuth();
    paused.resume();
  }

  /**
   * Puts a snapshot in place of the instance's files, with the same care as `reset`: another
   * process serving the instance makes it refuse (that `serve` can restore through its admin path,
   * where this process is the server), detached workers are stopped, this process's jobs settle.
   */
  async restore(install: (paths: InstancePaths) => void, opts: ResetOptions = {}): Promise<void> {
    if (this.closed) throw new Error("the local instance is closed");
    const waitMs = opts.waitMs ?? 10_000;
    await stopOtherWorkers(this.storage.db, this.clock, waitMs, opts.pollMs ?? 50, "restore");
    const paused = await this.background.pause(waitMs);
    if (!paused.settled) {
      paused.resume();
      throw new LocalAdminError("invalid", `jobs running in this process did not stop within ${waitMs / 1000} s; nothing was restored, try again`);
    }
    try {
      this.storage.replaceWith(install);
    } finally {
      this.forgetAuth();
      paused.resume();
    }
  }

  /** Hands running jobs back to the queue and closes the database at once; resolves when runs have settled. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const settled = this.background.release(CLOSE_GRACE_MS);
    this.storage.close();
    await settled;
  }
}
