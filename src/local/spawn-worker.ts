import { createRequire } from "node:module";
import crypto from "node:crypto";
import fs from "node:fs";
import type { Clock, DB } from "./types.js";
import { liveWorkers, pruneDeadWorkers } from "./worker-registry.js";

/** How long a just-spawned worker's placeholder row counts as live before the process confirms it. */
const SPAWN_GRACE_MS = 15_000;

/**
 * Makes sure one detached worker process runs for the instance at `home`. The check and the
 * placeholder row are one IMMEDIATE transaction, so two processes kicking at once spawn one worker.
 * Returns the pid of a worker it spawned, or undefined when one was already there.
 */
export function ensureDetachedWorker(db: DB, clock: Clock, home: string, entry: string): number | undefined {
  if (liveWorkers(db, clock).length > 0) return undefined;
  const id = `w_detached_${crypto.randomBytes(6).toString("hex")}`;
  const claimed = db
    .transaction(() => {
      pruneDeadWorkers(db, clock);
      if (liveWorkers(db, clock).length > 0) return false;
      const now = clock.now();
      db.prepare("INSERT INTO workers (id, pid, mode, lease_expires, started_at) VALUES (?, NULL, 'detached', ?, ?)").run(id, now + SPAWN_GRACE_MS, now);
      return true;
    })
    .immediate();
  if (!claimed) return undefined;

  const forget = () => {
    try {
      db.transaction(() => db.prepare("DELETE FROM workers WHERE id = ? AND pid IS NULL").run(id)).immediate();
    } catch {
      // the connection may be closed by now; the placeholder then expires by itself
    }
  };
  if (!fs.existsSync(entry)) {
    forget();
    throw new Error(`the local worker entry point is missing (${entry}); build mediagen first`);
  }
  const main = entry;
  // Required here, not imported: node:child_process (with net and dgram behind it) costs every local
  // command a few milliseconds of start-up, and most never spawn a worker.
  const { spawn } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
  const child = spawn(process.execPath, [main, "--home", home, "--worker-id", id], {
    detached: true,
    stdio: "ignore",
  });
  child.on("error", forget);
  child.unref();
  if (child.pid === undefined) {
    forget();
    return undefined;
  }
  db.transaction(() => db.prepare("UPDATE workers SET pid = ? WHERE id = ? AND pid IS NULL").run(child.pid, id)).immediate();
  return child.pid;
}
