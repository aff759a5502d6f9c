/**
 * The "avatar" step: learn what the inputs are (once) and draw every still picture of the timeline,
 * scaled to its layout box, as one raw frame per picture (graph.ts says why).
 *
 * Image sizes come from the file headers (PNG, JPEG): ffprobe costs a process per file and the stills
 * run reads the files anyway; videos are probed (duration, a readable picture stream), alongside it.
 * Drawn stills are cached by a hash of the job, its source files and the ffmpeg version.
 */
import fs from "node:fs";
import path from "node:path";
import { removeQuietly, sha256 } from "../atomic.js";
import { stillInputArgs } from "../card.js";
import { pngSize } from "../inputs.js";
import { probe, type ProbeResult } from "../probe.js";
import { runTool } from "../run.js";
import type { Tools } from "../tools.js";
import { ExportError, toExportError } from "./errors.js";
import { buildStillsGraph, type InputInfo, type StillJob } from "./graph.js";
import { describeFile, type RenderPlan } from "./spec.js";

const QUIET = ["-hide_banner", "-nostdin", "-y", "-nostats", "-loglevel", "error"];
const STILL_VERSION = 1;

/** The files the render reads, with the first use described for messages. */
export function inputFiles(plan: RenderPlan): Map<string, { what: string; video: boolean }> {
  const files = new Map<string, { what: string; video: boolean }>();
  for (const p of plan.sequences) {
    const n = p.index + 1;
    const m = p.seq.media;
    if (m && m.show !== "hide" && !files.has(m.path)) files.set(m.path, { what: `media of sequence ${n}`, video: m.kind === "video" });
    const look = p.seq.look_image_path;
    if (look && !files.has(look)) files.set(look, { what: `look image of sequence ${n}`, video: false });
    const lv = p.seq.look_video?.path;
    if (lv && !files.has(lv)) files.set(lv, { what: `avatar video of sequence ${n}`, video: true });
  }
  return files;
}

/** Width and height from a JPEG's first SOFn marker. */
export function jpegSize(file: string): { width: number; height: number } | undefined {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(Math.min(fs.fstatSync(fd).size, 1 << 20));
    fs.readSync(fd, buf, 0, buf.length, 0);
    if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return undefined;
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) return undefined;
      const marker = buf[i + 1]!;
      if (marker === 0xff) {
        i++;
        continue;
      }
      const len = buf.readUInt16BE(i + 2);
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function headerSize(file: string): { width: number; height: number } | undefined {
  try {
    return pngSize(file) ?? jpegSize(file);
  } catch {
    return undefined;
  }
}

async function probeOne(file: string, what: string, tools: Tools, signal: AbortSignal): Promise<ProbeResult> {
  let p: ProbeResult;
  try {
    p = await probe(file, { tools, signal });
  } catch (e) {
    const err = toExportError(e, `reading ${describeFile(what, file)}`);
    if (err.aborted) throw err;
    throw new ExportError("ENCODING_FAILED", err.message.replace(/ failed: ffprobe exited with code \d+/, " failed: not a readable image or video"), { cause: e });
  }
  if (!p.width || !p.height) throw new ExportError("ENCODING_FAILED", `${describeFile(what, file)} is not a readable picture (no video stream with a size)`);
  return p;
}

/**
 * Sizes of the images (headers; ffprobe for other formats) and facts of the videos (ffprobe).
 * Returns the images' sizes at once and the videos' facts as a promise, so the stills run can start.
 */
export async function learnInputs(
  plan: RenderPlan,
  tools: Tools,
  signal: AbortSignal,
): Promise<{ images: Map<string, InputInfo>; videos: Promise<Map<string, InputInfo>> }> {
  const images = new Map<string, InputInfo>();
  const videoFiles: Array<[string, string]> = [];
  const probes: Array<Promise<void>> = [];
  for (const [file, use] of inputFiles(plan)) {
    if (use.video) {
      videoFiles.push([file, use.what]);
      continue;
    }
    const size = headerSize(file);
    if (size) images.set(file, size);
    else probes.push(probeOne(file, use.what, tools, signal).then((p) => void images.set(file, { width: p.width, height: p.height })));
  }
  await Promise.all(probes);
  const videos = Promise.all(
    videoFiles.map(async ([file, what]) => {
      const p = await probeOne(file, what, tools, signal);
      return [file, { width: p.width, height: p.height, durationSeconds: p.durationSeconds }] as const;
    }),
  ).then((entries) => new Map<string, InputInfo>(entries));
  return { images, videos };
}

function stamp(file: string): [string, number, number] {
  const st = fs.statSync(file);
  return [path.resolve(file), st.size, Math.round(st.mtimeMs)];
}

/**
 * Draws the still jobs that are not cached yet in one ffmpeg run. Returns the raw frame file of every
 * job, by key. With a cacheDir the frames live there; without, in workDir.
 */
export async function drawStills(
  jobs: StillJob[],
  plan: RenderPlan,
  tools: Tools,
  o: { workDir: string; cacheDir?: string; signal: AbortSignal },
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const todo: Array<{ job: StillJob; file: string }> = [];
  jobs.forEach((job, k) => {
    const name = o.cacheDir
      ? `still-${sha256(JSON.stringify([STILL_VERSION, tools.ffmpegVersion, tools.ffmpeg, job.key, job.w, job.h, job.fmt, job.chain, job.sources.map(stamp)]))}.raw`
      : `still-${k}.raw`;
    const file = path.join(o.cacheDir ?? o.workDir, name);
    files.set(job.key, file);
    if (!(o.cacheDir && fs.existsSync(file))) todo.push({ job, file });
  });
  if (todo.length === 0) return files;
  const run = buildStillsGraph(
    todo.map((t) => t.job),
    (file, index) => stillInputArgs(file, o.workDir, index),
  );
  fs.writeFileSync(path.join(o.workDir, "stills.graph"), run.graph);
  // Written under temp names and renamed after the run: a cache never holds a partial frame.
  const temps = todo.map((_, k) => path.join(o.workDir, `still-${k}.raw.tmp`));
  const outArgs = todo.flatMap((t, k) => ["-map", `[${run.outputs[k]}]`, "-frames:v", "1", "-c:v", "rawvideo", "-pix_fmt", t.job.fmt, "-f", "rawvideo", temps[k]!]);
  try {
    await runTool(tools.ffmpeg, [...QUIET, ...run.inputs, "-filter_complex_script", "stills.graph", ...outArgs], { signal: o.signal, cwd: o.workDir });
  } catch (e) {
    temps.forEach(removeQuietly);
    const err = toExportError(e, "drawing the stills");
    if (err.aborted) throw err;
    // Name the unreadable picture when there is one.
    const bad = await firstUnreadable(
      todo.flatMap((t) => t.job.sources),
      plan,
      tools,
      o.signal,
    );
    throw bad ?? err;
  }
  todo.forEach((t, k) => {
    const expected = t.job.w * t.job.h * (t.job.fmt === "yuva420p" ? 2.5 : 1.5);
    const size = fs.statSync(temps[k]!).size;
    if (size !== expected) throw new ExportError("ENCODING_FAILED", `drawing the stills failed: ${t.job.key.split("|")[0]} frame is ${size} bytes, expected ${expected}`);
    fs.renameSync(temps[k]!, t.file);
  });
  return files;
}

async function firstUnreadable(sources: string[], plan: RenderPlan, tools: Tools, signal: AbortSignal): Promise<ExportError | undefined> {
  const uses = inputFiles(plan);
  for (const file of new Set(sources)) {
    try {
      await probeOne(file, uses.get(file)?.what ?? "input", tools, signal);
    } catch (e) {
      if (e instanceof ExportError) return e;
    }
  }
  return undefined;
}
