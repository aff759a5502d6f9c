import fs from "node:fs";
import path from "node:path";
import type { DB } from "../types.js";
import { preferredDriver, type SqlDriver } from "./driver.js";
import { nodeDriver, nodeSqlite } from "./node-sqlite.js";

/**
 * The driver this process opens databases with (db/driver.ts): node:sqlite where Node has it, else
 * better-sqlite3, whose JavaScript (and addon) is then loaded, and only then. MEDIAGEN_SQLITE_DRIVER
 * forces one; a value that is not valid makes every open fail with the variable's message.
 */
async function chooseDriver(): Promise<SqlDriver> {
  let name: string;
  try {
    name = preferredDriver(nodeSqlite() !== null);
  } catch (e) {
    return {
      name: "node",
      connect: () => {
        throw e;
      },
    };
  }
  return name === "node" ? nodeDriver : (await import("./better-sqlite3.js")).betterDriver;
}

export const defaultDriver: SqlDriver = await chooseDriver();

/** Long enough that several CLI processes queueing on the write lock never see "database is locked". */
export const BUSY_TIMEOUT_MS = 10_000;

/** The database file cannot be opened or used: the message names the file, the cause and what to do. */
export class LocalStoreError extends Error {
  override readonly name = "LocalStoreError";
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

function storeError(file: string, e: unknown): LocalStoreError {
  const code = (e as { code?: string }).code ?? "";
  const msg = e instanceof Error ? e.message : String(e);
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT" || /not a database|malformed/i.test(msg)) {
    return new LocalStoreError(
      file,
      `the local instance database ${file} is damaged (${msg}); move it and any -wal/-shm file beside it aside (e.g. \`mv ${file} ${file}.broken\`) and mediagen starts an empty instance`,
    );
  }
  if (code === "SQLITE_READONLY" || code === "EROFS" || /readonly|read-only/i.test(msg)) {
    return new LocalStoreError(
      file,
      `the local instance database ${file} is read-only (${msg}); make it and its directory writable, or set MEDIAGEN_HOME to a writable directory`,
    );
  }
  if (code === "SQLITE_FULL" || code === "ENOSPC") {
    return new LocalStoreError(file, `no space left on device for the local instance database ${file}; free some space and try again`);
  }
  if (code === "SQLITE_CANTOPEN" || code === "EACCES" || code === "EPERM") {
    return new LocalStoreError(
      file,
      `cannot open the local instance database ${file} (${msg}); check that it and its directory are readable and writable, or set MEDIAGEN_HOME elsewhere`,
    );
  }
  return new LocalStoreError(file, `cannot open the local instance database ${file}: ${msg}`);
}

/** A connection to `file` through `driver`; failures name the file. */
function connect(file: string, driver: SqlDriver): DB {
  try {
    return driver.connect(file);
  } catch (e) {
    throw storeError(file, e);
  }
}

/**
 * Opens (creating if needed) the instance database with the pragmas every connection needs, and
 * brings its schema up to date. Safe when several processes open a fresh file at the same time.
 */
export function openDatabase(file: string, migrations: readonly string[], driver: SqlDriver = defaultDriver): DB {
  if (file !== ":memory:") {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      // The file holds key hashes and signing secrets: only its owner may read it (SQLite gives the
      // -wal and -shm files the same mode).
      fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
      fs.chmodSync(file, 0o600);
    } catch (e) {
      throw storeError(file, e);
    }
  }
  const db = connect(file, driver);
  try {
    // busy_timeout first: the journal-mode switch below already needs the lock another process may hold.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    withBusyRetry(() => db.pragma("journal_mode = WAL"));
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    migrate(db, migrations);
    cacheStatements(db);
    return db;
  } catch (e) {
    db.close();
    // Migration errors of our own (a newer schema) already say what to do.
    if (e instanceof Error && /newer than this mediagen knows/.test(e.message)) throw e;
    throw file === ":memory:" ? e : storeError(file, e);
  }
}

/**
 * Compiling a statement costs more than running most of ours (a profile of the served instance spent a
 * quarter of its time in `prepare`), so each SQL text is compiled once per connection. A cached
 * statement is shared: its read mode is reset on every fetch so a caller's `.pluck()` cannot leak.
 */
export function cacheStatements(db: DB): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, ReturnType<DB["prepare"]>>();
  db.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = prepare(sql);
      cache.set(sql, stmt);
    } else if (stmt.reader) {
      stmt.pluck(false);
    }
    return stmt;
  }) as DB["prepare"];
}

export function schemaVersion(db: DB): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Runs the pending migrations in one IMMEDIATE transaction that re-reads `user_version` once it holds
 * the write lock, so two processes migrating a fresh file apply each migration exactly once.
 */
export function migrate(db: DB, list: readonly string[]): void {
  const seen = schemaVersion(db);
  if (seen > list.length) {
    throw new Error(`the local instance database has schema version ${seen}, newer than this mediagen knows (${list.length}); upgrade mediagen`);
  }
  if (seen === list.length) return;
  db.transaction(() => {
    for (let v = schemaVersion(db); v < list.length; v++) {
      db.exec(list[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }
  }).immediate();
}

/**
 * SQLite does not call the busy handler for every lock it can meet while switching to WAL on a
 * fresh file, so a racing opener may see SQLITE_BUSY once; waiting briefly and retrying is enough.
 */
export function withBusyRetry<T>(fn: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return fn();
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (!(code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") || Date.now() > deadline) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/** The rate-limit windows (src/local/rate-limit.ts): a store of their own beside the instance database. */
const RATES_SCHEMA = `CREATE TABLE IF NOT EXISTS rate_windows (
  space_id     TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count        INTEGER NOT NULL CHECK (count >= 0),
  PRIMARY KEY (space_id, window_start)
) STRICT`;

/**
 * Opens (creating if needed) the rate-limit store. Every request counts itself, reads included, so
 * the count is kept out of the instance database: a command that only reads then leaves that
 * database as it found it, and closing it has nothing to checkpoint (four fsyncs, a few
 * milliseconds of every local command). The count is shared by every process as before (one atomic
 * upsert, WAL, the same busy timeout) but never fsynced (`synchronous = OFF`): a process killed
 * mid-write loses nothing (WAL), a machine that loses power may forget the current window's count,
 * which is a minute of allowance and no credit.
 */
export function openRatesDatabase(file: string, driver: SqlDriver = defaultDriver): DB {
  const db = connect(file, driver);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    withBusyRetry(() => db.pragma("journal_mode = WAL"));
    db.pragma("synchronous = OFF");
    withBusyRetry(() => db.exec(RATES_SCHEMA));
    cacheStatements(db);
    return db;
  } catch (e) {
    db.close();
    throw storeError(file, e);
  }
}
