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
  return ensureFiles([abs], (files) => make(files[0]!.tmp));
}

/**
 * ensureFile for several files made together (one run draws them all): `make` is given the files to
 * make (those of `abs` that neither exist nor are being made by another caller, who is waited for)
 * and writes each one's temp path; each is then renamed into place.
 */
export async function ensureFiles(abs: readonly string[], make: (files: Array<{ abs: string; tmp: string }>) => Promise<void>): Promise<void> {
  const waits: Promise<void>[] = [];
  const todo: string[] = [];
  for (const a of new Set(abs)) {
    if (fs.existsSync(a)) continue;
    const pending = inflight.get(a);
    if (pending !== undefined) waits.push(pending);
    else todo.push(a);
  }
  if (todo.length > 0) {
    const batch = (async () => {
      const tmps = todo.map((a) => {
        fs.mkdirSync(path.dirname(a), { recursive: true });
        const ext = path.extname(a);
        return path.join(path.dirname(a), `.${path.basename(a, ext)}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp${ext}`);
      });
      try {
        await make(todo.map((a, i) => ({ abs: a, tmp: tmps[i]! })));
        for (const [i, a] of todo.entries()) fs.renameSync(tmps[i]!, a);
      } finally {
        for (const t of tmps) fs.rmSync(t, { force: true });
      }
    })().finally(() => {
      for (const a of todo) inflight.delete(a);
    });
    for (const a of todo) inflight.set(a, batch);
    waits.push(batch);
  }
  await Promise.all(waits);
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
