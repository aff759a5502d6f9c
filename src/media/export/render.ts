/**
 * renderExport: a RenderSpec (a video timeline with absolute paths) → one verified H.264/AAC MP4.
 *
 *   render-audio  the soundtrack (voice on the 48 kHz grid, music looped and ducked, amix, measured
 *                 and brought to −16 LUFS under a limiter, AAC: audio.ts) in its own ffmpeg runs,
 *                 ALONGSIDE everything below: it needs nothing from the picture, and the render
 *                 leaves part of the second core idle; subtitles (ASS).
 *   avatar        learn the inputs once (image sizes from their headers, videos probed) and draw
 *                 every still picture at its layout box once, as raw frames (inputs.ts, graph.ts).
 *   render        ONE ffmpeg run with the whole graph (graph.ts; long timelines: one run per chunk
 *                 that fits a memory budget), progress from `-progress pipe:1`, a watchdog for runs
 *                 that stop making progress; the thumbnail (when asked) is a second output of the
 *                 run that holds its frame; then a stream-copy mux of picture + soundtrack with
 *                 faststart, an ffprobe check (exact size and frame count, duration within one frame,
 *                 h264 + aac) and a rename.
 *
 * Everything is written under temp names next to the output and renamed only after the check. On
 * abort or failure every ffmpeg of the job is killed with its process group (run.ts spawns them
 * detached), temp files are removed, and an ExportError with one of the spec's codes is thrown.
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { readEnv } from "../../config/env.js";
import { removeQuietly, tempPathFor } from "../atomic.js";
import { canDrawText, drawText } from "../card.js";
import { num } from "../filtergraph.js";
import { THUMBNAIL_JPEG_ARGS } from "../image.js";
import { mp4Info } from "../mp4-info.js";
import { probe, type ProbeResult } from "../probe.js";
import { runTool } from "../run.js";
import { getTools, type Tools } from "../tools.js";
import { buildAudioJob, renderAudio } from "./audio.js";
import { exportCaps, type ExportCaps } from "./caps.js";
import { actionLabel } from "./draft.js";
import { ExportError, toExportError } from "./errors.js";
import { planChunks, planVisuals, stillJobs, type Chunk, type GraphOptions, type VideoGraph } from "./graph.js";
import { buildVideoGraph } from "./video-graph.js";
import { drawStills, learnInputs } from "./inputs.js";
import { describeFile, planSpec, type RenderPlan, type RenderSpec } from "./spec.js";
import { buildAss, planCues } from "./subtitles.js";

export type ExportStep = "render-audio" | "avatar" | "render";

export interface RenderExportOptions {
  outPath: string;
  signal?: AbortSignal;
  /** Step and overall percent (0..100, never decreasing); 100 only after the output is verified. */
  onProgress?: (step: ExportStep, percent: number) => void;
  tools?: Tools;
  /** Where soundtracks and drawn stills are cached (by hash); none: made every time. */
  cacheDir?: string;
  /** false: fades through black even where ffmpeg has xfade (the path of ffmpeg builds without it). */
  xfade?: boolean;
  /**
   * Draft quality (`plan preview`): x264 `ultrafast` at constant QP 23 on one thread, videos decoded
   * without their loop filter and non-reference frames and scaled with the fastest flags
   * (video-graph.ts), the soundtrack without loudness normalisation, with AAC's fast coder at 64k.
   * Timing, layouts, subtitles and transitions are the export's; a look the cover would cut is shown
   * whole with the export's crop framed, and each sequence's `action` is labelled (draft.ts).
   */
  draft?: boolean;
  /** x264 threads (0 = x264's choice). */
  threads?: number;
  /**
   * Memory budget of one render run, in units of ~9 MB of graph at 1080×1920 (default 24, which keeps
   * the 59 s reference plan in one run). Longer timelines are rendered in several runs.
   */
  chunkBudget?: number;
  /** A render run that produces no new frame for this long is killed (ENCODING_FAILED). Default 120 s. */
  stallTimeoutMs?: number;
  /** AAC coder of the soundtrack ("twoloop" is ffmpeg's default; "fast" costs a quarter of its CPU). */
  aacCoder?: "twoloop" | "fast";
  /**
   * Also a JPEG of one frame of the output, put in place with it: drawn by the render run from the
   * frame it encodes (no second ffmpeg decoding the file back). `size` and `at` get the output's size
   * and length; the frame shown is the one at `at` seconds.
   */
  thumbnail?: ExportThumbnail;
}

export interface ExportThumbnail {
  out: string;
  size: (width: number, height: number) => { width: number; height: number };
  at: (seconds: number) => number;
}

/** The thumbnail as the render run that holds its frame draws it. */
interface ThumbnailRun {
  /** The frame's index in the chunk's output. */
  frame: number;
  width: number;
  height: number;
  /** In the work dir; renamed to `out` beside the output. */
  file: string;
  out: string;
}

export interface RenderExportResult {
  path: string;
  durationMs: number;
  width: number;
  height: number;
  frames: number;
  ffmpegVersion: string;
  usedXfade: boolean;
  /** ffmpeg render runs (1 unless the timeline was long enough to be split). */
  runs: number;
  /** Non-fatal: sizes above 4096, subtitles that could not be burned, and the like. */
  warnings: string[];
  /** Milliseconds: audio (concurrent with the rest), avatar (inputs + stills), render, mux, check, total. */
  timings: { audio: number; avatar: number; render: number; mux: number; check: number; total: number };
}

const QUIET = ["-hide_banner", "-nostdin", "-y", "-nostats", "-loglevel", "error"];
const BT709 = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"];
/**
 * A draft's render filters on one thread (and encodes on one, encodeArgs): a draft's frames are
 * small, and handing them between threads cost more than the work shared (about a tenth of the
 * preview render's CPU, measured on the reference plan). The soundtrack runs meanwhile on the other
 * core, and the preview still takes a tenth of the video's length. Full exports keep every thread.
 */
const DRAFT_ONE_THREAD = ["-filter_complex_threads", "1"];
/** Overall percent at which each step starts; render runs from 10 to 96, mux and check after. */
const STEP_START: Record<ExportStep, number> = { "render-audio": 0, avatar: 5, render: 10 };
const RENDER_END = 96;

/** Copies the bundled font (regular and bold) into a private dir for libass's `fontsdir`. */
function fontsDir(tools: Tools, workDir: string): string | undefined {
  if (!tools.fontFile) return undefined;
  const dir = path.join(workDir, "fonts");
  fs.mkdirSync(dir, { recursive: true });
  const regular = tools.fontFile;
  const bold = path.join(path.dirname(regular), path.basename(regular).replace(/\.ttf$/i, "-Bold.ttf"));
  for (const f of [regular, bold]) {
    if (fs.existsSync(f)) fs.copyFileSync(f, path.join(dir, path.basename(f)));
  }
  return "fonts";
}

function checkOutput(p: ProbeResult, plan: RenderPlan): string[] {
  const problems: string[] = [];
  if (p.streams !== 2) problems.push(`${p.streams} streams, expected 2`);
  if (p.videoCodec !== "h264") problems.push(`video codec ${p.videoCodec ?? "none"}, expected h264`);
  if (p.audioCodec !== "aac") problems.push(`audio codec ${p.audioCodec ?? "none"}, expected aac`);
  if (p.width !== plan.W || p.height !== plan.H) problems.push(`size ${p.width}x${p.height}, expected ${plan.W}x${plan.H}`);
  if (p.videoFrames !== undefined && p.videoFrames !== plan.frames) problems.push(`${p.videoFrames} frames, expected ${plan.frames}`);
  if (Math.abs(p.durationSeconds - plan.seconds) > 1 / plan.fps + 1e-6) problems.push(`duration ${p.durationSeconds} s, expected ${num(plan.seconds)} s`);
  return problems;
}

/** What one export job shares between its steps: its abort, its tools in flight, its first failure, its progress. */
class ExportJob {
  readonly t0 = performance.now();
  readonly timings = { audio: 0, avatar: 0, render: 0, mux: 0, check: 0, total: 0 };
  /** One controller for the job: the caller's abort and our own first failure both end every tool. */
  readonly ac = new AbortController();
  readonly pending: Promise<unknown>[] = [];
  /** The first real failure: when one tool fails the others are aborted, and their aborts are not news. */
  failure: { e: unknown; step: string } | undefined;
  step = "preparing the export";
  workDir: string | undefined;
  tmpOut: string | undefined;
  private last = -1;
  private readonly onAbort = (): void => this.ac.abort();

  constructor(readonly o: RenderExportOptions) {
    if (o.signal?.aborted) throw new ExportError("EXPORT_FAILED", "export cancelled", { aborted: true });
    o.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  progress(step: ExportStep, pct: number): void {
    const v = Math.max(this.last, Math.min(100, Math.floor(pct)));
    if (v === this.last && pct !== 100) return;
    this.last = v;
    this.o.onProgress?.(step, v);
  }

  cancelled(): void {
    if (this.ac.signal.aborted) throw new ExportError("EXPORT_FAILED", "export cancelled", { aborted: true });
  }

  fail(e: unknown, step: string): void {
    if (!this.ac.signal.aborted) this.failure ??= { e, step };
    this.ac.abort();
  }

  /** After a failure: every tool of the job has exited before the error is made. */
  async error(e: unknown): Promise<ExportError> {
    this.ac.abort();
    await Promise.allSettled(this.pending);
    if (this.o.signal?.aborted) return new ExportError("EXPORT_FAILED", "export cancelled", { aborted: true, cause: e });
    this.failure ??= { e, step: this.step };
    return toExportError(this.failure.e, this.failure.step);
  }

  cleanUp(): void {
    this.o.signal?.removeEventListener("abort", this.onAbort);
    if (this.workDir) {
      if (readEnv("MEDIAGEN_MEDIA_KEEP")) process.stderr.write(`[media] kept export work dir ${this.workDir}\n`);
      else removeQuietly(this.workDir);
    }
    if (this.tmpOut) removeQuietly(this.tmpOut);
  }
}

function makeWorkDir(job: ExportJob): string {
  job.step = "preparing the output directory";
  try {
    job.workDir = tempPathFor(job.o.outPath);
    fs.mkdirSync(job.workDir);
    return job.workDir;
  } catch (e) {
    throw new ExportError("STORAGE_FAILED", `cannot create the output directory for ${path.basename(job.o.outPath)}: ${(e as NodeJS.ErrnoException).code ?? e}`, {
      cause: e,
    });
  }
}

/** render-audio: the mix starts now and runs while the video renders; a failure stops the render at once. */
function startAudio(job: ExportJob, plan: RenderPlan, tools: Tools, caps: ExportCaps, wd: string) {
  job.progress("render-audio", STEP_START["render-audio"]);
  const audioJob = buildAudioJob(plan, tools, caps, { aacCoder: job.o.draft ? "fast" : job.o.aacCoder, draft: job.o.draft === true });
  const ta = performance.now();
  const audioP = renderAudio(audioJob, tools, { workDir: wd, cacheDir: job.o.cacheDir, signal: job.ac.signal }).then((r) => {
    job.timings.audio = performance.now() - ta;
    return r;
  });
  audioP.catch((e: unknown) => job.fail(e, "mixing the audio"));
  job.pending.push(audioP);
  return audioP;
}

/** The ASS file and its fonts, when subtitles are on and this ffmpeg can burn them. */
function writeSubtitles(plan: RenderPlan, tools: Tools, caps: ExportCaps, wd: string, warnings: string[]): GraphOptions["subtitles"] {
  if (!plan.options.subtitles) return undefined;
  if (!caps.libass) {
    warnings.push("this ffmpeg has no libass: subtitles are not burned in");
    return undefined;
  }
  const cues = planCues(plan);
  fs.writeFileSync(path.join(wd, "subs.ass"), buildAss(plan, cues));
  const fonts = fontsDir(tools, wd);
  if (!fonts) warnings.push("no font file found: subtitles use libass's default font");
  // The times as written (centiseconds), so a still's repeated frames are burned once per cue. Not
  // on ffmpeg before 5.1 (the npm 4.1): its fps ended the refilled run a frame short.
  const cueMs = cues.flatMap((c) => [c.startMs, c.endMs].map((ms) => Math.round(ms / 10) * 10));
  return { file: "subs.ass", fontsDir: fonts, ...(caps.timing[0] === "-fps_mode" ? { cueMs } : {}) };
}

/** avatar: learn the inputs, draw every still once (videos are probed meanwhile). */
async function prepareVisuals(job: ExportJob, plan: RenderPlan, tools: Tools, wd: string) {
  job.step = "reading the inputs";
  job.progress("avatar", STEP_START.avatar);
  const tp = performance.now();
  const { images, videos } = await learnInputs(plan, tools, job.ac.signal);
  videos.catch(() => undefined); // awaited below; a failure there must not go unobserved meanwhile
  const visuals = planVisuals(plan, images, { draft: job.o.draft === true });
  job.step = "drawing the stills";
  const stillFiles = await drawStills(stillJobs(visuals), plan, tools, { workDir: wd, cacheDir: job.o.cacheDir, signal: job.ac.signal });
  job.step = "reading the inputs";
  const info = new Map([...images, ...(await videos)]);
  job.timings.avatar = performance.now() - tp;
  job.cancelled();
  return { visuals, stillFiles, info };
}

/** Drafts: each sequence's action as a label (draft.ts), as a drawtext filter by sequence index. */
function actionLabels(plan: RenderPlan, tools: Tools, wd: string, draft: boolean, warnings: string[]): Map<number, string> | undefined {
  const wanted = draft ? plan.sequences.filter((p) => p.seq.action) : [];
  if (wanted.length === 0) return undefined;
  if (!canDrawText(tools)) {
    warnings.push("this ffmpeg cannot draw text: the sequences' actions are not shown");
    return undefined;
  }
  const labels = new Map<number, string>();
  for (const p of wanted) {
    const l = actionLabel(p.seq.action!, plan.W, plan.H);
    if (l) labels.set(p.index, drawText(tools, wd, { text: l.text, size: l.fontSize, x: l.x, y: l.y, boxPad: l.pad }));
  }
  return labels;
}

/** The encoder's arguments of one render run. */
function encodeArgs(job: ExportJob, plan: RenderPlan, caps: ExportCaps, chunk: Chunk, videoFile: string, label: string): string[] {
  const postTiming = caps.timing[0] === "-vsync" ? [] : caps.timing;
  return [
    "-map",
    `[${label}]`,
    "-an",
    "-c:v",
    "libx264",
    "-preset",
    job.o.draft ? "ultrafast" : "veryfast",
    // A draft at constant QP: under CRF x264 keeps a half-size copy of every frame to rate it,
    // which ultrafast needs for nothing else (a sixth of the preview's CPU); QP 23 looks the same
    // there (SSIM against the export 0.987, CRF 23's 0.988) in a smaller file.
    job.o.draft ? "-qp" : "-crf",
    "23",
    // A draft encodes on one thread (see DRAFT_ONE_THREAD).
    ...(job.o.threads ? ["-threads", String(job.o.threads)] : job.o.draft ? ["-threads", "1"] : []),
    // Slice threads: the same preset and CRF for ~7 % less CPU than frame threads on this kind of
    // video (both cores still busy, measured on the reference plan), and the same file every run.
    "-x264-params",
    "sliced-threads=1",
    "-pix_fmt",
    "yuv420p",
    // The encoder's time base is the frame grid; passthrough timing never dups or drops a frame,
    // so a graph that loses one fails the frame-count check instead of being papered over.
    "-r",
    String(plan.fps),
    ...postTiming,
    ...BT709,
    "-frames:v",
    String(chunk.frames),
    "-t",
    num(chunk.frames / plan.fps),
    // Whole-frame timestamps: chunks joined by the concat demuxer then line up exactly (the
    // default timescale left a third of a millisecond at each join).
    "-video_track_timescale",
    String(plan.fps),
    "-f",
    "mp4",
    videoFile,
  ];
}

/**
 * The thumbnail as a second output of the run: the graph's output split, the one frame selected and
 * scaled. An MP4 of a single video stream is the same file with or without it (measured on 4.1 and
 * 5.1; with an audio stream beside it the interleaving varied, which is why renderVideo does not).
 */
function thumbnailOutput(graph: string, t: ThumbnailRun): { graph: string; label: string; args: string[] } {
  return {
    graph: `${graph};\n[vout]split=2[vmain][vthumbsrc];\n[vthumbsrc]select='eq(n\\,${t.frame})',scale=${t.width}:${t.height},setsar=1[vthumb]`,
    label: "vmain",
    args: ["-map", "[vthumb]", "-frames:v", "1", ...THUMBNAIL_JPEG_ARGS, `file:${t.file}`],
  };
}

/** One ffmpeg run for the picture of one chunk, with progress and a watchdog for a run that stops. */
async function renderChunk(
  job: ExportJob,
  plan: RenderPlan,
  tools: Tools,
  caps: ExportCaps,
  vg: VideoGraph,
  chunk: Chunk,
  k: number,
  wd: string,
  thumb: ThumbnailRun | undefined,
): Promise<string> {
  const graphFile = `video-${k}.graph`;
  const withThumb = thumb ? thumbnailOutput(vg.graph, thumb) : { graph: vg.graph, label: "vout", args: [] };
  fs.writeFileSync(path.join(wd, graphFile), withThumb.graph);
  const videoFile = path.join(wd, `video-${k}.mp4`);
  const preTiming = caps.timing[0] === "-vsync" ? caps.timing : [];
  const span = RENDER_END - STEP_START.render;
  let lastFrame = -1;
  let lastAdvance = performance.now();
  const args = [
    ...QUIET,
    "-progress",
    "pipe:1",
    ...preTiming,
    ...(job.o.draft ? DRAFT_ONE_THREAD : []),
    ...vg.inputs,
    "-filter_complex_script",
    graphFile,
    ...encodeArgs(job, plan, caps, chunk, videoFile, withThumb.label),
    ...withThumb.args,
  ];
  // A kept work dir (MEDIAGEN_MEDIA_KEEP) holds the run's arguments too, to re-run or profile it.
  if (readEnv("MEDIAGEN_MEDIA_KEEP")) fs.writeFileSync(path.join(wd, `video-${k}.args.json`), JSON.stringify(args));
  const renderP = runTool(tools.ffmpeg, args, {
    signal: job.ac.signal,
    cwd: wd,
    onLine: (line) => {
      const f = /^frame=(\d+)/.exec(line);
      if (f && Number(f[1]) > lastFrame) {
        lastFrame = Number(f[1]);
        lastAdvance = performance.now();
      }
      // out_time_us (5.1) or out_time_ms (4.1; microseconds despite the name); N/A early on.
      const m = /^out_time_(?:us|ms)=(\d+)/.exec(line);
      if (!m) return;
      const done = chunk.startFrame / plan.fps + Math.min(Number(m[1]) / 1e6, chunk.frames / plan.fps);
      job.progress("render", STEP_START.render + span * Math.min(1, done / plan.seconds));
    },
  });
  job.pending.push(renderP);
  // A graph that deadlocks leaves ffmpeg alive, polling its inputs, forever (seen with ffmpeg 5.1
  // when a branch lacked its closing fps): no new frame for this long ends the job.
  const stallMs = job.o.stallTimeoutMs ?? 120_000;
  const watchdog = setInterval(
    () => {
      if (performance.now() - lastAdvance < stallMs) return;
      const stuck = `ffmpeg made no progress for ${Math.round(stallMs / 1000)} s (stuck after ${chunk.startFrame + Math.max(0, lastFrame)} of ${plan.frames} frames)`;
      job.failure ??= { e: new ExportError("ENCODING_FAILED", `rendering the video failed: ${stuck}`), step: job.step };
      job.ac.abort();
    },
    Math.min(5000, Math.max(10, stallMs / 4)),
  );
  try {
    await renderP;
  } finally {
    clearInterval(watchdog);
  }
  return videoFile;
}

/** The frame of the output the thumbnail shows (the whole output's index), its size and its file. */
function thumbnailFrame(plan: RenderPlan, t: ExportThumbnail | undefined, wd: string): ThumbnailRun | undefined {
  if (!t) return undefined;
  const frame = Math.max(0, Math.min(plan.frames - 1, Math.round(t.at(plan.seconds) * plan.fps)));
  return { frame, ...t.size(plan.W, plan.H), file: path.join(wd, "thumbnail.jpg"), out: t.out };
}

/**
 * Picture and soundtrack into the output (stream copy, faststart), checked, renamed into place with
 * the thumbnail (first, so an output in place always has its thumbnail beside it).
 */
async function muxAndCheck(
  job: ExportJob,
  plan: RenderPlan,
  tools: Tools,
  videoFiles: string[],
  audioFile: string,
  wd: string,
  thumb: ThumbnailRun | undefined,
): Promise<ProbeResult> {
  job.step = "writing the output";
  const tm = performance.now();
  const tmpOut = tempPathFor(job.o.outPath);
  job.tmpOut = tmpOut;
  let videoIn = ["-i", `file:${videoFiles[0]!}`];
  if (videoFiles.length > 1) {
    fs.writeFileSync(path.join(wd, "chunks.txt"), videoFiles.map((f) => `file '${path.basename(f)}'\n`).join(""));
    videoIn = ["-f", "concat", "-safe", "0", "-i", "chunks.txt"];
  }
  const mux = [...QUIET, ...videoIn, "-i", `file:${audioFile}`, "-map", "0:v:0", "-map", "1:a:0", "-c", "copy", "-movflags", "+faststart", "-f", "mp4", tmpOut];
  await runTool(tools.ffmpeg, mux, { signal: job.ac.signal, cwd: wd });
  job.timings.mux = performance.now() - tm;
  job.progress("render", 98);

  job.step = "checking the output";
  const tc = performance.now();
  // The file we just muxed: its moov box says what ffprobe would, without starting a process.
  const p = mp4Info(tmpOut) ?? (await probe(tmpOut, { tools, signal: job.ac.signal }));
  const problems = checkOutput(p, plan);
  if (thumb && !(fs.statSync(thumb.file, { throwIfNoEntry: false })?.size ?? 0)) problems.push("no thumbnail");
  if (problems.length) throw new ExportError("ENCODING_FAILED", `the rendered file failed its checks: ${problems.join("; ")}`);
  job.timings.check = performance.now() - tc;
  job.cancelled();
  let placedThumb: string | undefined;
  try {
    if (thumb) {
      fs.renameSync(thumb.file, path.resolve(thumb.out));
      placedThumb = path.resolve(thumb.out);
    }
    fs.renameSync(tmpOut, path.resolve(job.o.outPath));
  } catch (e) {
    if (placedThumb) removeQuietly(placedThumb);
    throw new ExportError("STORAGE_FAILED", `cannot move the output into place (${(e as NodeJS.ErrnoException).code ?? e})`, { cause: e });
  }
  job.tmpOut = undefined;
  return p;
}

export async function renderExport(spec: RenderSpec, o: RenderExportOptions): Promise<RenderExportResult> {
  const job = new ExportJob(o);
  try {
    const plan = planSpec(spec);
    const tools = o.tools ?? (await getTools());
    const caps = await exportCaps(tools);
    const warnings = [...plan.warnings];
    const usedXfade = caps.xfade && o.xfade !== false;
    if (o.xfade === true && !caps.xfade) warnings.push(`this ffmpeg (${tools.ffmpegVersion}) has no xfade: transitions fade through black`);
    const wd = makeWorkDir(job);
    const audioP = startAudio(job, plan, tools, caps, wd);
    const subtitles = writeSubtitles(plan, tools, caps, wd, warnings);
    const { visuals, stillFiles, info } = await prepareVisuals(job, plan, tools, wd);
    const chunks = planChunks(plan, visuals, { xfade: usedXfade, budget: o.chunkBudget });
    const labels = actionLabels(plan, tools, wd, o.draft === true, warnings);
    for (const look of new Set(stillJobs(visuals).flatMap((j) => (j.fitted ? [j.fitted] : [])))) {
      warnings.push(
        `${describeFile("the look", look)} is another shape than its place in the frame: the draft shows it whole, the export crops it to the part framed in yellow`,
      );
    }

    job.step = "rendering the video";
    job.progress("render", STEP_START.render);
    const tr = performance.now();
    const videoFiles: string[] = [];
    const thumb = thumbnailFrame(plan, o.thumbnail, wd);
    for (const [k, chunk] of chunks.entries()) {
      const vg = buildVideoGraph(plan, visuals, { xfade: usedXfade, subtitles, info, stillFiles, draft: o.draft === true, ...(labels ? { labels } : {}) }, chunk);
      const inChunk = thumb && thumb.frame >= chunk.startFrame && thumb.frame < chunk.startFrame + chunk.frames;
      videoFiles.push(await renderChunk(job, plan, tools, caps, vg, chunk, k, wd, inChunk ? { ...thumb, frame: thumb.frame - chunk.startFrame } : undefined));
    }
    job.timings.render = performance.now() - tr;
    job.step = "mixing the audio";
    const audio = await audioP;
    job.cancelled();
    const p = await muxAndCheck(job, plan, tools, videoFiles, audio.file, wd, thumb);
    job.timings.total = performance.now() - job.t0;
    job.progress("render", 100);
    return {
      path: path.resolve(o.outPath),
      durationMs: Math.round(p.durationSeconds * 1000),
      width: plan.W,
      height: plan.H,
      frames: plan.frames,
      ffmpegVersion: tools.ffmpegVersion,
      usedXfade,
      runs: chunks.length,
      warnings,
      timings: job.timings,
    };
  } catch (e) {
    throw await job.error(e);
  } finally {
    job.cleanUp();
  }
}
