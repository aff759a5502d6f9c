import fs from "node:fs";
import type { Clock, DB } from "./types.js";

/** A process running jobs for this instance, found through its row (renewed like a lease). */
export interface WorkerRow {
  id: string;
  pid: number | null;
  mode: "inline" | "detached";
  lease_expires: number;
  started_at: number;
}

/**
 * What a pid is doing. `kill(pid, 0)` alone cannot tell: it succeeds for a zombie (killed, not yet
 * reaped by its parent) and for a stopped process (SIGSTOP, Ctrl-Z), neither of which will ever
 * renew a lease or finish a job. On Linux the state letter of /proc/<pid>/stat says which; elsewhere
 * only "exists or not" is known, and a frozen worker is noticed when its row's lease runs out.
 */
export type ProcessState = "running" | "stopped" | "zombie" | "gone";

const PROC = process.platform === "linux" && fs.existsSync("/proc/self/stat");

/**
 * The fields of /proc/<pid>/stat from the state on (field 3 onwards: state, ppid, …, start time at
 * index 19); undefined without /proc or when the entry cannot be read.
 */
export function procStatFields(pid: number | string): string[] | undefined {
  if (!PROC) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    // "pid (comm) S …": comm may hold spaces and parentheses, so the fields follow the last ')'.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

export function processState(pid: number): ProcessState {
  if (!Number.isInteger(pid) || pid <= 0) return "gone";
  if (PROC) {
    // Unreadable /proc entry: fall back to the signal check below.
    const state = procStatFields(pid)?.[0] ?? "";
    if (state === "Z" || state === "X" || state === "x") return "zombie";
    if (state === "T" || state === "t") return "stopped";
    if (state !== "") return "running";
  }
  try {
    process.kill(pid, 0);
    return "running";
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM" ? "running" : "gone";
  }
}

/** The process exists and has not exited (a stopped process exists; a zombie has exited). */
export function pidAlive(pid: number): boolean {
  const s = processState(pid);
  return s === "running" || s === "stopped";
}

/**
 * Whether `pid` still runs the detached worker of the row `id`. Once a worker has died its row may
 * outlive it (until its lease ends), and the system may have given its pid to another process,
 * which must never be signalled for it. The worker runs as `node …/worker-main.js --home <home>
 * --worker-id <id>`: its command line (/proc) must say so. Where that cannot be read (not Linux),
 * the row is trusted.
 */
export function runsWorker(pid: number, id: string): boolean {
  if (!PROC) return true;
  let args: string[];
  try {
    args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return true;
  }
  if (!args.some((a) => /(^|[\\/])worker-main\.[cm]?js$/.test(a))) return false;
  const i = args.indexOf("--worker-id");
  return i < 0 || args[i + 1] === id;
}

/** The process can do work now: it exists, has not exited and is not stopped. */
export function pidWorking(pid: number): boolean {
  return processState(pid) === "running";
}

/**
 * Live = lease not expired (the row is renewed every third of a lease: an expired row is a worker
 * that missed its heartbeats) and, once the pid is known, that process is running on this machine
 * (not gone, not a zombie, not stopped).
 */
export function isLive(row: WorkerRow, now: number): boolean {
  return row.lease_expires > now && (row.pid === null || pidWorking(row.pid));
}

export function liveWorkers(db: DB, clock: Clock): WorkerRow[] {
  const now = clock.now();
  return (db.prepare("SELECT * FROM workers ORDER BY started_at").all() as WorkerRow[]).filter((r) => isLive(r, now));
}

/**
 * Removes rows of workers that died without saying so. The row is what ties a job's lease token to
 * a process, so the leases of a worker known dead (gone, zombie, stopped) end with it: once the row
 * is gone nobody could tell they will never be renewed. Call inside a transaction.
 */
export function pruneDeadWorkers(db: DB, clock: Clock): void {
  const now = clock.now();
  for (const r of db.prepare("SELECT * FROM workers").all() as WorkerRow[]) {
    if (isLive(r, now)) continue;
    if (r.pid !== null && !pidWorking(r.pid)) {
      db.prepare(
        `UPDATE jobs SET lease_expires = ?, updated_at = ?
          WHERE status = 'running' AND lease_expires > ? AND substr(lease_owner, 1, ?) = ?`,
      ).run(now, now, now, r.id.length + 1, `${r.id}#`);
    }
    db.prepare("DELETE FROM workers WHERE id = ?").run(r.id);
  }
}

/**
 * The pid behind a job's lease token (`<worker id>#<n>`): the worker's row when it has one, else the
 * pid in ids of the form `w_<pid>_…` (in-process workers that keep no row). Undefined when unknown.
 */
export function leaseOwnerPid(token: string, rows: readonly WorkerRow[]): number | undefined {
  const hash = token.lastIndexOf("#");
  const workerId = hash >= 0 ? token.slice(0, hash) : token;
  const row = rows.find((r) => r.id === workerId);
  if (row) return row.pid ?? undefined;
  const m = /^w_(\d+)_[0-9a-f]+$/.exec(workerId);
  return m ? Number(m[1]) : undefined;
}

/**
 * Whether the worker holding `token` is known to be unable to finish its job: its process is gone,
 * a zombie or stopped. Unknown owners (no row, no pid in the id) are not judged: their lease runs out.
 */
export function leaseHolderDead(token: string, rows: readonly WorkerRow[]): boolean {
  const pid = leaseOwnerPid(token, rows);
  return pid !== undefined && !pidWorking(pid);
}

/**
 * Ends the leases of running jobs whose worker cannot finish them (JobQueue.expireLeasesOf); the
 * workers' rows are read only when some job is running.
 */
export function releaseDeadLeases(db: DB, queue: { expireLeasesOf(dead: (token: string) => boolean): number }): number {
  let rows: WorkerRow[] | undefined;
  return queue.expireLeasesOf((token) => {
    rows ??= db.prepare("SELECT * FROM workers").all() as WorkerRow[];
    return leaseHolderDead(token, rows);
  });
}

/**
 * Writes (or takes over) a worker's row. With `exclusive`, refuses when another live worker exists:
 * that is how a second detached worker notices it is not needed.
 */
export function registerWorker(db: DB, clock: Clock, row: WorkerRow, exclusive: boolean): boolean {
  return db
    .transaction(() => {
      pruneDeadWorkers(db, clock);
      if (exclusive && liveWorkers(db, clock).some((r) => r.id !== row.id)) return false;
      db.prepare(
        `INSERT INTO workers (id, pid, mode, lease_expires, started_at) VALUES (@id, @pid, @mode, @lease_expires, @started_at)
         ON CONFLICT(id) DO UPDATE SET pid = excluded.pid, mode = excluded.mode, lease_expires = excluded.lease_expires`,
      ).run(row);
      return true;
    })
    .immediate();
}

export function renewWorker(db: DB, id: string, until: number): boolean {
  return db.transaction(() => db.prepare("UPDATE workers SET lease_expires = ? WHERE id = ?").run(until, id).changes === 1).immediate();
}

export function unregisterWorker(db: DB, id: string): void {
  db.transaction(() => db.prepare("DELETE FROM workers WHERE id = ?").run(id)).immediate();
}
