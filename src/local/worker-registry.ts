import type { Clock, DB } from "./types.js";

/** A process running jobs for this instance, found through its row (renewed like a lease). */
export interface WorkerRow {
  id: string;
  pid: number | null;
  mode: "inline" | "detached";
  lease_expires: number;
  started_at: number;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Live = lease not expired and, once the pid is known, that process still exists on this machine. */
export function isLive(row: WorkerRow, now: number): boolean {
  return row.lease_expires > now && (row.pid === null || pidAlive(row.pid));
}

export function liveWorkers(db: DB, clock: Clock): WorkerRow[] {
  const now = clock.now();
  return (db.prepare("SELECT * FROM workers ORDER BY started_at").all() as WorkerRow[]).filter((r) => isLive(r, now));
}

/** Removes rows of workers that died without saying so. Call inside a transaction. */
export function pruneDeadWorkers(db: DB, clock: Clock): void {
  const now = clock.now();
  for (const r of db.prepare("SELECT * FROM workers").all() as WorkerRow[]) {
    if (!isLive(r, now)) db.prepare("DELETE FROM workers WHERE id = ?").run(r.id);
  }
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
  return db
    .transaction(() => db.prepare("UPDATE workers SET lease_expires = ? WHERE id = ?").run(until, id).changes === 1)
    .immediate();
}

export function unregisterWorker(db: DB, id: string): void {
  db.transaction(() => db.prepare("DELETE FROM workers WHERE id = ?").run(id)).immediate();
}
