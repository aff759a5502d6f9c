import { localDebug } from "./debug.js";
import { currentJobFaults } from "./fault-scope.js";
import type { EnqueueJob, JobKind, JobRow, JobsApi, LocalInstanceApi } from "./types.js";

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_LEASE_MS = 30_000;

/** Optional extra a JobKind may carry: its own delay before retry `attempt + 1`. */
export interface JobKindBackoff {
  backoffMs?(attempt: number): number;
}

/** 1 s, 2 s, 4 s … capped at a minute. */
export function defaultBackoffMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

/** Which jobs a worker lane takes: webhook deliveries never wait behind renders. */
export type Lane = "webhook" | "work";

const LANE_SQL: Record<Lane, string> = {
  webhook: "kind = 'webhook'",
  work: "kind <> 'webhook'",
};

export type Outcome = "done" | "requeued" | "failed" | "lost";

function message(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 2000 ? m.slice(0, 2000) + "…" : m;
}

/**
 * The job table's state machine. Every transition is one IMMEDIATE transaction; a lease token is
 * unique per claim, so a worker whose lease expired cannot complete a job someone else now holds,
 * and terminal states are final (a trigger enforces it too).
 */
export class JobQueue implements JobsApi {
  /** Bumped by every enqueue in this process, so the service knows a request queued work. */
  enqueued = 0;

  constructor(
    private readonly instance: LocalInstanceApi,
    private readonly kinds: Record<string, JobKind>,
  ) {}

  private get db() {
    return this.instance.db;
  }
  private now(): number {
    return this.instance.clock.now();
  }
  /** Leases count on the lease clock: moving the emulated time (`local clock`) does not end them. */
  private leaseNow(): number {
    return this.instance.leaseClock.now();
  }

  enqueue(job: EnqueueJob): string {
    const id = this.instance.ids.prefixed("job_");
    const now = this.now();
    const maxAttempts = job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError("maxAttempts must be a whole number >= 1");
    const stallMs = job.kind === "webhook" ? undefined : currentJobFaults()?.stallMs;
    this.instance.tx(() => {
      this.db
        .prepare(
          `INSERT INTO jobs (id, kind, space_id, ref, payload, status, attempts, max_attempts, run_after, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?)`,
        )
        .run(id, job.kind, job.spaceId ?? null, job.ref ?? null, JSON.stringify(job.payload ?? null), maxAttempts, job.runAfter ?? now, now, now);
      // A job_stall fault rule of the request that queues this job (faults.ts).
      if (stallMs !== undefined) this.db.prepare("INSERT INTO fault_job_stalls (ref, ms) VALUES (?, ?)").run(id, stallMs);
    });
    this.enqueued++;
    return id;
  }

  get(id: string): JobRow | undefined {
    return this.db.prepare("SELECT * FROM jobs WHERE id = ?").get(id) as JobRow | undefined;
  }

  list(filter: { kind?: string; ref?: string } = {}): JobRow[] {
    return this.db
      .prepare("SELECT * FROM jobs WHERE (@kind IS NULL OR kind = @kind) AND (@ref IS NULL OR ref = @ref) ORDER BY created_at, rowid")
      .all({ kind: filter.kind ?? null, ref: filter.ref ?? null }) as JobRow[];
  }

  /** A job is due when queued and its time has come, or running under an expired lease. */
  hasDue(lane?: Lane): boolean {
    return !!this.db
      .prepare(
        `SELECT 1 FROM jobs WHERE ${lane ? LANE_SQL[lane] : "1"}
           AND ((status = 'queued' AND run_after <= ?) OR (status = 'running' AND lease_expires <= ?)) LIMIT 1`,
      )
      .get(this.now(), this.leaseNow());
  }

  /** Anything not finished at all (a detached worker stays while this is true). */
  hasUnfinished(): boolean {
    return !!this.db.prepare("SELECT 1 FROM jobs WHERE status IN ('queued', 'running') LIMIT 1").get();
  }

  /** Jobs of a lane running under a live lease, in every process using the instance. */
  runningCount(lane: Lane): number {
    const row = this.db.prepare(`SELECT COUNT(*) AS n FROM jobs WHERE ${LANE_SQL[lane]} AND status = 'running' AND lease_expires > ?`).get(this.leaseNow()) as {
      n: number;
    };
    return row.n;
  }

  /**
   * Takes the next due job of a lane under a fresh lease. On the way it settles jobs that cannot run:
   * a job whose worker died with no attempts left is given up (once: it turns `failed` in the same
   * transaction), and a job of a kind nobody registered fails with a clear error. With `cap`, nothing
   * is taken while that many jobs of the lane already run anywhere (renders share the machine's cores
   * whichever process runs them).
   */
  claim(token: string, lane: Lane, leaseMs: number, cap?: number): JobRow | undefined {
    // Looked at first without the write lock, which a worker polling an idle queue would otherwise
    // take several times a second: a worker stopped (SIGSTOP) inside that transaction would hold
    // every other process's writes until their busy timeout, over and over.
    if (!this.claimable(lane)) return undefined;
    return this.instance.tx(() => {
      if (cap !== undefined && this.runningCount(lane) >= cap) return undefined;
      for (;;) {
        const now = this.now();
        const leaseNow = this.leaseNow();
        const job = this.db
          .prepare(
            `SELECT * FROM jobs WHERE ${LANE_SQL[lane]}
               AND ((status = 'queued' AND run_after <= ?) OR (status = 'running' AND lease_expires <= ?))
             ORDER BY run_after, created_at, rowid LIMIT 1`,
          )
          .get(now, leaseNow) as JobRow | undefined;
        if (!job) return undefined;
        const kind = this.kinds[job.kind];
        if (!kind) {
          this.finish(job.id, "failed", `unknown job kind "${job.kind}": no handler is registered for it`);
          continue;
        }
        const lost = job.status === "running";
        if (lost && job.attempts >= job.max_attempts) {
          this.giveUp(job, kind, `the worker running this job stopped responding (lease expired) after ${job.attempts} attempt(s)`);
          continue;
        }
        this.db
          .prepare(
            `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = ?, lease_expires = ?,
                    last_error = COALESCE(?, last_error), updated_at = ? WHERE id = ?`,
          )
          .run(token, leaseNow + leaseMs, lost ? "a previous attempt lost its worker (lease expired)" : null, now, job.id);
        return this.get(job.id)!;
      }
    });
  }

  /** Whether some job of the lane is due or has lost its lease (a read: no lock is taken). */
  private claimable(lane: Lane): boolean {
    return (
      this.db
        .prepare(
          `SELECT 1 FROM jobs WHERE ${LANE_SQL[lane]}
             AND ((status = 'queued' AND run_after <= ?) OR (status = 'running' AND lease_expires <= ?)) LIMIT 1`,
        )
        .get(this.now(), this.leaseNow()) !== undefined
    );
  }

  private holds(jobId: string, token: string): boolean {
    const row = this.db.prepare("SELECT status, lease_owner FROM jobs WHERE id = ?").get(jobId) as { status: string; lease_owner: string | null } | undefined;
    return row?.status === "running" && row.lease_owner === token;
  }

  private finish(jobId: string, status: "done" | "failed", error: string | null): void {
    this.db
      .prepare("UPDATE jobs SET status = ?, lease_owner = NULL, lease_expires = NULL, last_error = COALESCE(?, last_error), updated_at = ? WHERE id = ?")
      .run(status, error, this.now(), jobId);
  }

  /**
   * Lets the kind settle the domain row (failed + refund + webhook), then marks the job failed. The
   * kind runs in a savepoint: if it throws, its writes are undone but the job still ends failed.
   */
  private giveUp(job: JobRow, kind: JobKind, error: string): void {
    let final = error;
    try {
      this.db.transaction(() => kind.giveUp(this.instance, job, error))();
    } catch (e) {
      localDebug(`giveUp of job ${job.id} (${job.kind}) threw: ${message(e)}`);
      final = `${error}; giving up also failed: ${message(e)}`;
    }
    this.finish(job.id, "failed", final);
  }

  /**
   * Extends the lease; false when it is no longer ours (the run must stop). A lease that expired but
   * was not taken by anyone is still ours: the token is unique per claim.
   */
  renew(jobId: string, token: string, leaseMs: number): boolean {
    return this.instance.tx(() => {
      const r = this.db
        .prepare("UPDATE jobs SET lease_expires = ?, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?")
        .run(this.leaseNow() + leaseMs, this.now(), jobId, token);
      return r.changes === 1;
    });
  }

  /** Applies the run's result only while the lease is still ours; a throwing commit leaves nothing behind. */
  complete(job: JobRow, token: string, commit: () => void): Outcome {
    let commitError: unknown;
    const outcome = this.instance.tx((): Outcome => {
      if (!this.holds(job.id, token)) return "lost";
      try {
        this.db.transaction(commit)();
      } catch (e) {
        commitError = e;
        return "failed";
      }
      this.finish(job.id, "done", null);
      return "done";
    });
    if (commitError !== undefined) return this.fail(job, token, commitError);
    return outcome;
  }

  /** A run that threw: retry later while attempts remain, else give up (once). */
  fail(job: JobRow, token: string, error: unknown): Outcome {
    const text = message(error);
    return this.instance.tx((): Outcome => {
      if (!this.holds(job.id, token)) return "lost";
      const row = this.get(job.id)!;
      const kind = this.kinds[row.kind];
      if (row.attempts < row.max_attempts && kind) {
        const delay = (kind as JobKind & JobKindBackoff).backoffMs?.(row.attempts) ?? defaultBackoffMs(row.attempts);
        const now = this.now();
        this.db
          .prepare(
            `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires = NULL, run_after = ?,
                    last_error = ?, updated_at = ? WHERE id = ?`,
          )
          .run(now + delay, text, now, job.id);
        return "requeued";
      }
      if (kind) this.giveUp(row, kind, text);
      else this.finish(job.id, "failed", text);
      return "failed";
    });
  }

  /**
   * Ends now the leases of running jobs whose holder `dead(token)` says will never renew them (its
   * process died, is a zombie or is stopped), so the next claim takes them instead of waiting for the
   * lease to run out. Reads only while every holder is well: the write happens only for such jobs.
   * Returns how many leases it ended.
   */
  expireLeasesOf(dead: (token: string) => boolean): number {
    const held = this.db.prepare("SELECT id, lease_owner FROM jobs WHERE status = 'running' AND lease_expires > ?").all(this.leaseNow()) as {
      id: string;
      lease_owner: string | null;
    }[];
    const orphans = held.filter((j) => j.lease_owner !== null && dead(j.lease_owner));
    if (orphans.length === 0) return 0;
    return this.instance.tx(() => {
      let n = 0;
      for (const j of orphans) {
        n += this.db
          .prepare("UPDATE jobs SET lease_expires = ?, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?")
          .run(this.leaseNow(), this.now(), j.id, j.lease_owner).changes;
      }
      return n;
    });
  }

  /** Hands jobs back to the queue when their worker stops; the interrupted attempt is not counted. */
  release(jobId: string, token: string): boolean {
    return this.instance.tx(() => {
      const now = this.now();
      const r = this.db
        .prepare(
          `UPDATE jobs SET status = 'queued', attempts = MAX(attempts - 1, 0), lease_owner = NULL, lease_expires = NULL,
                  run_after = ?, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?`,
        )
        .run(now, now, jobId, token);
      return r.changes === 1;
    });
  }
}
