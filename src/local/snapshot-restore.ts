/**
 * Restoring a snapshot without ever leaving a broken instance behind.
 *
 * 1. Stage: the snapshot's database, media and key are copied into `<local>/.restore-<pid>-<time>/`
 *    and the copy is checked there (a SQLite file, a schema version this mediagen knows — an older
 *    one is migrated —, `PRAGMA integrity_check`, every table of the current schema). A snapshot that
 *    cannot be used is refused with the versions in the message; the live instance is not touched.
 * 2. Commit: `<local>/restore.commit` is written (temp file, fsync, rename). From here on the
 *    snapshot's state is the instance's, even if the process dies.
 * 3. Swap: each live part (database with its -wal/-shm, media, key) is renamed into
 *    `.restore-old-<pid>-<time>/` and the staged part renamed into its place; then the marker goes.
 *
 * Every start of the instance first calls `recoverRestore`: a marker left by a dead process is
 * rolled forward (each step above is repeatable), then the stale staging, old and `.saving-*`
 * folders of dead processes are removed. So a kill -9 at any point leaves the old instance or the
 * new one, whole: the database and the media always come from the same side.
 */
import fs from "node:fs";
import path from "node:path";
import { openDatabase } from "./db/open.js";
import { LocalAdminError } from "./admin-error.js";
import type { DB } from "./types.js";

/** Points of a restore a test can stop at (kill -9 there); production passes no hook. */
export type RestoreStep = "staged-db" | "staged" | "committed" | "swapped-db" | "swapped-media" | "swapped" | "done";
export type RestoreHook = (step: RestoreStep) => void;

const MARKER = "restore.commit";
const STAGE_PREFIX = ".restore-";
const OLD_PREFIX = ".restore-old-";

interface Marker {
  pid: number;
  stage: string;
  old: string;
  /** Whether the snapshot has a default key (else the live one is removed). */
  key: boolean;
}

export interface RestorePaths {
  localDir: string;
  dbPath: string;
  mediaDir: string;
  defaultKeyPath: string;
}

/** A snapshot copied and checked beside the instance, ready to be swapped in. */
export interface StagedSnapshot {
  dir: string;
  key: boolean;
  /** The snapshot's schema version before any migration. */
  version: number;
}

/** Staging folders of restores under way in this process (an instance opened meanwhile keeps them). */
const active = new Set<string>();

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Not every file system lets a folder be synced: the renames are still ordered.
  }
}

/** The SQLite header: the magic string, then `user_version` as a big-endian integer at byte 60. */
function headerVersion(file: string): number | undefined {
  const buf = Buffer.alloc(64);
  const fd = fs.openSync(file, "r");
  try {
    if (fs.readSync(fd, buf, 0, 64, 0) < 64) return undefined;
  } finally {
    fs.closeSync(fd);
  }
  if (buf.subarray(0, 16).toString("latin1") !== "SQLite format 3\0") return undefined;
  return buf.readInt32BE(60);
}

const tableCache = new WeakMap<readonly string[], string[]>();
/** The tables the current schema has (the migrations applied to an empty database in memory). */
function expectedTables(migrations: readonly string[]): string[] {
  let t = tableCache.get(migrations);
  if (!t) {
    const db = openDatabase(":memory:", migrations);
    try {
      t = tableNames(db);
    } finally {
      db.close();
    }
    tableCache.set(migrations, t);
  }
  return t;
}

function tableNames(db: DB): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
}

function refuse(name: string, why: string): LocalAdminError {
  return new LocalAdminError("invalid", `snapshot "${name}" cannot be restored: ${why}; the instance was left as it was`);
}

/** Opens the staged copy (migrating an older schema) and checks it whole; throws a refusal otherwise. */
function checkStagedDatabase(name: string, file: string, migrations: readonly string[]): number {
  const known = migrations.length;
  const version = headerVersion(file);
  if (version === undefined) throw refuse(name, "its database is not a SQLite database (damaged or truncated)");
  if (version > known) throw refuse(name, `its schema version is ${version}, newer than this mediagen knows (${known}); restore it with a newer mediagen`);
  if (version < 0) throw refuse(name, `its schema version ${version} is not one mediagen writes (this mediagen knows 0 to ${known})`);
  let db: DB;
  try {
    db = openDatabase(file, migrations);
  } catch (e) {
    throw refuse(name, `its database (schema version ${version}; this mediagen knows ${known}) cannot be opened or migrated: ${firstLine(e)}`);
  }
  try {
    let verdict: unknown;
    try {
      verdict = db.pragma("integrity_check", { simple: true });
    } catch (e) {
      verdict = firstLine(e);
    }
    if (verdict !== "ok") throw refuse(name, `its database is damaged (integrity check: ${String(verdict)})`);
    const have = new Set(tableNames(db));
    const missing = expectedTables(migrations).filter((t) => !have.has(t));
    if (missing.length) throw refuse(name, `its database (schema version ${version}) lacks the table${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
  } finally {
    // The last connection's close checkpoints the WAL into the file and deletes it: one file to move.
    db.close();
  }
  return version;
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split("\n")[0]!.replace(/ \(.*$/, "");
}

/**
 * Copies snapshot `name` from `snapshotDir` beside the instance and checks it (see the top). The
 * live instance is not touched; on any refusal or error the staged copy is removed.
 */
export function stageSnapshot(
  name: string,
  snapshotDir: string,
  localDir: string,
  migrations: readonly string[],
  copyTree: (from: string, to: string) => void,
  hook?: RestoreHook,
): StagedSnapshot {
  const dir = path.join(localDir, `${STAGE_PREFIX}${process.pid}-${Date.now()}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  active.add(path.basename(dir));
  try {
    const db = path.join(dir, "instance.db");
    fs.copyFileSync(path.join(snapshotDir, "instance.db"), db);
    hook?.("staged-db");
    const version = checkStagedDatabase(name, db, migrations);
    copyTree(path.join(snapshotDir, "media"), path.join(dir, "media"));
    fs.mkdirSync(path.join(dir, "media"), { recursive: true });
    const key = fs.existsSync(path.join(snapshotDir, "default.key"));
    if (key) fs.copyFileSync(path.join(snapshotDir, "default.key"), path.join(dir, "default.key"));
    hook?.("staged");
    return { dir, key, version };
  } catch (e) {
    discardStaged({ dir, key: false, version: 0 });
    throw e;
  }
}

/** Removes a staged snapshot that will not be swapped in (the restore was refused later). */
export function discardStaged(staged: StagedSnapshot): void {
  active.delete(path.basename(staged.dir));
  fs.rmSync(staged.dir, { recursive: true, force: true });
}

/** Commits and swaps a staged snapshot in (the caller has closed the database and stopped writers). */
export function swapIn(staged: StagedSnapshot, paths: RestorePaths, hook?: RestoreHook): void {
  const marker: Marker = {
    pid: process.pid,
    stage: path.basename(staged.dir),
    old: `${OLD_PREFIX}${path.basename(staged.dir).slice(STAGE_PREFIX.length)}`,
    key: staged.key,
  };
  const file = path.join(paths.localDir, MARKER);
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, "w", 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(marker));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(paths.localDir);
  hook?.("committed");
  rollForward(marker, paths, hook);
  active.delete(marker.stage);
  hook?.("done");
}

function moveAside(from: string, oldDir: string): void {
  if (!fs.existsSync(from)) return;
  fs.mkdirSync(oldDir, { recursive: true, mode: 0o700 });
  const to = path.join(oldDir, path.basename(from));
  fs.rmSync(to, { recursive: true, force: true });
  fs.renameSync(from, to);
}

/**
 * Puts the staged parts in place of the live ones. Repeatable after a kill at any point: a live
 * part is only moved aside while its staged replacement is still waiting.
 */
function rollForward(marker: Marker, paths: RestorePaths, hook?: RestoreHook): void {
  const stage = path.join(paths.localDir, marker.stage);
  const old = path.join(paths.localDir, marker.old);
  const stagedDb = path.join(stage, "instance.db");
  if (fs.existsSync(stagedDb)) {
    for (const f of [paths.dbPath, `${paths.dbPath}-wal`, `${paths.dbPath}-shm`]) moveAside(f, old);
    fs.renameSync(stagedDb, paths.dbPath);
  }
  hook?.("swapped-db");
  const stagedMedia = path.join(stage, "media");
  if (fs.existsSync(stagedMedia)) {
    moveAside(paths.mediaDir, old);
    fs.renameSync(stagedMedia, paths.mediaDir);
  }
  hook?.("swapped-media");
  const stagedKey = path.join(stage, "default.key");
  if (marker.key) {
    if (fs.existsSync(stagedKey)) fs.renameSync(stagedKey, paths.defaultKeyPath);
  } else {
    moveAside(paths.defaultKeyPath, old);
  }
  fsyncDir(paths.localDir);
  fs.rmSync(path.join(paths.localDir, MARKER), { force: true });
  fsyncDir(paths.localDir);
  hook?.("swapped");
  fs.rmSync(old, { recursive: true, force: true });
  fs.rmSync(stage, { recursive: true, force: true });
}

function readMarker(localDir: string): Marker | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(localDir, MARKER), "utf8")) as Marker;
    const ok = typeof m.pid === "number" && typeof m.stage === "string" && typeof m.old === "string";
    return ok && m.stage.startsWith(STAGE_PREFIX) && m.old.startsWith(OLD_PREFIX) && !/[/\\]/.test(m.stage + m.old) ? m : undefined;
  } catch {
    return undefined;
  }
}

/** The pid in a temp folder's name `<prefix><pid>-<time>` (`.saving-<name>-<pid>-<time>` too). */
function pidOf(name: string): number | undefined {
  const m = /-(\d+)-\d+$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/**
 * Run at every start, before the database is opened: finishes a restore whose process died after
 * its commit, and removes the staging and old folders of dead restores and the `.saving-*` folders
 * of dead saves (each can be a whole copy of the media). Folders of live processes are left alone.
 */
export function recoverRestore(paths: RestorePaths, snapshotsDir: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(paths.localDir);
  } catch {
    return;
  }
  if (entries.includes(MARKER)) {
    const marker = readMarker(paths.localDir);
    // A swap runs without a pause, so a marker of this very process is one left by an earlier
    // process that had the same pid.
    if (!marker) fs.rmSync(path.join(paths.localDir, MARKER), { force: true });
    else if (marker.pid === process.pid || !alive(marker.pid)) rollForward(marker, paths);
    else return;
    entries = fs.readdirSync(paths.localDir);
  }
  const stale = (n: string, prefix: string) => {
    if (!n.startsWith(prefix)) return false;
    const pid = pidOf(n);
    if (pid === process.pid) return prefix === STAGE_PREFIX && !active.has(n);
    return pid !== undefined && !alive(pid);
  };
  for (const n of entries) {
    const tmp = /^restore\.commit\.tmp-(\d+)$/.exec(n);
    if (stale(n, STAGE_PREFIX) || (tmp && !alive(Number(tmp[1])))) fs.rmSync(path.join(paths.localDir, n), { recursive: true, force: true });
  }
  let saving: string[] = [];
  try {
    saving = fs.readdirSync(snapshotsDir);
  } catch {
    return;
  }
  for (const n of saving) if (stale(n, ".saving-")) fs.rmSync(path.join(snapshotsDir, n), { recursive: true, force: true });
}
