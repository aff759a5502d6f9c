/** Outputs appear whole or not at all: tools write a temp file in the target dir, then we rename. */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readEnv } from "../config/env.js";

/** A temp path in the same directory as `out` (so rename is atomic); creates the directory. */
export function tempPathFor(out: string): string {
  const dir = path.dirname(path.resolve(out));
  fs.mkdirSync(dir, { recursive: true });
  const rand = crypto.randomBytes(6).toString("hex");
  return path.join(dir, `.${path.basename(out)}.${process.pid}-${rand}.tmp`);
}

export function removeQuietly(p: string): void {
  try {
    fs.rmSync(p, { force: true, recursive: true });
  } catch {
    // best effort: a leftover temp file is harmless
  }
}

/**
 * Runs `fn` with a fresh private work dir that is removed afterwards, success or not.
 * MEDIAGEN_MEDIA_KEEP=1 keeps it (graph scripts, text files, speech) for diagnosing a render.
 */
export async function withWorkDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  // The pid in the name lets the next worker remove the dir if this process is killed mid-render.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mg-media-${process.pid}-`));
  try {
    return await fn(dir);
  } finally {
    if (readEnv("MEDIAGEN_MEDIA_KEEP")) process.stderr.write(`[media] kept work dir ${dir}\n`);
    else removeQuietly(dir);
  }
}

/** Writes via a temp file, then renames: `write(tmp)` must create the file at `tmp`. */
export async function writeAtomic(out: string, write: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = tempPathFor(out);
  try {
    await write(tmp);
    fs.renameSync(tmp, path.resolve(out));
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  }
}

export function sha256(text: string): string {
  return crypto.createHash("sha256").update(text).digest("hex");
}
