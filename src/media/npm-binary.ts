/**
 * The npm copies of ffmpeg and ffprobe (@ffmpeg-installer/*, @ffprobe-installer/*) get their
 * execute bit from an install script (`chmod u+x`), which npm 12 does not run unless the project
 * allows it, and a global install never does. A binary found without the bit is made runnable here:
 * its bit set where this user owns the file; otherwise an executable copy in this user's tools
 * directory (mode 0700, beside the tools memo: tools-memo.ts), named by the binary's size and
 * modification time so an upgraded package gets a new copy. When neither works, the reason says
 * what to do.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { memoDir } from "./tools-memo.js";

export type Runnable = { path: string } | { problem: string };

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Sets the bits the package's install script would have (u+x), where this user owns the file. */
function setExecuteBit(file: string, uid: number | undefined): boolean {
  try {
    const st = fs.statSync(file);
    if (uid === undefined || (st.uid !== uid && uid !== 0)) return false;
    fs.chmodSync(file, (st.mode & 0o7777) | 0o100);
    return executable(file);
  } catch {
    return false;
  }
}

/** An executable copy of `file` in this user's tools directory (made once per version of the binary). */
function executableCopy(file: string, name: string): string | undefined {
  const dir = memoDir();
  if (!dir) return undefined;
  let copy = "";
  try {
    const real = fs.realpathSync(file);
    const st = fs.statSync(real);
    const id = crypto.createHash("sha256").update(`${real}:${st.size}:${st.mtimeMs}`).digest("hex").slice(0, 16);
    copy = path.join(dir, `${name}-${id}`);
    const have = fs.statSync(copy, { throwIfNoEntry: false });
    if (have && have.size === st.size && executable(copy)) return copy;
    const tmp = `${copy}.${process.pid}.tmp`;
    try {
      fs.copyFileSync(real, tmp);
      fs.chmodSync(tmp, 0o700);
      fs.renameSync(tmp, copy);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    return executable(copy) ? copy : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `file` (the npm package's `name` binary) as something this process can run, or why it cannot be.
 * `uid` is this process's (tests pass another to act as a user who does not own the file).
 */
export function runnableNpmBinary(file: string, name: string, uid = typeof process.getuid === "function" ? process.getuid() : undefined): Runnable {
  if (executable(file) || process.platform === "win32") return { path: file };
  if (setExecuteBit(file, uid)) return { path: file };
  const copy = executableCopy(file, name);
  if (copy) return { path: copy };
  return {
    problem: `the npm ${name} at ${file} is not executable (npm ran no install script for it), and no executable copy could be made in this user's tools directory (mediagen-<uid> under the temp dir); run \`chmod u+x ${file}\` as its owner, or install ${name} on PATH`,
  };
}
