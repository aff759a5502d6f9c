/**
 * Makes sure the mediagen home exists and is writable before anything is stored in it, and says what is
 * wrong when it is not. Node's recursive mkdir loops forever when a file system answers ENOENT for a
 * directory whose parent exists (`/proc/…`, some FUSE mounts), so the home is made one level at a time.
 */
import fs from "node:fs";
import path from "node:path";

/** The home cannot hold mediagen's state; exit 1 with the path and the reason. */
export class HomeError extends Error {
  override readonly name = "HomeError";
  constructor(
    readonly home: string,
    readonly reason: string,
  ) {
    super(`cannot use ${home} as the mediagen home (MEDIAGEN_HOME): ${reason}`);
  }
}

function reasonOf(e: NodeJS.ErrnoException, at: string, home: string): string {
  const where = at === home ? "" : ` (at ${at})`;
  switch (e.code) {
    case "ENOENT":
      return `its file system does not allow creating directories there${where}`;
    case "EACCES":
    case "EPERM":
      return `permission denied${where}`;
    case "EROFS":
      return `read-only file system${where}`;
    case "ENOTDIR":
      return `a part of the path is a file, not a directory${where}`;
    case "ENOSPC":
      return `no space left on device${where}`;
    default:
      return `${e.code ?? e.message}${where}`;
  }
}

/** Creates `home` (mode 0700 for what it creates) if needed and checks it is a writable directory. */
export function ensureHome(home: string): void {
  const abs = path.resolve(home);
  const missing: string[] = [];
  for (let dir = abs; ; dir = path.dirname(dir)) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOTDIR: some part above is a file; walking up finds which one.
      if (code !== "ENOENT" && code !== "ENOTDIR") throw new HomeError(abs, reasonOf(e as NodeJS.ErrnoException, dir, abs));
    }
    if (st) {
      if (!st.isDirectory()) throw new HomeError(abs, reasonOf({ code: "ENOTDIR" } as NodeJS.ErrnoException, dir, abs));
      break;
    }
    missing.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of missing) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw new HomeError(abs, reasonOf(e as NodeJS.ErrnoException, dir, abs));
    }
  }
  try {
    fs.accessSync(abs, fs.constants.W_OK | fs.constants.X_OK);
  } catch (e) {
    throw new HomeError(abs, reasonOf(e as NodeJS.ErrnoException, abs, abs));
  }
}
