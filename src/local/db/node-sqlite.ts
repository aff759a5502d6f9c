/**
 * The node:sqlite driver (db/driver.ts): Node's built-in SQLite, nothing to compile or install.
 * Used where this Node has all the store needs: the online backup (`sqlite.backup`), `isTransaction`,
 * statement `columns()` and unknown named parameters ignored (Node 22.16+, 24+). Loaded through
 * `process.getBuiltinModule`, so a Node without it (20) only finds it missing.
 *
 * What better-sqlite3 gives and node:sqlite does not is made here: `.transaction()` (BEGIN
 * IMMEDIATE or deferred / COMMIT / ROLLBACK, savepoints inside a transaction), `.pragma()`,
 * `.pluck()`, `reader`, and errors named by SQLite's code. Named parameters bind as with
 * better-sqlite3: `@x` in SQL, `{ x }` in JavaScript, extra keys ignored.
 */
import { SqliteError, type RunResult, type SqlDatabase, type SqlDriver, type SqlStatement, type Transaction, type TxFn } from "./driver.js";
import { sqliteCodeName } from "./sqlite-codes.js";

type Row = Record<string, unknown>;

interface NodeStatement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  iterate(...params: unknown[]): IterableIterator<Row>;
  columns(): unknown[];
  setAllowUnknownNamedParameters(enabled: boolean): void;
  setAllowBareNamedParameters(enabled: boolean): void;
}

interface NodeDatabase {
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}

interface NodeSqliteModule {
  DatabaseSync: { new (path: string): NodeDatabase; prototype: object };
  StatementSync: { prototype: object };
  backup(db: NodeDatabase, path: string, options?: { rate?: number }): Promise<number>;
}

let loaded: NodeSqliteModule | null | undefined;

/**
 * node:sqlite when this Node has what the store needs, else null. Node 22 warns that the module is
 * experimental when it is loaded: that warning is dropped (every command would print it).
 */
export function nodeSqlite(): NodeSqliteModule | null {
  if (loaded !== undefined) return loaded;
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const emit = process.emitWarning;
  let mod: NodeSqliteModule | undefined;
  try {
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      const text = typeof warning === "string" ? warning : warning.message;
      const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
      if (type === "ExperimentalWarning" && /sqlite/i.test(text)) return;
      (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    mod = getBuiltin?.("node:sqlite") as NodeSqliteModule | undefined;
  } catch {
    mod = undefined;
  } finally {
    process.emitWarning = emit;
  }
  loaded = mod && complete(mod) ? mod : null;
  return loaded;
}

/** `isTransaction` is an accessor of each connection, not of the prototype: asked of an in-memory one. */
function complete(mod: NodeSqliteModule): boolean {
  if (typeof mod.backup !== "function" || !("columns" in mod.StatementSync.prototype) || !("setAllowUnknownNamedParameters" in mod.StatementSync.prototype)) {
    return false;
  }
  try {
    const probe = new mod.DatabaseSync(":memory:");
    const has = typeof probe.isTransaction === "boolean";
    probe.close();
    return has;
  } catch {
    return false;
  }
}

/** Why node:sqlite cannot be used here (for messages and skipped tests); undefined when it can. */
export function nodeSqliteMissing(): string | undefined {
  if (nodeSqlite()) return undefined;
  return `Node ${process.version} has no node:sqlite with what the local instance needs (the online backup, isTransaction: Node 22.16+ or 24+)`;
}

/** node:sqlite's errors renamed as better-sqlite3 names them (`code` = SQLite's code name). */
function named(e: unknown): unknown {
  const err = e as { code?: unknown; errcode?: unknown; message?: unknown };
  if (err && typeof err === "object" && typeof err.errcode === "number" && err.code === "ERR_SQLITE_ERROR") {
    try {
      err.code = sqliteCodeName(err.errcode);
    } catch {
      return new SqliteError(String(err.message), sqliteCodeName(err.errcode));
    }
  }
  return e;
}

function firstValue(row: Row | undefined): unknown {
  if (row === undefined) return undefined;
  for (const key in row) return row[key];
  return undefined;
}

class Statement implements SqlStatement {
  private plucked = false;
  private isReader: boolean | undefined;

  constructor(private readonly s: NodeStatement) {}

  get reader(): boolean {
    this.isReader ??= this.s.columns().length > 0;
    return this.isReader;
  }

  pluck(on = true): this {
    this.plucked = on;
    return this;
  }

  run(...params: unknown[]): RunResult {
    try {
      return this.s.run(...params);
    } catch (e) {
      throw named(e);
    }
  }

  get(...params: unknown[]): unknown {
    let row: Row | undefined;
    try {
      row = this.s.get(...params);
    } catch (e) {
      throw named(e);
    }
    return this.plucked ? firstValue(row) : row;
  }

  all(...params: unknown[]): unknown[] {
    let rows: Row[];
    try {
      rows = this.s.all(...params);
    } catch (e) {
      throw named(e);
    }
    return this.plucked ? rows.map(firstValue) : rows;
  }

  *iterate(...params: unknown[]): IterableIterator<unknown> {
    try {
      for (const row of this.s.iterate(...params)) yield this.plucked ? firstValue(row) : row;
    } catch (e) {
      throw named(e);
    }
  }
}

const SAVEPOINT = "mediagen_tx";

class Database implements SqlDatabase {
  private control: Record<"deferred" | "immediate" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo", NodeStatement> | undefined;

  constructor(
    private readonly db: NodeDatabase,
    private readonly mod: NodeSqliteModule,
  ) {}

  get open(): boolean {
    return this.db.isOpen;
  }

  get inTransaction(): boolean {
    return this.db.isOpen && this.db.isTransaction;
  }

  prepare(sql: string): SqlStatement {
    let s: NodeStatement;
    try {
      s = this.db.prepare(sql);
    } catch (e) {
      throw named(e);
    }
    // As better-sqlite3: `{ x }` binds `@x`, and keys the statement does not name are ignored.
    s.setAllowBareNamedParameters(true);
    s.setAllowUnknownNamedParameters(true);
    return new Statement(s);
  }

  exec(sql: string): this {
    try {
      this.db.exec(sql);
    } catch (e) {
      throw named(e);
    }
    return this;
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const stmt = this.prepare(`PRAGMA ${source}`);
    return options.simple ? stmt.pluck().get() : stmt.all();
  }

  transaction<F extends TxFn>(fn: F): Transaction<F> {
    const run = (immediate: boolean, args: Parameters<F>): ReturnType<F> => this.inTx(fn, immediate, args);
    const tx = ((...args: Parameters<F>) => run(false, args)) as Transaction<F>;
    tx.immediate = (...args: Parameters<F>) => run(true, args);
    return tx;
  }

  private statements(): NonNullable<Database["control"]> {
    this.control ??= {
      deferred: this.db.prepare("BEGIN"),
      immediate: this.db.prepare("BEGIN IMMEDIATE"),
      commit: this.db.prepare("COMMIT"),
      rollback: this.db.prepare("ROLLBACK"),
      savepoint: this.db.prepare(`SAVEPOINT ${SAVEPOINT}`),
      release: this.db.prepare(`RELEASE ${SAVEPOINT}`),
      rollbackTo: this.db.prepare(`ROLLBACK TO ${SAVEPOINT}`),
    };
    return this.control;
  }

  /** better-sqlite3's transaction semantics: a savepoint when nested; undone when `fn` throws or the commit fails. */
  private inTx<F extends TxFn>(fn: F, immediate: boolean, args: Parameters<F>): ReturnType<F> {
    const c = this.statements();
    const nested = this.db.isTransaction;
    try {
      (nested ? c.savepoint : immediate ? c.immediate : c.deferred).run();
    } catch (e) {
      throw named(e);
    }
    try {
      const result = fn(...args) as ReturnType<F>;
      if (result && typeof (result as { then?: unknown }).then === "function") {
        throw new TypeError("Transaction function cannot return a promise");
      }
      (nested ? c.release : c.commit).run();
      return result;
    } catch (e) {
      if (this.db.isTransaction) {
        if (nested) {
          c.rollbackTo.run();
          c.release.run();
        } else c.rollback.run();
      }
      throw named(e);
    }
  }

  async backup(file: string): Promise<unknown> {
    try {
      // Every page in one step: one read transaction, so the copy is one point in time.
      return await this.mod.backup(this.db, file, { rate: 0x7fffffff });
    } catch (e) {
      throw named(e);
    }
  }

  close(): this {
    if (this.db.isOpen) this.db.close();
    return this;
  }
}

/** The node:sqlite driver; `connect` throws a clear error where this Node has no usable node:sqlite. */
export const nodeDriver: SqlDriver = {
  name: "node",
  connect(file: string): SqlDatabase {
    const mod = nodeSqlite();
    if (!mod) throw new SqliteError(`${nodeSqliteMissing()}; use Node 24 (or 22.16+), or MEDIAGEN_SQLITE_DRIVER=better`, "ERR_SQLITE_DRIVER");
    try {
      return new Database(new mod.DatabaseSync(file), mod);
    } catch (e) {
      throw named(e);
    }
  },
};
