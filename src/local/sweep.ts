/**
 * Temp files a killed process left behind. Every temp file the local instance and its renders write
 * carries the writer's pid (`.<name>.<pid>-<random>.tmp[.ext]`, `<name>.<pid>.tmp`, and render work
 * dirs `mg-media-<pid>-…` in the system temp dir), so one whose process is gone can be removed
 * without guessing at ages: nobody will ever rename it into place. Run when a worker starts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pidAlive } from "./worker-registry.js";

const TEMP_FILE = /\.(\d+)(?:-[0-9a-z]+)?\.tmp(?:\.[0-9a-z]+)?$/i;
const WORK_DIR = /^mg-media-(\d+)-/;

function orphaned(pidText: string): boolean {
  const pid = Number(pidText);
  return pid !== process.pid && !pidAlive(pid);
}

/** Removes temp files under `dir` (recursively) and render work dirs whose writer is gone; returns what it removed. */
export async function sweepStaleTemps(dir: string, tmpDir = os.tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const remove = async (p: string, recursive = false) => {
    try {
      await fs.promises.rm(p, { force: true, recursive });
      removed.push(p);
    } catch {
      // Someone else removed it, or it is not ours to remove.
    }
  };
  let names: string[] = [];
  try {
    names = (await fs.promises.readdir(dir, { recursive: true })) as string[];
  } catch {
    // No dir yet: nothing left behind.
  }
  for (const rel of names) {
    const m = TEMP_FILE.exec(path.basename(rel));
    if (m && orphaned(m[1]!)) await remove(path.join(dir, rel));
  }
  let tmpNames: string[] = [];
  try {
    tmpNames = await fs.promises.readdir(tmpDir);
  } catch {
    // no temp dir to look at
  }
  for (const name of tmpNames) {
    const m = WORK_DIR.exec(name);
    if (m && orphaned(m[1]!)) await remove(path.join(tmpDir, name), true);
  }
  return removed;
}
