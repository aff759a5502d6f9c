/**
 * renderVideo: an H.264/AAC MP4 of exactly the requested duration that visibly uses its inputs, plus
 * a thumbnail. Work: speak the text, then ONE ffmpeg run that draws the card (once, as a single
 * frame), builds the timeline and encodes, while a second short run of the same graph draws the
 * thumbnail; a probe then checks duration, size and streams before both outputs are renamed into place.
 *
 * Portable across Debian's ffmpeg 5.1 and the 2018 static 4.1: no xfade (dissolves are an alpha
 * fade overlaid only inside the transition window), stills enter once and repeat via `loop`.
 */
import fs from "node:fs";
import path from "node:path";
import { removeQuietly, tempPathFor, withWorkDir } from "./atomic.js";
import { bandGraph, canDrawText, cardGraph, stillInputArgs } from "./card.js";
import { MediaInputError, RenderError } from "./errors.js";
import { even, num } from "./filtergraph.js";
import { BITEXACT, QUIET } from "./image.js";
import { checkFile, checkOut, checkSize } from "./inputs.js";
import { DECODE_LIMIT_ARGS } from "./image-header.js";
import { cardLayout } from "./layout.js";
import { mp4Info } from "./mp4-info.js";
import { probe } from "./probe.js";
import { runTool } from "./run.js";
import { getTools, type Tools } from "./tools.js";
import { synthesize, speechText, DEFAULT_VOICE } from "./tts.js";

export type VideoMode = "generate" | "first-last" | "extend" | "motion" | "edit" | "upscale";

export interface RenderVideoOptions {
  out: string;
  /** PNG when it ends in .png, else JPEG. Optional (beyond the brief): omitted → no thumbnail. */
  thumbnailOut?: string;
  width: number;
  height: number;
  durationSeconds: number;
  /** Default 24. */
  fps?: number;
  prompt: string;
  label?: string;
  audio: boolean;
  speechText?: string;
  voice?: string;
  startImage?: string;
  endImage?: string;
  references?: string[];
  sourceVideo?: string;
  motionVideo?: string;
  mode?: VideoMode;
  /** Varies the picture of one prompt (each generation its own); same seed, same picture. */
  seed?: string;
  /** x264 preset; `veryfast` by default, `ultrafast` for cheap previews. */
  preset?: "ultrafast" | "superfast" | "veryfast" | "faster" | "fast" | "medium";
  /** Where synthesised speech is cached (see synthesize). */
  cacheDir?: string;
  /** 0..1 as ffmpeg encodes. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  tools?: Tools;
}

export interface RenderVideoResult {
  durationSeconds: number;
  width: number;
  height: number;
  hasAudio: boolean;
  /** Frames encoded (round(durationSeconds × fps)); width/height above are the even-rounded sizes used. */
  frames: number;
  fps: number;
  textDrawn: boolean;
}

export const DEFAULT_FPS = 24;
export const MAX_DURATION_SECONDS = 600;
const AUDIO_RATE = 48000;
/** espeak speaks ~15 characters per second at its default rate; more text than this cannot fit. */
const SPEECH_CHARS_PER_SECOND = 30;

export function resolveMode(o: Pick<RenderVideoOptions, "mode" | "sourceVideo" | "motionVideo" | "startImage" | "endImage">): VideoMode {
  if (o.mode) return o.mode;
  if (o.motionVideo) return "motion";
  if (o.sourceVideo) return "edit";
  if (o.startImage && o.endImage) return "first-last";
  return "generate";
}

/**
 * One-frame conversion to the output's BT.709 yuv420p. Through RGB because swscale converts the
 * matrix only on RGB<->YUV; it runs before `loop`, so once per still, not per frame.
 */
const TO_BT709 = "format=rgb24,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p";

/** Cuts speech to what can be said in `seconds`, at a word boundary. */
export function fitSpeech(text: string, seconds: number): string {
  const clean = speechText(text);
  const max = Math.ceil(seconds * SPEECH_CHARS_PER_SECOND) + 20;
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max);
  const sp = cut.lastIndexOf(" ");
  return sp > max / 2 ? cut.slice(0, sp) : cut;
}

interface Ctx {
  W: number;
  H: number;
  F: number;
  N: number;
  T: number;
  inputs: string[];
  nextInput: number;
  graph: string[];
  seq: number;
}

function label(ctx: Ctx, base: string): string {
  return `${base}${++ctx.seq}`;
}

function addInput(ctx: Ctx, args: string[]): number {
  ctx.inputs.push(...args);
  return ctx.nextInput++;
}

/** A still (first frame of an image or video) scaled to cover W×H, converted once, as `[label]`. */
function prepStill(ctx: Ctx, file: string, workDir: string, o: { pad?: { w: number; h: number } } = {}): string {
  const idx = addInput(ctx, stillInputArgs(file, workDir, ctx.nextInput));
  const w = ctx.W + (o.pad?.w ?? 0);
  const h = ctx.H + (o.pad?.h ?? 0);
  const out = label(ctx, "still");
  ctx.graph.push(
    `[${idx}:v]trim=end_frame=1,setpts=PTS-STARTPTS,` + `scale=w=${w}:h=${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1,${TO_BT709}[${out}]`,
  );
  return out;
}

/** Repeats a one-frame stream `frames` times on the output frame grid. */
function loopChain(ctx: Ctx, frames: number): string {
  return `loop=loop=${Math.max(0, frames - 1)}:size=1:start=0,settb=1/${ctx.F},setpts=N`;
}

/** A slow diagonal pan across a still prepared `pad` larger than the frame (cheap Ken Burns). */
function panChain(ctx: Ctx, frames: number, pad: { w: number; h: number }): string {
  const d = Math.max(1, frames - 1);
  return `crop=${ctx.W}:${ctx.H}:x='${pad.w}*n/${d}':y='${pad.h}*n/${d}'`;
}

/** Video frames scaled to fit W×H (letterboxed), on the frame grid, frozen on the last frame to `frames`. */
function prepVideo(ctx: Ctx, file: string, frames: number, o: { loop?: boolean; box?: { w: number; h: number }; flags?: string } = {}): string {
  const args = [...DECODE_LIMIT_ARGS, ...(o.loop ? ["-stream_loop", "-1"] : []), "-i", `file:${path.resolve(file)}`];
  const idx = addInput(ctx, args);
  const w = o.box?.w ?? ctx.W;
  const h = o.box?.h ?? ctx.H;
  const out = label(ctx, "vid");
  ctx.graph.push(
    `[${idx}:v]setpts=PTS-STARTPTS,fps=${ctx.F},` +
      `scale=w=${w}:h=${h}:force_original_aspect_ratio=decrease${o.flags ? `:flags=${o.flags}` : ""},` +
      `pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=black,setsar=1,` +
      `scale=out_color_matrix=bt709:out_range=tv,format=yuv420p,` +
      `tpad=stop_mode=clone:stop_duration=${num(frames / ctx.F + 1)},trim=end_frame=${frames},settb=1/${ctx.F},setpts=N[${out}]`,
  );
  return out;
}

/**
 * A then B with a dissolve of `win` frames between them: A for `aFrames`, the window (B fading in
 * over A through an alpha fade, the only frames that pay for blending), then B. Total aFrames+win+bFrames.
 */
function dissolve(ctx: Ctx, a: { still: string; pan?: { w: number; h: number } }, b: string, aFrames: number, win: number, bFrames: number): string {
  const aLen = aFrames + win;
  const [a1, a2, b1, b2, s1, s2, s3, fadeIn] = ["a1", "a2", "b1", "b2", "s1", "s2", "s3", "fi"].map((x) => label(ctx, x));
  const aChain = `[${a.still}]${loopChain(ctx, aLen)}${a.pan ? `,${panChain(ctx, aLen, a.pan)}` : ""}`;
  if (win <= 0) {
    ctx.graph.push(`${aChain}[${s1}]`, `[${b}]${loopChain(ctx, bFrames)}[${s3}]`);
    const out = label(ctx, "seq");
    ctx.graph.push(`[${s1}][${s3}]concat=n=2:v=1:a=0,settb=1/${ctx.F},setpts=N[${out}]`);
    return out;
  }
  ctx.graph.push(
    `${aChain},split[${a1}][${a2}]`,
    `[${a1}]trim=end_frame=${aFrames}[${s1}]`,
    `[${b}]split[${b1}][${b2}]`,
    `[${b1}]format=yuva420p,${loopChain(ctx, win)},fade=t=in:st=0:d=${num(win / ctx.F)}:alpha=1[${fadeIn}]`,
    `[${a2}]trim=start_frame=${aFrames},setpts=N[${s2}pre]`,
    `[${s2}pre][${fadeIn}]overlay=format=yuv420:eof_action=pass[${s2}]`,
    `[${b2}]${loopChain(ctx, bFrames)}[${s3}]`,
  );
  const out = label(ctx, "seq");
  ctx.graph.push(`[${s1}][${s2}][${s3}]concat=n=3:v=1:a=0,settb=1/${ctx.F},setpts=N[${out}]`);
  return out;
}

function overlayAt(ctx: Ctx, main: string, top: string, x: string, y: string, extra = ""): string {
  const out = label(ctx, "ov");
  ctx.graph.push(`[${main}][${top}]overlay=x=${x}:y=${y}:format=yuv420${extra}[${out}]`);
  return out;
}

/** A still layer (caption strip) repeated over the whole video. */
function loopedLayer(ctx: Ctx, still: string): string {
  const out = label(ctx, "layer");
  ctx.graph.push(`[${still}]scale=out_color_matrix=bt709:out_range=tv,format=yuv420p,${loopChain(ctx, ctx.N)}[${out}]`);
  return out;
}

function modeCaption(mode: VideoMode, o: RenderVideoOptions, W: number, H: number): string {
  const p = speechText(o.prompt);
  switch (mode) {
    case "edit":
      return `edit · ${p}`;
    case "extend":
      return `continuation · ${p}`;
    case "motion":
      return `motion transfer · ${p}`;
    case "upscale":
      return `upscaled to ${W}×${H}${p ? ` · ${p}` : ""}`;
    default:
      return p;
  }
}

function checkVideoOptions(o: RenderVideoOptions, mode: VideoMode): void {
  checkOut(o.out, "out");
  if (o.thumbnailOut !== undefined) checkOut(o.thumbnailOut, "thumbnailOut");
  checkSize(o.width, o.height);
  if (!Number.isFinite(o.durationSeconds) || o.durationSeconds <= 0 || o.durationSeconds > MAX_DURATION_SECONDS) {
    throw new MediaInputError(`durationSeconds must be in (0, ${MAX_DURATION_SECONDS}] (got ${o.durationSeconds})`, "durationSeconds");
  }
  const fps = o.fps ?? DEFAULT_FPS;
  if (!Number.isFinite(fps) || fps < 1 || fps > 120) throw new MediaInputError(`fps must be in [1, 120] (got ${fps})`, "fps");
  const modes: VideoMode[] = ["generate", "first-last", "extend", "motion", "edit", "upscale"];
  if (!modes.includes(mode)) throw new MediaInputError(`unknown mode: ${String(mode)}`, "mode");
  if ((mode === "edit" || mode === "extend" || mode === "upscale") && !o.sourceVideo) {
    throw new MediaInputError(`mode ${mode} needs sourceVideo`, "sourceVideo");
  }
  if (mode === "motion" && !o.motionVideo) throw new MediaInputError("mode motion needs motionVideo", "motionVideo");
  if (mode === "first-last" && !o.startImage) throw new MediaInputError("mode first-last needs startImage", "startImage");
  checkFile(o.startImage, "startImage");
  checkFile(o.endImage, "endImage");
  checkFile(o.sourceVideo, "sourceVideo");
  checkFile(o.motionVideo, "motionVideo");
  for (const [i, r] of (o.references ?? []).entries()) checkFile(r, `references[${i}]`);
}

function ffmpegMajor(version: string): number | undefined {
  const m = /^n?(\d+)\.(\d+)/.exec(version);
  return m ? Number(m[1]) : undefined;
}

/** One renderVideo call: its options, sizes, graph under construction and work dir. */
interface VideoJob {
  o: RenderVideoOptions;
  mode: VideoMode;
  tools: Tools;
  ctx: Ctx;
  refs: string[];
  workDir: string;
  layout: ReturnType<typeof cardLayout>;
  bandH: number;
  barH: number;
  speech: string;
  speechWav: string;
  sourceDuration: number;
}

/** Speech (when asked) and, to extend a video, the source's length: both before the graph. */
async function prepare(o: RenderVideoOptions, mode: VideoMode, tools: Tools, ctx: Ctx, workDir: string): Promise<VideoJob> {
  const { W, H, T } = ctx;
  const speechWav = path.join(workDir, "speech.wav");
  const speech = o.audio ? fitSpeech(o.speechText ?? o.prompt ?? "", T) : "";
  const modeLabel = `${o.label ?? "mediagen local"} · ${mode} · ${num(Math.round(T * 100) / 100)} s · ${W}×${H}`;
  const [, sourceDuration] = await Promise.all([
    speech ? synthesize({ text: speech, out: speechWav, voice: o.voice ?? DEFAULT_VOICE, cacheDir: o.cacheDir, signal: o.signal, tools }) : undefined,
    mode === "extend" ? probe(o.sourceVideo!, { tools, signal: o.signal }).then((p) => p.durationSeconds) : 0,
  ]);
  const refs = o.references ?? [];
  const layout = cardLayout({ width: W, height: H, prompt: o.prompt ?? "", label: modeLabel, tiles: refs.length, ...(o.seed ? { seed: o.seed } : {}) });
  const bandH = Math.max(12, even(Math.round(Math.min(W, H) * 0.09)));
  const barH = Math.max(2, even(Math.round(H / 90)));
  return { o, mode, tools, ctx, refs, workDir, layout, bandH, barH, speech, speechWav, sourceDuration };
}

/** The title card, drawn once, as BT.709 yuv420p. */
function cardIn(job: VideoJob): string {
  const { ctx } = job;
  const drawn = label(ctx, "card");
  const part = cardGraph(job.tools, job.layout, job.refs, job.workDir, ctx.nextInput, drawn);
  ctx.inputs.push(...part.inputArgs);
  ctx.nextInput += part.inputArgs.filter((a) => a === "-i").length;
  const out = label(ctx, "cardv");
  // The card is drawn with BT.601 colour maths (drawbox/drawtext on YUV): RGB in between.
  ctx.graph.push(part.graph, `[${drawn}]scale=in_color_matrix=bt601:in_range=tv,${TO_BT709}[${out}]`);
  return out;
}

/** The caption strip naming the mode, over the whole video. */
function band(job: VideoJob): string {
  const { ctx } = job;
  const src = label(ctx, "bandsrc");
  const part = bandGraph(
    job.tools,
    { width: ctx.W, height: job.bandH, text: modeCaption(job.mode, job.o, ctx.W, ctx.H), color: job.layout.tileFrame, accent: job.layout.accent },
    job.workDir,
    src,
  );
  ctx.graph.push(part.graph);
  return loopedLayer(ctx, src);
}

/** generate and first-last: stills and the card, dissolving into each other. */
function stillTimeline(job: VideoJob): string {
  const { ctx, o, refs, workDir } = job;
  const { W, H, F, N } = ctx;
  if (job.mode === "generate") {
    const opening = o.startImage ?? refs[0];
    if (!opening || N < 3) {
      const main = label(ctx, "seq");
      ctx.graph.push(`[${cardIn(job)}]${loopChain(ctx, N)}[${main}]`);
      return main;
    }
    const pad = { w: even(Math.round(W * 0.08)), h: even(Math.round(H * 0.08)) };
    const aFrames = Math.round(N * 0.4);
    const win = Math.min(Math.round(F * 0.6), Math.round(N * 0.2));
    return dissolve(ctx, { still: prepStill(ctx, opening, workDir, { pad }), pan: pad }, cardIn(job), aFrames, win, N - aFrames - win);
  }
  if (N < 3) {
    const main = label(ctx, "seq");
    ctx.graph.push(`[${prepStill(ctx, o.startImage!, workDir)}]${loopChain(ctx, N)}[${main}]`);
    return main;
  }
  const third = Math.max(0, Math.round(N / 3));
  const end = o.endImage ? prepStill(ctx, o.endImage, workDir) : cardIn(job);
  return dissolve(ctx, { still: prepStill(ctx, o.startImage!, workDir) }, end, third, third, N - 2 * third);
}

/** edit, upscale, extend and motion: the source video, with the caption strip. */
function videoTimeline(job: VideoJob): string {
  const { ctx, o, workDir } = job;
  const { W, H, F, N, T } = ctx;
  const bandY = `${H - job.bandH - job.barH}`;
  switch (job.mode) {
    case "extend": {
      const srcFrames = Math.max(1, Math.min(Math.floor(job.sourceDuration * F), Math.round(N / 2)));
      const v = prepVideo(ctx, o.sourceVideo!, srcFrames);
      // The continuation holds the source's last frame and is marked by the caption strip.
      const src = label(ctx, "srcv");
      ctx.graph.push(`[${v}]tpad=stop_mode=clone:stop_duration=${num(T + 1)},trim=end_frame=${N},setpts=N[${src}]`);
      return overlayAt(ctx, src, band(job), "0", bandY, `:enable='gte(n,${srcFrames})'`);
    }
    case "motion": {
      const bg = label(ctx, "bg");
      ctx.graph.push(`[${o.startImage ? prepStill(ctx, o.startImage, workDir) : cardIn(job)}]${loopChain(ctx, N)}[${bg}]`);
      const box = { w: even(Math.round(W * 0.36)), h: even(Math.round(H * 0.36)) };
      const border = Math.max(2, even(Math.round(Math.min(W, H) * 0.008)));
      const pipRaw = prepVideo(ctx, o.motionVideo!, N, { loop: true, box });
      const pip = label(ctx, "pip");
      ctx.graph.push(`[${pipRaw}]pad=${box.w + 2 * border}:${box.h + 2 * border}:${border}:${border}:color=white[${pip}]`);
      const margin = even(Math.round(Math.min(W, H) * 0.04));
      const withPip = overlayAt(ctx, bg, pip, `${W - box.w - 2 * border - margin}`, `${margin}`);
      return overlayAt(ctx, withPip, band(job), "0", bandY);
    }
    default: {
      // edit, upscale
      const v = prepVideo(ctx, o.sourceVideo!, N, { flags: job.mode === "upscale" ? "lanczos" : undefined });
      return overlayAt(ctx, v, band(job), "0", bandY);
    }
  }
}

/** A progress bar sliding in from the left (motion on every frame, and it shows where we are), to [vout]. */
function addProgressBar(job: VideoJob, main: string): void {
  const { ctx } = job;
  const { W, H, F, N } = ctx;
  const bar = label(ctx, "bar");
  ctx.graph.push(`color=c=${job.layout.accent}:s=${W}x${job.barH}:r=${F},format=yuv420p[${bar}]`);
  const withBar = overlayAt(ctx, main, bar, `'-w+w*(n+1)/${N}'`, `${H - job.barH}`, ":eval=frame:shortest=1");
  ctx.graph.push(`[${withBar}]trim=end_frame=${N},settb=1/${F},setpts=N[vout]`);
}

/** The soundtrack: the speech (or silence), mono AAC; none without audio. */
function addAudio(job: VideoJob): string[] {
  const { ctx, o } = job;
  if (!o.audio) return [];
  const samples = Math.round(ctx.T * AUDIO_RATE);
  if (job.speech) {
    const idx = addInput(ctx, ["-i", `file:${job.speechWav}`]);
    ctx.graph.push(`[${idx}:a]aresample=${AUDIO_RATE},aformat=sample_fmts=fltp:channel_layouts=mono,atrim=end_sample=${samples},apad=whole_len=${samples}[aout]`);
  } else {
    ctx.graph.push(`anullsrc=r=${AUDIO_RATE}:cl=mono,atrim=end_sample=${samples}[aout]`);
  }
  // The voice is mono, so the track is too. AAC runs in ffmpeg's main thread, serially with the
  // graph: the default "twoloop" coder in stereo cost as much as the whole H.264 encode of a card
  // video; "fast" in mono is about a fifth of that (measured).
  return ["-map", "[aout]", "-c:a", "aac", "-aac_coder", "fast", "-b:a", "96k", "-ar", String(AUDIO_RATE)];
}

/** The thumbnail is the first frame, drawn by a second ffmpeg running the same graph for one frame. */
async function drawThumbnail(job: VideoJob, graph: string[], inputs: string[], tmpThumb: string): Promise<void> {
  const thumbPng = /\.png$/i.test(job.o.thumbnailOut ?? "");
  const thumbScale = `scale=in_color_matrix=bt709:in_range=tv${thumbPng ? ",format=rgb24" : ":out_range=pc,format=yuvj420p"}`;
  const thumbEncode = [...BITEXACT, "-c:v", thumbPng ? "png" : "mjpeg", ...(thumbPng ? [] : ["-q:v", "3"]), "-f", "image2", "-update", "1"];
  const thumbScript = path.join(job.workDir, "thumb.graph");
  fs.writeFileSync(thumbScript, [...graph, `[vout]${thumbScale}[thumb]`].join(";\n"));
  await runTool(job.tools.ffmpeg, [...QUIET, ...inputs, "-filter_complex_script", thumbScript, "-map", "[thumb]", "-frames:v", "1", ...thumbEncode, tmpThumb], {
    signal: job.o.signal,
    cwd: job.workDir,
  });
}

/** The encode of the video: the graph script, x264 with slice threads, BT.709 tags, exact length. */
function encodeArgs(job: VideoJob, script: string, audioArgs: string[], tmpVideo: string): string[] {
  const { ctx, o } = job;
  const major = ffmpegMajor(job.tools.ffmpegVersion);
  const timing = major !== undefined && major >= 5 ? ["-fps_mode", "passthrough"] : [];
  const globalTiming = timing.length ? [] : ["-vsync", "passthrough"];
  return [
    ...QUIET,
    "-nostats",
    "-progress",
    "pipe:1",
    ...globalTiming,
    ...ctx.inputs,
    "-filter_complex_script",
    script,
    "-map",
    "[vout]",
    "-c:v",
    "libx264",
    "-preset",
    o.preset ?? "veryfast",
    "-crf",
    "23",
    // x264's frame threads make the output vary from run to run (measured); slice threads keep
    // both cores busy and the same inputs give the same file.
    "-x264-params",
    "sliced-threads=1",
    "-pix_fmt",
    "yuv420p",
    // Sets the encoder's time base to the frame grid; with passthrough timing it never dups/drops.
    "-r",
    String(ctx.F),
    "-colorspace",
    "bt709",
    "-color_primaries",
    "bt709",
    "-color_trc",
    "bt709",
    "-color_range",
    "tv",
    ...timing,
    ...audioArgs,
    "-t",
    num(ctx.T),
    "-movflags",
    "+faststart",
    ...BITEXACT,
    "-f",
    "mp4",
    tmpVideo,
  ];
}

/** The rendered file against what was asked: duration, size, codec, frames, audio, thumbnail. */
async function checkRendered(job: VideoJob, tmpVideo: string, tmpThumb: string | undefined) {
  const { ctx, o } = job;
  // Our own fresh MP4: its moov box says what ffprobe would, without starting a process.
  const p = mp4Info(tmpVideo) ?? (await probe(tmpVideo, { tools: job.tools, signal: o.signal }));
  const problems: string[] = [];
  if (Math.abs(p.durationSeconds - ctx.T) > 0.1) problems.push(`duration ${p.durationSeconds} s, expected ${ctx.T} s`);
  if (p.width !== ctx.W || p.height !== ctx.H) problems.push(`size ${p.width}x${p.height}, expected ${ctx.W}x${ctx.H}`);
  if (p.videoCodec !== "h264") problems.push(`video codec ${p.videoCodec ?? "none"}`);
  if (p.videoFrames !== undefined && p.videoFrames !== ctx.N) problems.push(`${p.videoFrames} frames, expected ${ctx.N}`);
  if (o.audio !== (p.audioCodec === "aac")) problems.push(o.audio ? "no AAC audio stream" : "unexpected audio stream");
  if (tmpThumb && (!fs.existsSync(tmpThumb) || fs.statSync(tmpThumb).size === 0)) problems.push("no thumbnail");
  if (problems.length) throw new RenderError(`rendered video failed its checks: ${problems.join("; ")}`, { tool: "ffmpeg" });
  return p;
}

/** Encodes (and draws the thumbnail alongside), checks, and renames both into place. */
async function encode(job: VideoJob): Promise<RenderVideoResult> {
  const { ctx, o } = job;
  // As a second output of the main run (via `split`) the thumbnail made the video itself differ
  // between runs of the same inputs now and then (4.1 and 5.1, measured): a run of its own instead.
  const thumbGraph = [...ctx.graph];
  const thumbInputs = [...ctx.inputs];
  const audioArgs = addAudio(job);
  const script = path.join(job.workDir, "video.graph");
  fs.writeFileSync(script, ctx.graph.join(";\n"));
  const tmpVideo = tempPathFor(o.out);
  const tmpThumb = o.thumbnailOut ? tempPathFor(o.thumbnailOut) : undefined;
  try {
    const thumbJob = tmpThumb ? drawThumbnail(job, thumbGraph, thumbInputs, tmpThumb) : undefined;
    const mainJob = runTool(job.tools.ffmpeg, encodeArgs(job, script, audioArgs, tmpVideo), {
      signal: o.signal,
      cwd: job.workDir,
      onLine: (line) => {
        const m = /^out_time_(?:us|ms)=(\d+)/.exec(line);
        if (m && o.onProgress) o.onProgress(Math.min(1, Number(m[1]) / 1e6 / ctx.T));
      },
    });
    // Settle both before going on, so no process still writes a temp file we are about to remove.
    const settled = await Promise.allSettled([mainJob, thumbJob]);
    for (const r of settled) if (r.status === "rejected") throw r.reason;
    const p = await checkRendered(job, tmpVideo, tmpThumb);
    if (tmpThumb) fs.renameSync(tmpThumb, path.resolve(o.thumbnailOut!));
    fs.renameSync(tmpVideo, path.resolve(o.out));
    o.onProgress?.(1);
    return { durationSeconds: p.durationSeconds, width: ctx.W, height: ctx.H, hasAudio: o.audio, frames: ctx.N, fps: ctx.F, textDrawn: canDrawText(job.tools) };
  } finally {
    removeQuietly(tmpVideo);
    if (tmpThumb) removeQuietly(tmpThumb);
  }
}

export async function renderVideo(o: RenderVideoOptions): Promise<RenderVideoResult> {
  const mode = resolveMode(o);
  checkVideoOptions(o, mode);
  const tools = o.tools ?? (await getTools());
  const W = even(o.width);
  const H = even(o.height);
  const F = o.fps ?? DEFAULT_FPS;
  const N = Math.max(1, Math.round(o.durationSeconds * F));
  return withWorkDir(async (workDir) => {
    const ctx: Ctx = { W, H, F, N, T: N / F, inputs: [], nextInput: 0, graph: [], seq: 0 };
    const job = await prepare(o, mode, tools, ctx, workDir);
    const main = mode === "generate" || mode === "first-last" ? stillTimeline(job) : videoTimeline(job);
    addProgressBar(job, main);
    return encode(job);
  });
}
