/**
 * The one database interface the local instance uses, and the two drivers behind it: Node's own
 * `node:sqlite` (no native addon to build: Node 22.16+ and 24+) and better-sqlite3 (Node 20, where
 * node:sqlite does not exist; an optional dependency compiled at install). The interface is the part
 * of better-sqlite3's API the store uses, no more: statements (`run`, `get`, `all`, `iterate`,
 * `pluck`), `exec`, `pragma`, transactions (IMMEDIATE or deferred, nested ones as savepoints), the
 * online backup snapshots use, `open`, `inTransaction` and `close`. Both drivers open the same file
 * format with the same pragmas, so processes on either driver share one database.
 *
 * Errors of both carry SQLite's (extended) result code name in `code` (`SQLITE_BUSY`,
 * `SQLITE_CONSTRAINT_PRIMARYKEY`…), as better-sqlite3 names them.
 */
import { readEnv } from "../../config/env.js";

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqlStatement {
  /** True when the statement returns rows. */
  readonly reader: boolean;
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** On: `get`/`all`/`iterate` give the first column's value instead of a row object. */
  pluck(on?: boolean): this;
}

// biome-ignore lint/suspicious/noExplicitAny: the transaction passes its arguments through as given.
export type TxFn = (...args: any[]) => any;

/**
 * `fn` run in a transaction: called as is, a deferred BEGIN; `.immediate()`, BEGIN IMMEDIATE (takes
 * the write lock first, so it never fails to upgrade a read). Inside another transaction, a
 * savepoint. Committed when `fn` returns, rolled back when it throws. `fn` must not return a promise
 * (never await inside a transaction).
 */
export interface Transaction<F extends TxFn> {
  (...args: Parameters<F>): ReturnType<F>;
  immediate(...args: Parameters<F>): ReturnType<F>;
}

export interface SqlDatabase {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): SqlStatement;
  exec(sql: string): unknown;
  /** `PRAGMA <source>`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends TxFn>(fn: F): Transaction<F>;
  /** The whole database copied to `file` in one step: one read transaction, so one point in time; writers are not blocked. */
  backup(file: string): Promise<unknown>;
  close(): unknown;
}

export type DriverName = "node" | "better";

export interface SqlDriver {
  readonly name: DriverName;
  /** A connection to `file` (created if missing); errors carry SQLite's code name in `code`. */
  connect(file: string): SqlDatabase;
}

/** A SQLite error as both drivers throw it: `code` is the result code's name. */
export class SqliteError extends Error {
  override readonly name = "SqliteError";
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** The driver a process uses unless told: node:sqlite where this Node has what the store needs. */
export function preferredDriver(nodeAvailable: boolean): DriverName {
  const forced = readEnv("MEDIAGEN_SQLITE_DRIVER");
  return forced ?? (nodeAvailable ? "node" : "better");
}
