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
 */
import { escapeFilterValue as esc, num } from "../filtergraph.js";
import { DECODE_LIMIT_ARGS } from "../image-header.js";
import type { PlannedSequence, RenderPlan } from "./spec.js";

export interface InputInfo {
  width?: number;
  height?: number;
  durationSeconds?: number;
}

/** Rounds to an even integer, at least 2 (yuv420p needs even sizes for clean chroma). */
function even(n: number): number {
  return Math.max(2, 2 * Math.round(n / 2));
}

/** The look's background colour when a sequence has no look image. */
const NO_LOOK_COLOR = "0x14181f";

/**
 * Crop to the aspect ratio of w×h (centred), as a filter. Expressions (not probed numbers) because
 * ffmpeg sees rotated videos after autorotation, which the probe's coded size does not show.
 */
function cropTo(w: number, h: number): string {
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
export function layoutBoxes(W: number, H: number): {
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
}

/** What the render does for one sequence. */
export type SequenceVisual =
  | { type: "still"; frame: StillJob }
  | { type: "video-full"; video: string; trimStart?: number }
  | { type: "video-half"; video: string; trimStart?: number; avatar: StillJob }
  | { type: "video-background"; video: string; trimStart?: number; fg?: StillJob };

/** RGB → BT.709 limited-range yuv420p, covering w×h: once per still, so the conversion is free. */
function coverChain(src: string, w: number, h: number, out: string): string {
  return `[${src}]format=rgb24,${cropTo(w, h)},scale=${w}:${h}:out_color_matrix=bt709:out_range=tv,format=yuv420p,setsar=1[${out}]`;
}

function colorChain(w: number, h: number, out: string): string {
  return `color=c=${NO_LOOK_COLOR}:s=${w}x${h}:d=1,trim=end_frame=1,format=yuv420p,setsar=1[${out}]`;
}

/** The look (or a plain background) covering w×h, as one StillJob. */
function lookJob(look: string | null, w: number, h: number): StillJob {
  return look
    ? { key: `cover|${look}|${w}x${h}`, w, h, fmt: "yuv420p", sources: [look], chain: [coverChain("in0", w, h, "out")] }
    : { key: `color|${w}x${h}`, w, h, fmt: "yuv420p", sources: [], chain: [colorChain(w, h, "out")] };
}

export function planVisuals(plan: RenderPlan, info: Map<string, InputInfo>): SequenceVisual[] {
  const { W, H } = plan;
  const boxes = layoutBoxes(W, H);
  return plan.sequences.map((p: PlannedSequence): SequenceVisual => {
    const s = p.seq;
    const look = s.look_image_path;
    const m = s.media && s.media.show !== "hide" ? s.media : undefined;
    if (!m) return { type: "still", frame: lookJob(look, W, H) };
    const video = m.kind === "video" ? m.path : undefined;
    const fg = (): StillJob | undefined => {
      if (!look) return undefined;
      const li = info.get(look);
      const f = fitBox(li?.width, li?.height, boxes.fgBox.w, boxes.fgBox.h);
      // rgba: a cut-out look keeps its transparency over the background. yuva420p is what overlay
      // takes as its top layer; converted here, once.
      return {
        key: `fg|${look}|${f.w}x${f.h}`,
        w: f.w,
        h: f.h,
        fmt: "yuva420p",
        sources: [look],
        chain: [`[in0]format=rgba,scale=${f.w}:${f.h}:out_color_matrix=bt709:out_range=tv,format=yuva420p,setsar=1[out]`],
      };
    };
    switch (m.show) {
      case "full":
        if (video) return { type: "video-full", video, trimStart: m.trim_start };
        return { type: "still", frame: { key: `cover|${m.path}|${W}x${H}`, w: W, h: H, fmt: "yuv420p", sources: [m.path], chain: [coverChain("in0", W, H, "out")] } };
      case "half": {
        const { vertical, media: mb, avatar: ab } = boxes.half;
        if (video) return { type: "video-half", video, trimStart: m.trim_start, avatar: lookJob(look, ab.w, ab.h) };
        const lookPart = look ? coverChain("in1", ab.w, ab.h, "lk") : colorChain(ab.w, ab.h, "lk");
        return {
          type: "still",
          frame: {
            key: `half|${m.path}|${look ?? ""}|${W}x${H}`,
            w: W,
            h: H,
            fmt: "yuv420p",
            sources: look ? [m.path, look] : [m.path],
            chain: [coverChain("in0", mb.w, mb.h, "md"), lookPart, `[md][lk]${vertical ? "vstack" : "hstack"}=inputs=2[out]`],
          },
        };
      }
      default: {
        // background: blurred at quarter size, upscaled, the look fitted on top.
        if (video) return { type: "video-background", video, trimStart: m.trim_start, fg: fg() };
        const q = boxes.quarter;
        const f = fg();
        const bg = `[in0]format=rgb24,${cropTo(q.w, q.h)},scale=${q.w}:${q.h}:out_color_matrix=bt709:out_range=tv,format=yuv420p,boxblur=${boxes.blur}:2,scale=${W}:${H}:flags=bilinear,setsar=1`;
        const chain = f
          ? [`${bg}[bg]`, f.chain[0]!.replace("[in0]", "[in1]").replace("[out]", "[fg]"), `[bg][fg]overlay=x=${(W - f.w) >> 1}:y=${(H - f.h) >> 1}:format=yuv420,format=yuv420p[out]`]
          : [`${bg}[out]`];
        return {
          type: "still",
          frame: { key: `background|${m.path}|${look ?? ""}|${W}x${H}`, w: W, h: H, fmt: "yuv420p", sources: look ? [m.path, look] : [m.path], chain },
        };
      }
    }
  });
}

/** Distinct still jobs, in first-use order. */
export function stillJobs(visuals: SequenceVisual[]): StillJob[] {
  const jobs = new Map<string, StillJob>();
  for (const v of visuals) {
    const j = v.type === "still" ? v.frame : v.type === "video-half" ? v.avatar : v.type === "video-background" ? v.fg : undefined;
    if (j && !jobs.has(j.key)) jobs.set(j.key, j);
  }
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
      return t.replace(/\[(md|lk|bg|fg|out)\]/g, (_m, l: string) => `[j${k}${l}]`);
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
  /** ASS file and font dir, relative to the run's cwd; omitted: no subtitles. */
  subtitles?: { file: string; fontsDir?: string };
  /** Probed facts of the input files, by path (videos: duration, to clamp trim_start). */
  info: Map<string, InputInfo>;
  /** The raw frame file of each still job, by key. */
  stillFiles: Map<string, string>;
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
    case "video-full":
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

/** The still jobs a visual reads. */
function jobsOf(v: SequenceVisual): StillJob[] {
  if (v.type === "still") return [v.frame];
  if (v.type === "video-half") return [v.avatar];
  if (v.type === "video-background" && v.fg) return [v.fg];
  return [];
}

/** The graph of one run (the whole timeline when `chunk` is omitted). */
export function buildVideoGraph(plan: RenderPlan, visuals: SequenceVisual[], o: GraphOptions, chunk?: Chunk): VideoGraph {
  const { W, H, fps: F } = plan;
  const XF = transitionFrames(F);
  const from = chunk?.from ?? 0;
  const to = chunk?.to ?? plan.sequences.length;
  const inputs: string[] = [];
  const lines: string[] = [];
  let nextInput = 0;
  let seq = 0;
  const label = (base: string): string => `${base}${++seq}`;
  const addInput = (args: string[]): number => {
    inputs.push(...args);
    return nextInput++;
  };
  const loop = (frames: number): string => `loop=loop=${frames - 1}:size=1:start=0,settb=1/${F},setpts=N,fps=${F}`;
  /**
   * The end of every branch fed by a decoded video. The closing `fps` is needed even though the
   * frames are already on the grid: without it (trim → scale → setpts and no fps) ffmpeg 5.1 stalled
   * for good after the transition out of such a branch (measured on the reference plan).
   */
  const tail = `format=yuv420p,settb=1/${F},setpts=N,fps=${F}`;
  /** After xfade, vstack or overlay: no `fps` there (it dropped the last frame). */
  const join = `format=yuv420p,settb=1/${F},setpts=N`;

  const trans = transitionsOf(plan);
  // A crossfade into this run's first sequence needs the previous one's continuation: recreated here.
  const carry = o.xfade && from > 0 && trans.has(from);
  // A fade in from black needs nothing from the previous run.
  const inT = (i: number): boolean => trans.has(i) && (i > from || carry || !o.xfade);
  // The last sequence of a run crossfades out only in the next run; a fade to black stays here.
  const outT = (i: number): boolean => trans.has(i + 1) && (i + 1 < to || !o.xfade);

  // Raw stills: one input per file, split to every branch that uses it.
  const members = [...(carry ? [from - 1] : []), ...Array.from({ length: to - from }, (_, k) => from + k)];
  const stillUses = new Map<string, { job: StillJob; count: number }>();
  for (const i of members) for (const j of jobsOf(visuals[i]!)) stillUses.set(j.key, { job: j, count: (stillUses.get(j.key)?.count ?? 0) + 1 });
  const stillPads = new Map<string, string[]>();
  for (const [key, { job, count }] of stillUses) {
    const file = o.stillFiles.get(key);
    if (!file) throw new Error(`no raw frame for still ${key}`);
    const idx = addInput(["-f", "rawvideo", "-pix_fmt", job.fmt, "-video_size", `${job.w}x${job.h}`, "-framerate", String(F), "-i", `file:${file}`]);
    const labels = Array.from({ length: count }, () => label("st"));
    lines.push(`[${idx}:v]setsar=1` + (count > 1 ? `,split=${count}` : "") + labels.map((l) => `[${l}]`).join(""));
    stillPads.set(key, labels);
  }
  const still = (j: StillJob): string => stillPads.get(j.key)!.shift()!;
  /** A clip from `offset` frames into its sequence, `frames` long, looped when it is shorter. */
  const video = (file: string, frames: number, trimStart: number | undefined, offset: number): string => {
    const dur = o.info.get(file)?.durationSeconds;
    let ss = (trimStart && trimStart > 0 ? trimStart : 0) + offset / F;
    if (dur && dur > 0.2) {
      if (trimStart && trimStart >= dur - 0.1) ss = offset / F;
      // A looped clip starts over at 0: where the continuation is, inside the file.
      if (ss >= dur - 0.05) ss = ss % dur;
    }
    // One decoder thread: frame threads each keep their own reference frames (~20 MB per 1080p clip
    // here), and the CPU is already busy with x264; single-threaded decoding cost less CPU in total.
    // Looped so a clip shorter than its sequence keeps moving; -t bounds the reading.
    const idx = addInput([...DECODE_LIMIT_ARGS, "-threads", "1", "-stream_loop", "-1", ...(ss > 0 ? ["-ss", num(Math.round(ss * 1000) / 1000)] : []), "-t", num(frames / F + 0.5), "-i", `file:${file}`]);
    // Trimmed right after fps: no frame beyond the sequence is scaled.
    return `[${idx}:v]fps=${F},trim=end_frame=${frames},`;
  };

  const boxes = layoutBoxes(W, H);
  /** The branch drawing `nf` frames of visual v, from `offset` frames into its sequence. */
  const source = (v: SequenceVisual, nf: number, offset: number, seg: string): void => {
    switch (v.type) {
      case "still":
        lines.push(`[${still(v.frame)}]${loop(nf)},format=yuv420p[${seg}]`);
        break;
      case "video-full":
        lines.push(`${video(v.video, nf, v.trimStart, offset)}${cropTo(W, H)},scale=${W}:${H},setsar=1,${tail}[${seg}]`);
        break;
      case "video-half": {
        const { vertical, media: mb } = boxes.half;
        const md = label("md");
        const av = label("av");
        lines.push(`${video(v.video, nf, v.trimStart, offset)}${cropTo(mb.w, mb.h)},scale=${mb.w}:${mb.h},setsar=1,${tail}[${md}]`);
        lines.push(`[${still(v.avatar)}]${loop(nf)},format=yuv420p[${av}]`);
        lines.push(`[${md}][${av}]${vertical ? "vstack" : "hstack"}=inputs=2,${join}[${seg}]`);
        break;
      }
      case "video-background": {
        const q = boxes.quarter;
        const bg = v.fg ? label("bg") : seg;
        lines.push(
          `${video(v.video, nf, v.trimStart, offset)}${cropTo(q.w, q.h)},scale=${q.w}:${q.h},format=yuv420p,` +
            `boxblur=${boxes.blur}:2,scale=${W}:${H}:flags=bilinear,setsar=1,${tail}[${bg}]`,
        );
        if (v.fg) {
          const fg = label("fg");
          lines.push(`[${still(v.fg)}]${loop(nf)},format=yuva420p[${fg}]`);
          lines.push(`[${bg}][${fg}]overlay=x=${(W - v.fg.w) >> 1}:y=${(H - v.fg.h) >> 1}:format=yuv420,${join}[${seg}]`);
        }
        break;
      }
    }
  };

  const tails = new Map<number, string>();
  if (carry) {
    const prev = from - 1;
    const t = label("carry");
    source(visuals[prev]!, XF + 1, plan.sequences[prev]!.frames, t);
    tails.set(prev, t);
  }

  // Each sequence, cut into head / body / tail windows around its transitions.
  const parts: string[] = [];
  const h1 = Math.floor(XF / 2); // fade-out frames at the end of a sequence (no-xfade path)
  const h2 = XF - h1; // fade-in frames at the start of the next
  for (let i = from; i < to; i++) {
    const L = plan.sequences[i]!.frames;
    const seg = label("seg");
    const hasIn = inT(i);
    const hasOut = outT(i);
    source(visuals[i]!, L + (hasOut && o.xfade ? XF + 1 : 0), 0, seg);
    if (!hasIn && !hasOut) {
      parts.push(seg);
      continue;
    }
    type Cut = { key: string; a: number; b: number; fade?: string };
    const cuts: Cut[] = [];
    if (o.xfade) {
      if (hasIn) cuts.push({ key: "h", a: 0, b: XF });
      cuts.push({ key: "b", a: hasIn ? XF : 0, b: L });
      if (hasOut) cuts.push({ key: "t", a: L, b: L + XF + 1 });
    } else {
      // Through black: the last h1 frames of a sequence fade out, the first h2 of the next fade in.
      if (hasIn) cuts.push({ key: "h", a: 0, b: h2, fade: `fade=t=in:s=0:n=${h2}` });
      cuts.push({ key: "b", a: hasIn ? h2 : 0, b: hasOut ? L - h1 : L });
      if (hasOut) cuts.push({ key: "t", a: L - h1, b: L, fade: `fade=t=out:s=0:n=${h1}` });
    }
    const labels = cuts.map((c) => `${seg}${c.key}`);
    lines.push(`[${seg}]split=${cuts.length}${labels.map((l) => `[${l}]`).join("")}`);
    const trimmed = new Map<string, string>();
    cuts.forEach((c, k) => {
      const t = `${labels[k]}x`;
      lines.push(`[${labels[k]}]trim=start_frame=${c.a}:end_frame=${c.b},setpts=PTS-STARTPTS${c.fade ? `,${c.fade}` : ""}[${t}]`);
      trimmed.set(c.key, t);
    });
    if (o.xfade) {
      if (hasIn) {
        const xf = label("xf");
        lines.push(...crossfade(tails.get(i - 1)!, trimmed.get("h")!, xf, XF, F, join));
        parts.push(xf);
      }
      parts.push(trimmed.get("b")!);
      if (hasOut) tails.set(i, trimmed.get("t")!);
    } else {
      if (hasIn) parts.push(trimmed.get("h")!);
      parts.push(trimmed.get("b")!);
      if (hasOut) parts.push(trimmed.get("t")!);
    }
  }

  const cat = parts.length === 1 ? parts[0]! : "cat";
  if (parts.length > 1) lines.push(`${parts.map((l) => `[${l}]`).join("")}concat=n=${parts.length}:v=1:a=0[cat]`);
  if (o.subtitles) {
    const fonts = o.subtitles.fontsDir ? `:fontsdir=${esc(o.subtitles.fontsDir)}` : "";
    // libass times cues by frame timestamps: frames are numbered by their place in the video (a
    // later run's moved there, and back to 0 after). Numbered, not shifted: concat leaves them in
    // microseconds a hair off each frame's time, and ffmpeg 4.1's subtitles filter (the npm copy)
    // rounds down, which showed a cue a frame late.
    const start = chunk?.startFrame ?? 0;
    const before = `settb=1/${F},setpts=N${start ? `+${start}` : ""},`;
    const after = start ? ",setpts=PTS-STARTPTS" : "";
    lines.push(`[${cat}]${before}subtitles=filename=${esc(o.subtitles.file)}${fonts}${after}[vout]`);
  } else {
    lines.push(`[${cat}]null[vout]`);
  }
  return { inputs, graph: lines.join(";\n") + "\n" };
}
