/**
 * Snapshots of the local instance: the database (SQLite's online backup, one consistent read even
 * while `serve` writes), the media files and the default key, under `<home>/local/snapshots/<name>/`.
 * `local reset` leaves them alone. Restoring replaces the instance's files with a snapshot's (see
 * `Lifecycle.restore` for who may and when); the list is the read API dashboards show.
 */
import fs from "node:fs";
import path from "node:path";
import { LocalAdminError } from "./admin-error.js";
import { type RestoreHook, stageSnapshot, type StagedSnapshot } from "./snapshot-restore.js";
import type { DB } from "./types.js";

export interface SnapshotView {
  name: string;
  created_at: string;
  /** Bytes of the database copy and the media. */
  size_bytes: number;
  media_files: number;
  schema_version: number;
  spaces: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const META = "snapshot.json";
const DB_FILE = "instance.db";
const MEDIA_DIR = "media";
const KEY_FILE = "default.key";

export function checkSnapshotName(name: string): string {
  if (!NAME.test(name))
    throw new LocalAdminError("invalid", `snapshot name "${name}": use letters, digits, ".", "_" and "-" (at most 64, starting with a letter or digit)`);
  return name;
}

/** Files being written (renders' temp names) are not part of any state worth keeping. */
function isTemp(name: string): boolean {
  return /\.tmp(\.|$)/.test(name) || name.startsWith("attempt-");
}

/**
 * Copies a media tree that other processes may be writing: a file or folder that vanishes during
 * the walk (a render's temp file, a failed job's outputs) is skipped. Returns [files, bytes].
 */
function copyTree(from: string, to: string): [number, number] {
  let files = 0;
  let bytes = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(from, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [0, 0];
    throw e;
  }
  fs.mkdirSync(to, { recursive: true });
  for (const e of entries) {
    if (isTemp(e.name)) continue;
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) {
      const [f, b] = copyTree(src, dst);
      files += f;
      bytes += b;
    } else if (e.isFile()) {
      try {
        fs.copyFileSync(src, dst);
        files++;
        bytes += fs.statSync(dst).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
  }
  return [files, bytes];
}

export interface SnapshotHost {
  readonly db: DB;
  readonly localDir: string;
  readonly mediaDir: string;
  readonly defaultKeyPath: string;
}

export class Snapshots {
  constructor(private readonly host: SnapshotHost) {}

  get dir(): string {
    return path.join(this.host.localDir, "snapshots");
  }

  /** Where snapshot `name` is (it may not exist). */
  pathOf(name: string): string {
    return path.join(this.dir, checkSnapshotName(name));
  }

  /**
   * Saves the instance as snapshot `name`: first the database (one backup step: a consistent read
   * that never blocks writers), then the media and the default key. Written under a temp name and
   * renamed, so a snapshot is whole or absent. Refuses an existing name unless `replace`.
   */
  async save(name: string, opts: { replace?: boolean } = {}): Promise<SnapshotView> {
    const final = this.pathOf(name);
    if (fs.existsSync(final) && !opts.replace) throw new LocalAdminError("invalid", `snapshot "${name}" already exists; delete it first or replace it (--force)`);
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = path.join(this.dir, `.saving-${name}-${process.pid}-${Date.now()}`);
    fs.mkdirSync(tmp, { mode: 0o700 });
    try {
      // One step for every page: the copy is a single read transaction, so it is one point in time.
      await this.host.db.backup(path.join(tmp, DB_FILE));
      const [mediaFiles, mediaBytes] = copyTree(this.host.mediaDir, path.join(tmp, MEDIA_DIR));
      if (fs.existsSync(this.host.defaultKeyPath)) fs.copyFileSync(this.host.defaultKeyPath, path.join(tmp, KEY_FILE));
      const view = this.describe(name, tmp, mediaFiles, mediaBytes);
      fs.writeFileSync(path.join(tmp, META), JSON.stringify(view, null, 2) + "\n");
      if (fs.existsSync(final)) fs.rmSync(final, { recursive: true, force: true });
      fs.renameSync(tmp, final);
      return view;
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
  }

  private describe(name: string, dir: string, mediaFiles: number, mediaBytes: number): SnapshotView {
    const dbFile = path.join(dir, DB_FILE);
    const version = this.host.db.pragma("user_version", { simple: true }) as number;
    const spaces = (this.host.db.prepare("SELECT COUNT(*) AS n FROM spaces").get() as { n: number }).n;
    // The machine's time, not the instance's (`local clock`): snapshots are listed in the order they were made.
    return { name, created_at: new Date().toISOString(), size_bytes: fs.statSync(dbFile).size + mediaBytes, media_files: mediaFiles, schema_version: version, spaces };
  }

  /** Every snapshot, oldest first. */
  list(): SnapshotView[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir).filter((n) => NAME.test(n));
    } catch {
      return [];
    }
    const out: SnapshotView[] = [];
    for (const n of names) {
      try {
        out.push(JSON.parse(fs.readFileSync(path.join(this.dir, n, META), "utf8")) as SnapshotView);
      } catch {
        // A folder that is not a whole snapshot is not listed.
      }
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.name.localeCompare(b.name));
  }

  /** The snapshot's folder, checked whole; LocalAdminError not_found otherwise. */
  existing(name: string): string {
    const dir = this.pathOf(name);
    if (!fs.existsSync(path.join(dir, META)) || !fs.existsSync(path.join(dir, DB_FILE))) {
      throw new LocalAdminError("not_found", `No snapshot named "${name}" (see \`mediagen local snapshot list\`)`);
    }
    return dir;
  }

  delete(name: string): void {
    fs.rmSync(this.existing(name), { recursive: true, force: true });
  }
}

/**
 * Copies snapshot `name` (its folder `snapshotDir`) beside the instance and checks it: see
 * snapshot-restore.ts. The instance is not touched; a snapshot that cannot be used is refused.
 */
export function stageSnapshotCopy(name: string, snapshotDir: string, localDir: string, migrations: readonly string[], hook?: RestoreHook): StagedSnapshot {
  return stageSnapshot(name, snapshotDir, localDir, migrations, copyTree, hook);
}
