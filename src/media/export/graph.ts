/**
 * The export's filtergraphs. Two ffmpeg runs draw the picture:
 *
 * 1. stills (the "avatar" step): every picture that does not move — looks, image media, and whole
 *    compositions of them (half, background and hide layouts) — is decoded, converted to BT.709
 *    yuv420p and scaled to its layout box ONCE, and written as one raw frame.
 * 2. render: ONE run with the whole timeline. Raw stills enter as one frame repeated with `loop`
 *    (decoding a PNG every frame costs ~30 %; decoding and scaling it inside the render kept ~45 MB
 *    of decoder and scaler buffers alive to the end of the run); videos are decoded, cropped, scaled
 *    and stacked per frame; only the short transition windows go through `xfade`, everything else is
 *    joined with `concat`; subtitles are burned last.
 *
 * What else keeps it fast (measured against the reference render, ffmpeg 5.1, 2 cores):
 * - Videos are cropped to the box's aspect ratio BEFORE scaling: "cover" by scaling first and cropping
 *   after made swscale write 3.2× the pixels for a landscape clip in a portrait frame.
 * - A blurred background is blurred at quarter size and upscaled bilinearly: bicubic buys nothing on
 *   a blurred picture.
 * - Every branch ends with `fps`, `format=yuv420p` and a 1/fps timebase so concat and xfade accept it;
 *   no `fps` right after vstack/overlay (it dropped the last frame there).
 * - A clip is decoded once where a blurred background replays it from where an earlier branch played
 *   it (the reference plan's b-roll: a tenth of the render's CPU); its frames wait at quarter size.
 * - Subtitles are burned on a still's frame once per cue change, not on every repeat of it: libass's
 *   blend and the copy of each repeated frame it writes on were ~5 % of the render (video-graph.ts).
 */
import { num } from "../filtergraph.js";
import { lookPlacement, type LookPlacement } from "./draft.js";
import type { PlannedSequence, RenderMedia, RenderPlan } from "./spec.js";

export interface InputInfo {
  width?: number;
  height?: number;
  durationSeconds?: number;
}

/** Rounds to an even integer, at least 2 (yuv420p needs even sizes for clean chroma). */
export function even(n: number): number {
  return Math.max(2, 2 * Math.round(n / 2));
}

/** The look's background colour when a sequence has no look image. */
const NO_LOOK_COLOR = "0x14181f";

/**
 * Crop to the aspect ratio of w×h (centred), as a filter. Expressions (not probed numbers) because
 * ffmpeg sees rotated videos after autorotation, which the probe's coded size does not show.
 */
export function cropTo(w: number, h: number): string {
  const r = num(w / h);
  return `crop=w='min(iw,ih*${r})':h='min(ih,iw/${r})'`;
}

/** Fits a size into a box, keeping the aspect ratio, even sizes. */
export function fitBox(iw: number | undefined, ih: number | undefined, bw: number, bh: number): { w: number; h: number } {
  if (!iw || !ih) return { w: even(bw), h: even(bh) };
  const s = Math.min(bw / iw, bh / ih);
  let w = even(iw * s);
  let h = even(ih * s);
  if (w > bw) w -= 2;
  if (h > bh) h -= 2;
  return { w: Math.max(2, w), h: Math.max(2, h) };
}

/** Layout boxes for an output size: half splits along the long side, background fits the avatar. */
export function layoutBoxes(
  W: number,
  H: number,
): {
  half: { vertical: boolean; media: { w: number; h: number }; avatar: { w: number; h: number } };
  quarter: { w: number; h: number };
  blur: number;
  fgBox: { w: number; h: number };
} {
  const vertical = H >= W;
  const mh = vertical ? even(H / 2) : H;
  const mw = vertical ? W : even(W / 2);
  const quarter = { w: even(W / 4), h: even(H / 4) };
  const short = Math.min(quarter.w, quarter.h);
  // boxblur=8 at 270 px wide (the reference's 1080×1920 quarter), scaled with the size; its chroma
  // radius must stay under a quarter of the (half-size) chroma plane.
  const blur = Math.max(1, Math.min(Math.round(short / 34), Math.floor(short / 4) - 1));
  return {
    half: {
      vertical,
      media: { w: mw, h: mh },
      avatar: vertical ? { w: W, h: H - mh } : { w: W - mw, h: H },
    },
    quarter,
    blur,
    fgBox: { w: Math.round(W * 0.8), h: Math.round(H * 0.9) },
  };
}

// ---------------------------------------------------------------------------------------------
// Stills: what each sequence needs drawn once.

/** A picture drawn once by the stills run and read back raw by the render. */
export interface StillJob {
  /** Identifies identical jobs (same sources, layout and size): drawn once, used by every sequence. */
  key: string;
  w: number;
  h: number;
  fmt: "yuv420p" | "yuva420p";
  /** Source images, in the order `chain` consumes them. */
  sources: string[];
  /** Graph statements from `[in0]`, `[in1]`… (the sources) to `[out]`. */
  chain: string[];
  /** A draft's look shown whole where the export crops it (draft.ts): its file. */
  fitted?: string;
}

/**
 * One layer of a sequence that moves, drawn per frame by the render: a video (the media, or an
 * avatar video), an animated still (`motion`: drawn once at 1.25× its box, then zoomed and panned
 * slowly), or a still that shares the frame with one of those (drawn once at its box, repeated).
 */
export type Part = { kind: "still"; job: StillJob } | { kind: "video"; file: string; trimStart?: number } | { kind: "motion"; job: StillJob };

/**
 * What the render does for one sequence: a picture that does not move at all (`still`, composed once
 * by the stills run), or a layout whose parts are drawn per frame.
 */
export type SequenceVisual =
  | { type: "still"; frame: StillJob }
  | { type: "full"; part: Part }
  | { type: "half"; media: Part; avatar: Part }
  | { type: "background"; media: Part; fg?: Part };

/** How much larger than its box an animated still is drawn: the room its zoom and pan move in. */
export const MOTION_MARGIN = 1.25;

/** RGB → BT.709 limited-range yuv420p, covering w×h: once per still, so the conversion is free. */
function coverChain(src: string, w: number, h: number, out: string): string {
  return `[${src}]format=rgb24,${cropTo(w, h)},scale=${w}:${h}:out_color_matrix=bt709:out_range=tv,format=yuv420p,setsar=1[${out}]`;
}

function colorChain(w: number, h: number, out: string): string {
  return `color=c=${NO_LOOK_COLOR}:s=${w}x${h}:d=1,trim=end_frame=1,format=yuv420p,setsar=1[${out}]`;
}

/** The frame around the part of a fitted look the export keeps (draft.ts). */
const KEEP_COLOR = "0xffd400@0.9";

/**
 * A draft's look of another shape than its w×h box (draft.ts): fitted whole at `fit.box` over a
 * darkened blur of its cover (drawn at quarter size), the export's crop framed. `bgIn` and `fgIn` are
 * two pads of the same picture; `p` prefixes the internal labels (buildStillsGraph renames them).
 */
function fitChain(bgIn: string, fgIn: string, w: number, h: number, fit: Extract<LookPlacement, { mode: "fit" }>, p: "" | "lk", out: string): string[] {
  const q = { w: even(w / 4), h: even(h / 4) };
  const short = Math.min(q.w, q.h);
  const blur = short >= 8 ? `boxblur=${Math.max(1, Math.min(Math.round(short / 12), Math.floor(short / 4) - 1))}:2,` : "";
  const { box, keep } = fit;
  const t = Math.max(2, even(Math.min(w, h) * 0.006));
  return [
    `[${bgIn}]format=rgb24,${cropTo(q.w, q.h)},scale=${q.w}:${q.h}:out_color_matrix=bt709:out_range=tv,format=yuv420p,${blur}lutyuv=y=(val+16)/2,scale=${w}:${h}:flags=bilinear,setsar=1[${p}bg]`,
    `[${fgIn}]format=rgb24,scale=${box.w}:${box.h}:out_color_matrix=bt709:out_range=tv,format=yuv420p,setsar=1[${p}fg]`,
    `[${p}bg][${p}fg]overlay=x=${box.x}:y=${box.y}:format=yuv420,drawbox=x=${keep.x}:y=${keep.y}:w=${keep.w}:h=${keep.h}:color=${KEEP_COLOR}:t=${t},format=yuv420p,setsar=1[${out}]`,
  ];
}

/** How a look is placed in a w×h box: covered, or (drafts only) fitted when the cover would cut it. */
function placementOf(look: string, info: Map<string, InputInfo>, w: number, h: number, draft: boolean): LookPlacement {
  if (!draft) return { mode: "cover" };
  const li = info.get(look);
  return lookPlacement(li?.width, li?.height, w, h);
}

/** The look (or a plain background) covering w×h — in a draft, fitted when the cover would cut it — as one StillJob. */
function lookJob(look: string | null, w: number, h: number, info: Map<string, InputInfo>, draft: boolean): StillJob {
  if (!look) return { key: `color|${w}x${h}`, w, h, fmt: "yuv420p", sources: [], chain: [colorChain(w, h, "out")] };
  const pl = placementOf(look, info, w, h, draft);
  if (pl.mode === "fit") {
    return { key: `fit|${look}|${w}x${h}`, w, h, fmt: "yuv420p", sources: [look, look], chain: fitChain("in0", "in1", w, h, pl, "", "out"), fitted: look };
  }
  return { key: `cover|${look}|${w}x${h}`, w, h, fmt: "yuv420p", sources: [look], chain: [coverChain("in0", w, h, "out")] };
}

/** An image covering w×h (`motion`: MOTION_MARGIN larger, for its zoom and pan). */
function imageJob(file: string, w: number, h: number, motion: boolean): StillJob {
  const mw = motion ? even(w * MOTION_MARGIN) : w;
  const mh = motion ? even(h * MOTION_MARGIN) : h;
  return { key: `cover|${file}|${mw}x${mh}`, w: mw, h: mh, fmt: "yuv420p", sources: [file], chain: [coverChain("in0", mw, mh, "out")] };
}

/** The look fitted into the background layout's box, with its transparency (overlay's yuva420p). */
function fgJob(look: string, info: Map<string, InputInfo>, box: { w: number; h: number }): StillJob {
  const li = info.get(look);
  const f = fitBox(li?.width, li?.height, box.w, box.h);
  return {
    key: `fg|${look}|${f.w}x${f.h}`,
    w: f.w,
    h: f.h,
    fmt: "yuva420p",
    sources: [look],
    chain: [`[in0]format=rgba,scale=${f.w}:${f.h}:out_color_matrix=bt709:out_range=tv,format=yuva420p,setsar=1[out]`],
  };
}

/** Everything of a layout is still: composed once by the stills run. */
function composedStill(plan: RenderPlan, m: RenderMedia, look: string | null, info: Map<string, InputInfo>, draft: boolean): StillJob {
  const { W, H } = plan;
  const boxes = layoutBoxes(W, H);
  if (m.show === "full") return imageJob(m.path, W, H, false);
  if (m.show === "half") {
    const { vertical, media: mb, avatar: ab } = boxes.half;
    const pl = look ? placementOf(look, info, ab.w, ab.h, draft) : undefined;
    const lookPart = !look
      ? [colorChain(ab.w, ab.h, "lk")]
      : pl?.mode === "fit"
        ? fitChain("in1", "in2", ab.w, ab.h, pl, "lk", "lk")
        : [coverChain("in1", ab.w, ab.h, "lk")];
    return {
      key: `half${pl?.mode === "fit" ? "-fit" : ""}|${m.path}|${look ?? ""}|${W}x${H}`,
      w: W,
      h: H,
      fmt: "yuv420p",
      sources: look ? (pl?.mode === "fit" ? [m.path, look, look] : [m.path, look]) : [m.path],
      chain: [coverChain("in0", mb.w, mb.h, "md"), ...lookPart, `[md][lk]${vertical ? "vstack" : "hstack"}=inputs=2[out]`],
      ...(look && pl?.mode === "fit" ? { fitted: look } : {}),
    };
  }
  // background: blurred at quarter size, upscaled, the look fitted on top.
  const q = boxes.quarter;
  const f = look ? fgJob(look, info, boxes.fgBox) : undefined;
  const bg = `[in0]format=rgb24,${cropTo(q.w, q.h)},scale=${q.w}:${q.h}:out_color_matrix=bt709:out_range=tv,format=yuv420p,boxblur=${boxes.blur}:2,scale=${W}:${H}:flags=bilinear,setsar=1`;
  const chain = f
    ? [
        `${bg}[bg]`,
        f.chain[0]!.replace("[in0]", "[in1]").replace("[out]", "[fg]"),
        `[bg][fg]overlay=x=${(W - f.w) >> 1}:y=${(H - f.h) >> 1}:format=yuv420,format=yuv420p[out]`,
      ]
    : [`${bg}[out]`];
  return { key: `background|${m.path}|${look ?? ""}|${W}x${H}`, w: W, h: H, fmt: "yuv420p", sources: look ? [m.path, look] : [m.path], chain };
}

/** The media of a layout as a part drawn per frame at box w×h (a still one only beside a moving avatar). */
function mediaPart(m: RenderMedia, w: number, h: number): Part {
  if (m.kind === "video") return { kind: "video", file: m.path, ...(m.trim_start !== undefined ? { trimStart: m.trim_start } : {}) };
  return m.animate ? { kind: "motion", job: imageJob(m.path, w, h, true) } : { kind: "still", job: imageJob(m.path, w, h, false) };
}

function visualOf(plan: RenderPlan, p: PlannedSequence, info: Map<string, InputInfo>, draft: boolean): SequenceVisual {
  const { W, H } = plan;
  const boxes = layoutBoxes(W, H);
  const s = p.seq;
  const look = s.look_image_path;
  const m = s.media && s.media.show !== "hide" ? s.media : undefined;
  if (!m) return { type: "still", frame: lookJob(look, W, H, info, draft) };
  const avatarVideo: Part | undefined = s.look_video ? { kind: "video", file: s.look_video.path, trimStart: s.look_video.start_s } : undefined;
  const moves = m.kind === "video" || m.animate === true || (avatarVideo !== undefined && m.show !== "full");
  if (!moves) return { type: "still", frame: composedStill(plan, m, look, info, draft) };
  if (m.show === "full") return { type: "full", part: mediaPart(m, W, H) };
  if (m.show === "half") {
    const { media: mb, avatar: ab } = boxes.half;
    return { type: "half", media: mediaPart(m, mb.w, mb.h), avatar: avatarVideo ?? { kind: "still", job: lookJob(look, ab.w, ab.h, info, draft) } };
  }
  const q = boxes.quarter;
  const fg: Part | undefined = avatarVideo ?? (look ? { kind: "still", job: fgJob(look, info, boxes.fgBox) } : undefined);
  return { type: "background", media: mediaPart(m, q.w, q.h), ...(fg ? { fg } : {}) };
}

/** `draft`: looks a cover would cut are fitted whole instead (draft.ts). */
export function planVisuals(plan: RenderPlan, info: Map<string, InputInfo>, o: { draft?: boolean } = {}): SequenceVisual[] {
  return plan.sequences.map((p) => visualOf(plan, p, info, o.draft === true));
}

/** The still jobs a visual reads. */
export function jobsOf(v: SequenceVisual): StillJob[] {
  const parts: (Part | undefined)[] = v.type === "full" ? [v.part] : v.type === "half" ? [v.media, v.avatar] : v.type === "background" ? [v.media, v.fg] : [];
  if (v.type === "still") return [v.frame];
  return parts.flatMap((p) => (p && p.kind !== "video" ? [p.job] : []));
}

/** Distinct still jobs, in first-use order. */
export function stillJobs(visuals: SequenceVisual[]): StillJob[] {
  const jobs = new Map<string, StillJob>();
  for (const v of visuals) for (const j of jobsOf(v)) if (!jobs.has(j.key)) jobs.set(j.key, j);
  return [...jobs.values()];
}

export interface StillsRun {
  inputs: string[];
  graph: string;
  /** Output labels, in job order (one raw frame each). */
  outputs: string[];
}

/**
 * One ffmpeg run drawing every still job: each source image is decoded once (first frame only) and
 * split to the jobs that use it.
 */
export function buildStillsGraph(jobs: StillJob[], stillInput: (file: string, index: number) => string[]): StillsRun {
  const uses = new Map<string, number>();
  for (const j of jobs) for (const s of j.sources) uses.set(s, (uses.get(s) ?? 0) + 1);
  const inputs: string[] = [];
  const lines: string[] = [];
  const pads = new Map<string, string[]>();
  let n = 0;
  for (const [file, count] of uses) {
    inputs.push(...stillInput(file, n));
    const labels = Array.from({ length: count }, (_, k) => `s${n}_${k}`);
    // trim: an animated image contributes its first frame.
    lines.push(`[${n}:v]trim=end_frame=1,setpts=PTS-STARTPTS` + (count > 1 ? `,split=${count}` : "") + labels.map((l) => `[${l}]`).join(""));
    pads.set(file, labels);
    n++;
  }
  const outputs: string[] = [];
  jobs.forEach((j, k) => {
    const src = j.sources.map((file) => pads.get(file)!.shift()!);
    const rename = (stmt: string): string => {
      let t = stmt;
      src.forEach((label, i) => {
        t = t.split(`[in${i}]`).join(`[${label}]`);
      });
      return t.replace(/\[(md|lkbg|lkfg|lk|bg|fg|out)\]/g, (_m, l: string) => `[j${k}${l}]`);
    };
    for (const stmt of j.chain) lines.push(rename(stmt));
    outputs.push(`j${k}out`);
  });
  return { inputs, graph: lines.join(";\n") + "\n", outputs };
}

// ---------------------------------------------------------------------------------------------
// The render.

export interface GraphOptions {
  /** Crossfades through xfade; false: fades through black (ffmpeg without xfade, or forced). */
  xfade: boolean;
  /**
   * ASS file and font dir, relative to the run's cwd; omitted: no subtitles. `cueMs`: every cue's
   * start and end as the file has them (the frames between, on a still, are burned once).
   */
  subtitles?: { file: string; fontsDir?: string; cueMs?: number[] };
  /** Probed facts of the input files, by path (videos: duration, to clamp trim_start). */
  info: Map<string, InputInfo>;
  /** The raw frame file of each still job, by key. */
  stillFiles: Map<string, string>;
  /**
   * Draft (plan preview): every video is decoded without its loop filter and without its
   * non-reference frames, and scaled with swscale's fastest flags.
   */
  draft?: boolean;
  /** Drafts: a drawtext filter per sequence index, the label of its action (draft.ts), drawn over its picture. */
  labels?: Map<number, string>;
}

export interface VideoGraph {
  inputs: string[];
  graph: string;
}

/** Transition length: 0.5 s. */
export function transitionFrames(fps: number): number {
  return Math.max(1, Math.round(0.5 * fps));
}

/** Boundaries i (between sequence i-1 and i) that get a transition: both sides longer than the window. */
export function transitionsOf(plan: RenderPlan): Set<number> {
  const XF = transitionFrames(plan.fps);
  const trans = new Set<number>();
  if (plan.options.transitions) {
    for (let i = 1; i < plan.sequences.length; i++) {
      if (plan.sequences[i - 1]!.frames > XF && plan.sequences[i]!.frames > XF) trans.add(i);
    }
  }
  return trans;
}

/** A run of consecutive sequences rendered by one ffmpeg process. */
export interface Chunk {
  from: number;
  to: number;
  startFrame: number;
  frames: number;
}

/**
 * What a sequence keeps alive in one render run, in units of about 9 MB at 1080×1920: every filter
 * keeps its buffer pools and every decoder its reference frames until the run ends, so a graph's
 * memory grows with the sequences in it (12 sequences: 760 MB, 36: 1.55 GB, measured). A clip is a
 * decoder plus per-frame scaling; a still is one raw frame; an xfade window a few plane pools.
 */
function cost(v: SequenceVisual): number {
  switch (v.type) {
    case "still":
      return 1;
    case "full":
      return 4;
    default:
      return 5;
  }
}

/**
 * Splits the timeline into runs whose graphs stay within a memory budget (the 59 s reference plan —
 * six sequences, two clips, five crossfades — is one run). Longer timelines are rendered run after
 * run and the video streams joined without re-encoding; a crossfade across a cut is rendered by the
 * next run from the end of the previous sequence, recreated for its last half second.
 */
export function planChunks(plan: RenderPlan, visuals: SequenceVisual[], o: { xfade: boolean; budget?: number }): Chunk[] {
  const trans = transitionsOf(plan);
  // Smaller outputs keep smaller frames alive: more fits in a run (up to 4×).
  const scale = Math.min(4, Math.max(1, (1080 * 1920) / (plan.W * plan.H)));
  const budget = (o.budget ?? 24) * scale;
  const chunks: Chunk[] = [];
  let from = 0;
  let used = 0;
  const close = (to: number): void => {
    const start = plan.sequences[from]!.start;
    const end = to < plan.sequences.length ? plan.sequences[to]!.start : plan.frames;
    chunks.push({ from, to, startFrame: start, frames: end - start });
    from = to;
  };
  visuals.forEach((v, i) => {
    const c = cost(v) + (o.xfade && trans.has(i) ? 2 : 0);
    if (i > from && used + c > budget) {
      close(i);
      // The next run also recreates the previous sequence for its crossfade tail.
      used = o.xfade && trans.has(i) ? cost(visuals[i - 1]!) : 0;
    }
    used += c;
  });
  close(visuals.length);
  return chunks;
}

/**
 * A crossfade of two XF-frame windows (the first has one extra frame: xfade drops the first input's
 * last one). xfade has no yuv420p path, and converting both windows to yuv444p and back cost 1.3 s of
 * CPU and ~26 MB of buffer pools per transition (1080×1920); it does have gray8, and a fade is the
 * same per plane, so each plane is faded on its own and the planes are merged back: no conversion.
 */
export function crossfade(a: string, bLabel: string, out: string, XF: number, F: number, join: string): string[] {
  const d = num(XF / F);
  const planes = ["y", "u", "v"];
  return [
    `[${a}]extractplanes=y+u+v${planes.map((p) => `[${out}a${p}]`).join("")}`,
    `[${bLabel}]extractplanes=y+u+v${planes.map((p) => `[${out}b${p}]`).join("")}`,
    ...planes.map((p) => `[${out}a${p}][${out}b${p}]xfade=transition=fade:duration=${d}:offset=0[${out}x${p}]`),
    `${planes.map((p) => `[${out}x${p}]`).join("")}mergeplanes=0x001020:yuv420p,trim=end_frame=${XF},${join}[${out}]`,
  ];
}
