import fs from "node:fs";
import path from "node:path";
import { ensureHome } from "../config/home.js";
import { openDatabase } from "./db/open.js";
import type { DB } from "./types.js";

export interface InstancePaths {
  localDir: string;
  dbPath: string;
  mediaDir: string;
  defaultKeyPath: string;
}

export function instancePaths(home: string): InstancePaths {
  const localDir = path.join(home, "local");
  return {
    localDir,
    dbPath: path.join(localDir, "instance.db"),
    mediaDir: path.join(localDir, "media"),
    defaultKeyPath: path.join(localDir, "default.key"),
  };
}

/**
 * The files of a local instance under `<home>/local`: the SQLite database (migrated on open), the
 * media dir and the default key. The connection is replaced by `wipe`, so holders read `db` on
 * every use rather than keeping it.
 */
export class InstanceStorage {
  readonly paths: InstancePaths;
  private _db: DB;

  constructor(
    home: string,
    private readonly migrations: readonly string[],
  ) {
    this.paths = instancePaths(home);
    ensureHome(home);
    fs.mkdirSync(this.paths.localDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.paths.mediaDir, { recursive: true });
    this._db = openDatabase(this.paths.dbPath, migrations);
  }

  get db(): DB {
    return this._db;
  }

  /** Deletes the database, the media and the default key, and opens a new, empty database. */
  wipe(): void {
    const { dbPath, defaultKeyPath, mediaDir } = this.paths;
    this._db.close();
    for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, defaultKeyPath]) fs.rmSync(f, { force: true });
    fs.rmSync(mediaDir, { recursive: true, force: true });
    fs.mkdirSync(mediaDir, { recursive: true });
    this._db = openDatabase(dbPath, this.migrations);
  }

  close(): void {
    this._db.close();
  }
}
