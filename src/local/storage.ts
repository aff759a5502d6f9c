import fs from "node:fs";
import path from "node:path";
import { ensureHome } from "../config/home.js";
import { openDatabase, openRatesDatabase } from "./db/open.js";
import { recoverRestore } from "./snapshot-restore.js";
import { StoreUnavailableError } from "./store-fault.js";
import type { DB } from "./types.js";

export interface InstancePaths {
  localDir: string;
  dbPath: string;
  /** The rate-limit windows (db/open.ts openRatesDatabase). */
  ratesPath: string;
  mediaDir: string;
  defaultKeyPath: string;
}

export function instancePaths(home: string): InstancePaths {
  const localDir = path.join(home, "local");
  return {
    localDir,
    dbPath: path.join(localDir, "instance.db"),
    ratesPath: path.join(localDir, "rates.db"),
    mediaDir: path.join(localDir, "media"),
    defaultKeyPath: path.join(localDir, "default.key"),
  };
}

export interface StorageOptions {
  /**
   * Wraps every connection this storage opens (instrumentation: tests inject storage faults such as
   * a full disk through it). Default: the connection itself.
   */
  wrapDatabase?: (db: DB) => DB;
}

/**
 * The files of a local instance under `<home>/local`: the SQLite database (migrated on open), the
 * media dir and the default key. The connection is replaced by `wipe`, so holders read `db` on
 * every use rather than keeping it.
 *
 * SQLite keeps writing to a database file that was deleted (or replaced by another file at the same
 * path) under it: the writes succeed into a file nobody will ever open again. So the storage keeps a
 * descriptor of the file it opened and `problem()` compares it with what the path holds now.
 */
export class InstanceStorage {
  readonly paths: InstancePaths;
  private _db: DB;
  private _rates: DB | undefined;
  private fd: number | undefined;
  private ino = 0;
  private dev = 0;
  private gone: StoreUnavailableError | undefined;

  constructor(
    home: string,
    private readonly migrations: readonly string[],
    private readonly o: StorageOptions = {},
  ) {
    this.paths = instancePaths(home);
    ensureHome(home);
    fs.mkdirSync(this.paths.localDir, { recursive: true, mode: 0o700 });
    // A restore or save killed before its end: finished or cleared before anything is opened.
    recoverRestore(this.paths, path.join(this.paths.localDir, "snapshots"));
    fs.mkdirSync(this.paths.mediaDir, { recursive: true });
    this._db = this.open();
  }

  private open(): DB {
    const db = openDatabase(this.paths.dbPath, this.migrations);
    this.watchFile();
    return this.o.wrapDatabase ? this.o.wrapDatabase(db) : db;
  }

  /** Remembers which file the connection has open (inode and device, and a descriptor for its link count). */
  private watchFile(): void {
    this.unwatchFile();
    this.gone = undefined;
    try {
      this.fd = fs.openSync(this.paths.dbPath, "r");
      const st = fs.fstatSync(this.fd);
      this.ino = st.ino;
      this.dev = st.dev;
    } catch {
      // Not watchable (an odd file system): the check below then finds nothing wrong.
      this.fd = undefined;
    }
  }

  private unwatchFile(): void {
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = undefined;
  }

  get db(): DB {
    return this._db;
  }

  /** The rate-limit store, opened on first use (a command that counts nothing never opens it). */
  get ratesDb(): DB {
    if (!this._rates) {
      const db = openRatesDatabase(this.paths.ratesPath);
      this._rates = this.o.wrapDatabase ? this.o.wrapDatabase(db) : db;
    }
    return this._rates;
  }

  private closeRates(): void {
    const db = this._rates;
    this._rates = undefined;
    if (!db) return;
    try {
      db.close();
    } catch {
      // already closed
    }
  }

  /**
   * Undefined while the database file at the instance's path is the one this connection writes;
   * otherwise why it is not (deleted, or replaced by another file). One stat call of the path (its
   * inode must be the one opened; a deleted file has no path left): cheap enough for every request
   * and every write transaction. Once gone, always gone for this connection.
   */
  problem(): StoreUnavailableError | undefined {
    if (this.gone || this.fd === undefined) return this.gone;
    let what: string | undefined;
    try {
      const st = fs.statSync(this.paths.dbPath, { throwIfNoEntry: false });
      if (!st) what = "the database file was deleted";
      else if (st.ino !== this.ino || st.dev !== this.dev) {
        // Our inode without a link left: deleted (and another file put there); else replaced.
        what = fs.fstatSync(this.fd).nlink === 0 ? "the database file was deleted" : "the database file was replaced by another file";
      }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") what = "the database file was deleted";
    }
    if (what) this.gone = new StoreUnavailableError("database_gone", what, "");
    return this.gone;
  }

  /** Deletes the database, the media and the default key, and opens a new, empty database. */
  wipe(): void {
    const { dbPath, ratesPath, defaultKeyPath, mediaDir } = this.paths;
    this.closeConnection();
    this.closeRates();
    // Our descriptor would keep the file from being deleted on Windows.
    this.unwatchFile();
    for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, ratesPath, `${ratesPath}-wal`, `${ratesPath}-shm`, defaultKeyPath]) fs.rmSync(f, { force: true });
    // A file landing in a folder while it is emptied makes one pass fail with ENOTEMPTY: Node retries those.
    fs.rmSync(mediaDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    fs.mkdirSync(mediaDir, { recursive: true });
    this._db = this.open();
  }

  /**
   * Replaces the instance's files with others (a snapshot: `install` puts them in place) and opens
   * the database found there (migrated if it is older). Jobs the snapshot shows running belonged to
   * workers of that time: they go back to the queue (their attempt not counted), and its worker rows go.
   */
  replaceWith(install: (paths: InstancePaths) => void): void {
    this.closeConnection();
    this.unwatchFile();
    try {
      install(this.paths);
    } finally {
      // The instance's own files, restored or (the install failed) as they were.
      this._db = this.open();
    }
    this._db
      .transaction(() => {
        this._db.prepare("UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires = NULL, attempts = MAX(0, attempts - 1) WHERE status = 'running'").run();
        this._db.prepare("DELETE FROM workers").run();
      })
      .immediate();
  }

  close(): void {
    this.closeRates();
    this.closeConnection();
    this.unwatchFile();
  }

  /**
   * Closing the last connection of a WAL database checkpoints it and deletes `<path>-wal`. When the
   * file was deleted or replaced under us, that path may belong to the new database's connections
   * by now: the connection is left for the process's exit to drop, as a crash would, which SQLite
   * recovers from.
   */
  private closeConnection(): void {
    if (this.problem()) return;
    this._db.close();
  }
}
