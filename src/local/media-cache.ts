import fs from "node:fs";
import path from "node:path";

/**
 * Catalog media (look thumbnails, voice previews) is made on first need and kept under the media
 * dir, so it costs nothing at open and is made once per instance. Several processes may share an
 * instance: each file is written to a temp name and renamed, so a reader never sees half a file and
 * two makers of the same file both end with a whole one.
 */
const inflight = new Map<string, Promise<void>>();

export async function ensureFile(abs: string, make: (tmpPath: string) => Promise<void>): Promise<void> {
  if (fs.existsSync(abs)) return;
  let pending = inflight.get(abs);
  if (!pending) {
    pending = (async () => {
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      const ext = path.extname(abs);
      const tmp = path.join(path.dirname(abs), `.${path.basename(abs, ext)}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp${ext}`);
      try {
        await make(tmp);
        fs.renameSync(tmp, abs);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    })().finally(() => inflight.delete(abs));
    inflight.set(abs, pending);
  }
  return pending;
}

/** Runs `fn` over `items` with at most `limit` at a time (the machine may have two cores). */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
