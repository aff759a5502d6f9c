/**
 * renderImage for a worker that draws several pictures at once: the calls without references made in
 * the same turn of the event loop share ONE ffmpeg run (drawCards), because starting ffmpeg costs
 * more than drawing a card (a Debian build spends 80–100 ms of CPU loading its libraries). Two image
 * jobs claimed together then cost one start instead of two. Each file is the one renderImage writes
 * for the same options.
 *
 * Each caller keeps its own life:
 * - cancelled before the run, it leaves the batch; during it, its promise rejects at once and its
 *   file is never put in place (the run goes on for the others, and stops when every caller left);
 * - a run that fails is tried again one picture at a time, so each fails, or not, on its own.
 */
import fs from "node:fs";
import path from "node:path";
import { removeQuietly, tempPathFor, withWorkDir } from "./atomic.js";
import { checkDrawn, drawCards, renderImage, type RenderImageOptions, type RenderImageResult } from "./image.js";
import { checkOut, checkSize } from "./inputs.js";
import { abortedError } from "./run.js";
import { getTools, type Tools } from "./tools.js";

interface Caller {
  o: RenderImageOptions;
  resolve: (r: RenderImageResult) => void;
  reject: (e: unknown) => void;
  /** Settled (cancelled, or answered): its file is not put in place by the batch. */
  done: boolean;
}

let forming: { tools: Tools; callers: Caller[] } | undefined;

export async function renderImageBatched(o: RenderImageOptions): Promise<RenderImageResult> {
  // References (composited pictures) and injected tools take renderImage's own run.
  if ((o.references?.length ?? 0) > 0 || o.tools) return renderImage(o);
  checkOut(o.out, "out");
  checkSize(o.width, o.height);
  if (o.signal?.aborted) throw abortedError("ffmpeg");
  const tools = await getTools();
  return new Promise<RenderImageResult>((resolve, reject) => {
    if (!forming || forming.tools !== tools) {
      const batch = { tools, callers: [] as Caller[] };
      forming = batch;
      setImmediate(() => {
        if (forming === batch) forming = undefined;
        void run(batch.tools, batch.callers);
      });
    }
    forming.callers.push({ o, resolve, reject, done: false });
  });
}

async function run(tools: Tools, all: Caller[]): Promise<void> {
  const callers = all.filter((c) => {
    if (!c.o.signal?.aborted) return true;
    c.done = true;
    c.reject(abortedError("ffmpeg"));
    return false;
  });
  if (callers.length === 0) return;
  if (callers.length === 1) {
    const [c] = callers;
    return renderImage(c!.o).then(c!.resolve, c!.reject);
  }
  // The run stops when every caller has left; each one leaving is answered at once.
  const ac = new AbortController();
  const leave = (c: Caller) => () => {
    if (c.done) return;
    c.done = true;
    c.reject(abortedError("ffmpeg"));
    if (callers.every((x) => x.done)) ac.abort();
  };
  const listeners = callers.map((c) => {
    const l = leave(c);
    c.o.signal?.addEventListener("abort", l, { once: true });
    return l;
  });
  let failed = false;
  try {
    await withWorkDir(async (workDir) => {
      const tmps = callers.map((c) => tempPathFor(c.o.out));
      try {
        const drawn = await drawCards(
          tools,
          callers.map((c) => c.o),
          tmps,
          workDir,
          ac.signal,
        );
        for (const [k, c] of callers.entries()) {
          if (c.done) continue;
          checkDrawn(tmps[k]!, c.o.width, c.o.height);
          fs.renameSync(tmps[k]!, path.resolve(c.o.out));
          c.done = true;
          c.resolve({ width: c.o.width, height: c.o.height, textDrawn: drawn.textDrawn });
        }
      } finally {
        tmps.forEach(removeQuietly);
      }
    });
  } catch {
    failed = true;
  } finally {
    for (const [k, c] of callers.entries()) c.o.signal?.removeEventListener("abort", listeners[k]!);
  }
  // One at a time: each picture's own run, and its own error.
  if (failed) for (const c of callers.filter((x) => !x.done)) await renderImage(c.o).then(c.resolve, c.reject);
}
