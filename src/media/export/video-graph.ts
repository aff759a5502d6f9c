/**
 * The render's graph: one ffmpeg run for a run of sequences (the whole timeline, or one chunk of a
 * long one). Each sequence is drawn by its visual (graph.ts): a still repeated with `loop`, or parts
 * drawn per frame (videos decoded, cropped and scaled; animated stills zoomed and panned) stacked or
 * overlaid; then cut into head / body / tail windows around its transitions, the windows crossfaded
 * (or faded through black), everything joined with `concat`, subtitles burned last. graph.ts says
 * what keeps it fast.
 */
import { escapeFilterValue as esc, num } from "../filtergraph.js";
import { DECODE_LIMIT_ARGS } from "../image-header.js";
import {
  cropTo,
  crossfade,
  fitBox,
  jobsOf,
  layoutBoxes,
  transitionFrames,
  transitionsOf,
  type Chunk,
  type GraphOptions,
  type Part,
  type SequenceVisual,
  type StillJob,
  type VideoGraph,
} from "./graph.js";
import type { RenderPlan } from "./spec.js";

/**
 * What a branch that shares an earlier branch's decoder may hold (its frames at quarter size): 96 MB,
 * 16 s of a 1080×1920 background.
 */
const BUFFER_BYTES = 96 * 1024 * 1024;

/** How far an animated still zooms in over its sequence (1.0 → 1 + this). */
const MOTION_ZOOM = 0.15;

/** The state of one run's graph as it is written. */
class RunGraph {
  readonly inputs: string[] = [];
  readonly lines: string[] = [];
  private nextInput = 0;
  private seq = 0;
  private readonly stillPads = new Map<string, string[]>();
  /** Frames of each part joined by concat (windows, crossfades, whole sequences), by label. */
  readonly partFrames = new Map<string, number>();
  /** The parts that are one frame repeated (a still sequence's body): subtitles burn only where cues change. */
  readonly stillParts = new Set<string>();
  /** Decoded clips: one input each, split to every branch that plays it from the same point. */
  private readonly clips: Array<{ file: string; ss: number; seconds: number; blurred: boolean; outs: string[] }> = [];
  readonly F: number;
  readonly XF: number;
  readonly boxes: ReturnType<typeof layoutBoxes>;
  /** The end of every branch drawn per frame (see `tail` in buildVideoGraph's history: ffmpeg 5.1 stalled without the closing fps). */
  readonly tail: string;
  /** After xfade, vstack or overlay: no `fps` there (it dropped the last frame). */
  readonly join: string;
  /** Flags of the per-frame scalers of videos: drafts scale with swscale's cheapest (a sixth of the render's scaling CPU). */
  readonly scaleFlags: string;

  constructor(
    readonly plan: RenderPlan,
    readonly visuals: SequenceVisual[],
    readonly o: GraphOptions,
  ) {
    this.F = plan.fps;
    this.XF = transitionFrames(plan.fps);
    this.boxes = layoutBoxes(plan.W, plan.H);
    this.tail = `format=yuv420p,settb=1/${this.F},setpts=N,fps=${this.F}`;
    this.join = `format=yuv420p,settb=1/${this.F},setpts=N`;
    this.scaleFlags = o.draft ? ":flags=fast_bilinear" : "";
  }

  label(base: string): string {
    return `${base}${++this.seq}`;
  }

  addInput(args: string[]): number {
    this.inputs.push(...args);
    return this.nextInput++;
  }

  loop(frames: number): string {
    return `loop=loop=${frames - 1}:size=1:start=0,settb=1/${this.F},setpts=N,fps=${this.F}`;
  }

  /** Raw stills of these sequences: one input per file, split to every branch that uses it. */
  addStills(members: number[]): void {
    const uses = new Map<string, { job: StillJob; count: number }>();
    for (const i of members) for (const j of jobsOf(this.visuals[i]!)) uses.set(j.key, { job: j, count: (uses.get(j.key)?.count ?? 0) + 1 });
    for (const [key, { job, count }] of uses) {
      const file = this.o.stillFiles.get(key);
      if (!file) throw new Error(`no raw frame for still ${key}`);
      const idx = this.addInput(["-f", "rawvideo", "-pix_fmt", job.fmt, "-video_size", `${job.w}x${job.h}`, "-framerate", String(this.F), "-i", `file:${file}`]);
      const labels = Array.from({ length: count }, () => this.label("st"));
      this.lines.push(`[${idx}:v]setsar=1` + (count > 1 ? `,split=${count}` : "") + labels.map((l) => `[${l}]`).join(""));
      this.stillPads.set(key, labels);
    }
  }

  still(j: StillJob): string {
    return this.stillPads.get(j.key)!.shift()!;
  }

  /**
   * A clip from `offset` frames into its sequence, `frames` long, looped when it is shorter: the
   * start of its branch (`[label]trim=…,`), and whether the branch must hold its frames (`buffered`).
   * A blurred background that plays a clip from where an earlier branch of this run plays it too
   * shares that branch's decoder: the frames are split to both, and this branch keeps them at its
   * quarter size (`fifo` after the blur) until its sequence comes — when they fit BUFFER_BYTES.
   */
  video(file: string, frames: number, trimStart: number | undefined, offset: number, blurred = false): { head: string; buffered: boolean } {
    const F = this.F;
    const dur = this.o.info.get(file)?.durationSeconds;
    let ss = (trimStart && trimStart > 0 ? trimStart : 0) + offset / F;
    if (dur && dur > 0.2) {
      if (trimStart && trimStart >= dur - 0.1) ss = offset / F;
      // A looped clip starts over at 0: where the continuation is, inside the file.
      if (ss >= dur - 0.05) ss = ss % dur;
    }
    ss = Math.round(ss * 1000) / 1000;
    const q = this.boxes.quarter;
    const fits = blurred && frames * q.w * q.h * 1.5 <= BUFFER_BYTES;
    const shared = fits ? this.clips.find((c) => c.file === file && c.ss === ss) : undefined;
    const clip = shared ?? { file, ss, seconds: 0, blurred: true, outs: [] };
    if (!shared) this.clips.push(clip);
    clip.seconds = Math.max(clip.seconds, frames / F);
    clip.blurred &&= blurred;
    const label = this.label("clip");
    clip.outs.push(label);
    // Trimmed right after fps: no frame beyond the sequence is scaled.
    return { head: `[${label}]trim=end_frame=${frames},`, buffered: shared !== undefined };
  }

  /** The clips' inputs and their decoders' branches (after every branch is drawn: a later one may share). */
  addClips(): void {
    for (const clip of this.clips) {
      // One decoder thread: frame threads each keep their own reference frames (~20 MB per 1080p
      // clip here), and the CPU is already busy with x264; single-threaded decoding cost less CPU in
      // total. Looped so a clip shorter than its sequence keeps moving; -t bounds the reading.
      // Without the deblocking filter (a sixth of the decode): where the picture is blurred at
      // quarter size anyway, and in drafts. Drafts also skip the frames no other frame refers to
      // (`noref`: about half the decode of a clip with B-frames); `fps` holds the previous frame in
      // their place, so the clip keeps its timing and moves at a lower rate.
      const fast = clip.blurred || this.o.draft ? ["-skip_loop_filter", "all"] : [];
      if (this.o.draft) fast.push("-skip_frame", "noref");
      const idx = this.addInput([
        ...DECODE_LIMIT_ARGS,
        "-threads",
        "1",
        ...fast,
        "-stream_loop",
        "-1",
        ...(clip.ss > 0 ? ["-ss", num(clip.ss)] : []),
        "-t",
        num(clip.seconds + 0.5),
        "-i",
        `file:${clip.file}`,
      ]);
      const outs = clip.outs.map((l) => `[${l}]`).join("");
      this.lines.push(`[${idx}:v]fps=${this.F}` + (clip.outs.length > 1 ? `,split=${clip.outs.length}${outs}` : outs));
    }
  }

  /**
   * An animated still: a slow zoom in (×1 → ×1.15) drifting from the centre to the right, over
   * `span` frames of which `frames` are drawn from `offset` on. The still was drawn MOTION_MARGIN
   * larger than the box, so the zoom never upscales much.
   */
  motion(job: StillJob, frames: number, offset: number, span: number, box: { w: number; h: number }): string {
    const p = `(on+${offset})/${Math.max(1, span)}`;
    // One input frame per output frame (the still looped, d=1), not d=frames from one: ffmpeg 4.1's
    // zoompan (the npm copy) ended such a run a frame short. `on` counts output frames either way.
    return (
      `[${this.still(job)}]loop=loop=${frames - 1}:size=1:start=0,settb=1/${this.F},setpts=N,` +
      `zoompan=z='1+${MOTION_ZOOM}*${p}':x='(iw-iw/zoom)*(0.5+0.5*${p})':y='(ih-ih/zoom)/2':d=1:s=${box.w}x${box.h}:fps=${this.F},setsar=1`
    );
  }
}

/**
 * One part of a layout drawn per frame at `box`, then `post` (filters at that stage, in two steps:
 * a shared clip's frames wait between them), to `[out]`.
 */
function drawPart(
  g: RunGraph,
  part: Part,
  at: { nf: number; offset: number; span: number; blurred?: boolean },
  box: { w: number; h: number },
  post: string[],
  fmt: string,
  out: string,
): void {
  const then = post.length ? `,${post.join(",")}` : "";
  switch (part.kind) {
    case "still":
      // A still beside a moving part: its own filters once, before the loop.
      g.lines.push(`[${g.still(part.job)}]${post.length ? `${post.join(",")},` : ""}${g.loop(at.nf)},format=${fmt}[${out}]`);
      break;
    case "video": {
      const clip = g.video(part.file, at.nf, part.trimStart, at.offset, at.blurred);
      const wait = clip.buffered ? `,${[...post.slice(0, 1), "fifo", ...post.slice(1)].join(",")}` : then;
      g.lines.push(`${clip.head}${cropTo(box.w, box.h)},scale=${box.w}:${box.h}${g.scaleFlags},setsar=1${wait},${g.tail}[${out}]`);
      break;
    }
    case "motion":
      g.lines.push(`${g.motion(part.job, at.nf, at.offset, at.span, box)}${then},${g.tail}[${out}]`);
      break;
  }
}

/** The box of a background layout's foreground: the look's fitted size, or the avatar video's. */
function fgBoxOf(g: RunGraph, fg: Part): { w: number; h: number } {
  if (fg.kind !== "video") return { w: fg.job.w, h: fg.job.h };
  const info = g.o.info.get(fg.file);
  return fitBox(info?.width, info?.height, g.boxes.fgBox.w, g.boxes.fgBox.h);
}

/** The branch drawing `nf` frames of sequence i's visual, from `offset` frames into it, to `[seg]`. */
function drawSequence(g: RunGraph, i: number, nf: number, offset: number, out: string): void {
  const v = g.visuals[i]!;
  const { W, H } = g.plan;
  const at = { nf, offset, span: g.plan.sequences[i]!.frames + g.XF + 1 };
  // A draft's action label: on a still's one frame before it repeats, else on every frame drawn.
  const label = g.o.labels?.get(i);
  const seg = label && v.type !== "still" ? g.label("unlabelled") : out;
  if (seg !== out) g.lines.push(`[${seg}]${label},${g.join}[${out}]`);
  switch (v.type) {
    case "still":
      g.lines.push(`[${g.still(v.frame)}]${label ? `${label},` : ""}${g.loop(nf)},format=yuv420p[${seg}]`);
      break;
    case "full":
      drawPart(g, v.part, at, { w: W, h: H }, [], "yuv420p", seg);
      break;
    case "half": {
      const { vertical, media: mb, avatar: ab } = g.boxes.half;
      const [md, av] = [g.label("md"), g.label("av")];
      drawPart(g, v.media, at, mb, [], "yuv420p", md);
      drawPart(g, v.avatar, at, ab, [], "yuv420p", av);
      g.lines.push(`[${md}][${av}]${vertical ? "vstack" : "hstack"}=inputs=2,${g.join}[${seg}]`);
      break;
    }
    case "background": {
      const q = g.boxes.quarter;
      const bg = v.fg ? g.label("bg") : seg;
      const upFlags = g.o.draft ? "fast_bilinear" : "bilinear";
      const blur = `format=yuv420p,boxblur=${g.boxes.blur}:2`;
      drawPart(g, v.media, { ...at, blurred: true }, q, [blur, `scale=${W}:${H}:flags=${upFlags},setsar=1`], "yuv420p", bg);
      if (v.fg) {
        const fg = g.label("fg");
        const box = fgBoxOf(g, v.fg);
        drawPart(g, v.fg, at, box, [], v.fg.kind === "still" ? "yuva420p" : "yuv420p", fg);
        g.lines.push(`[${bg}][${fg}]overlay=x=${(W - box.w) >> 1}:y=${(H - box.h) >> 1}:format=yuv420,${g.join}[${seg}]`);
      }
      break;
    }
  }
}

type Cut = { key: string; a: number; b: number; fade?: string };

/** Where sequence i is cut around its transitions: crossfade windows, or fades through black. */
function cutsOf(g: RunGraph, L: number, hasIn: boolean, hasOut: boolean): Cut[] {
  const XF = g.XF;
  const cuts: Cut[] = [];
  if (g.o.xfade) {
    if (hasIn) cuts.push({ key: "h", a: 0, b: XF });
    cuts.push({ key: "b", a: hasIn ? XF : 0, b: L });
    if (hasOut) cuts.push({ key: "t", a: L, b: L + XF + 1 });
    return cuts;
  }
  // Through black: the last h1 frames of a sequence fade out, the first h2 of the next fade in.
  const h1 = Math.floor(XF / 2);
  const h2 = XF - h1;
  if (hasIn) cuts.push({ key: "h", a: 0, b: h2, fade: `fade=t=in:s=0:n=${h2}` });
  cuts.push({ key: "b", a: hasIn ? h2 : 0, b: hasOut ? L - h1 : L });
  if (hasOut) cuts.push({ key: "t", a: L - h1, b: L, fade: `fade=t=out:s=0:n=${h1}` });
  return cuts;
}

/** Splits a drawn sequence into its windows; returns the parts to concatenate, keeps its crossfade tail. */
function cutSequence(g: RunGraph, i: number, seg: string, hasIn: boolean, hasOut: boolean, tails: Map<number, string>): string[] {
  const cuts = cutsOf(g, g.plan.sequences[i]!.frames, hasIn, hasOut);
  const labels = cuts.map((c) => `${seg}${c.key}`);
  g.lines.push(`[${seg}]split=${cuts.length}${labels.map((l) => `[${l}]`).join("")}`);
  const trimmed = new Map<string, string>();
  cuts.forEach((c, k) => {
    const t = `${labels[k]}x`;
    g.lines.push(`[${labels[k]}]trim=start_frame=${c.a}:end_frame=${c.b},setpts=PTS-STARTPTS${c.fade ? `,${c.fade}` : ""}[${t}]`);
    trimmed.set(c.key, t);
    g.partFrames.set(t, c.b - c.a);
    if (!c.fade && g.visuals[i]!.type === "still") g.stillParts.add(t);
  });
  if (!g.o.xfade) return cuts.map((c) => trimmed.get(c.key)!);
  const parts: string[] = [];
  if (hasIn) {
    const xf = g.label("xf");
    g.lines.push(...crossfade(tails.get(i - 1)!, trimmed.get("h")!, xf, g.XF, g.F, g.join));
    g.partFrames.set(xf, g.XF);
    parts.push(xf);
  }
  parts.push(trimmed.get("b")!);
  if (hasOut) tails.set(i, trimmed.get("t")!);
  return parts;
}

/**
 * The frames of a run that are the frame before them again once subtitles are burned: inside a still
 * part, away from every cue's start and end (by more than a frame, so rounding in libass's frame
 * times cannot matter), never the run's last frame. As `select`'s expression, or "" when none.
 */
function repeatsOf(g: RunGraph, parts: string[], start: number, cueMs: number[]): string {
  const keep = new Set<number>();
  for (const ms of cueMs) {
    const x = (ms * g.F) / 1000 - start;
    for (let n = Math.floor(x) - 1; n <= Math.ceil(x) + 1; n++) keep.add(n);
  }
  const ranges: Array<[number, number]> = [];
  let at = 0;
  for (const p of parts) {
    const n = g.partFrames.get(p) ?? 0;
    if (g.stillParts.has(p)) {
      for (let k = at + 1; k < at + n; k++) {
        if (keep.has(k)) continue;
        const last = ranges.at(-1);
        if (last && last[1] === k - 1) last[1] = k;
        else ranges.push([k, k]);
      }
    }
    at += n;
  }
  const last = ranges.at(-1);
  if (last && last[1] === at - 1) last[1]--;
  const terms = ranges.filter(([a, b]) => b >= a).map(([a, b]) => `between(n\\,${a}\\,${b})`);
  return terms.length ? `select='not(${terms.join("+")})',` : "";
}

/**
 * Joins the parts and burns the subtitles, to `[vout]`. Where a still's frame repeats with the same
 * cues on it, only its first frame goes through libass (`select`), and `fps` repeats the burned frame
 * in the others' place: the same pictures for a third of the burn's CPU (libass's blend and the copy
 * of every repeated frame it has to write on).
 */
function finish(g: RunGraph, parts: string[], chunk: Chunk | undefined): void {
  const cat = parts.length === 1 ? parts[0]! : "cat";
  if (parts.length > 1) g.lines.push(`${parts.map((l) => `[${l}]`).join("")}concat=n=${parts.length}:v=1:a=0[cat]`);
  const subs = g.o.subtitles;
  if (!subs) {
    g.lines.push(`[${cat}]null[vout]`);
    return;
  }
  const fonts = subs.fontsDir ? `:fontsdir=${esc(subs.fontsDir)}` : "";
  // libass times cues by frame timestamps: frames are numbered by their place in the video (a
  // later run's moved there, and back to 0 after). Numbered, not shifted: concat leaves them in
  // microseconds a hair off each frame's time, and ffmpeg 4.1's subtitles filter (the npm copy)
  // rounds down, which showed a cue a frame late.
  const start = chunk?.startFrame ?? 0;
  const select = subs.cueMs ? repeatsOf(g, parts, start, subs.cueMs) : "";
  const before = `settb=1/${g.F},setpts=N${start ? `+${start}` : ""},${select}`;
  const after = (start ? ",setpts=PTS-STARTPTS" : "") + (select ? `,fps=${g.F}` : "");
  g.lines.push(`[${cat}]${before}subtitles=filename=${esc(subs.file)}${fonts}${after}[vout]`);
}

/** The graph of one run (the whole timeline when `chunk` is omitted). */
export function buildVideoGraph(plan: RenderPlan, visuals: SequenceVisual[], o: GraphOptions, chunk?: Chunk): VideoGraph {
  const g = new RunGraph(plan, visuals, o);
  const from = chunk?.from ?? 0;
  const to = chunk?.to ?? plan.sequences.length;
  const trans = transitionsOf(plan);
  // A crossfade into this run's first sequence needs the previous one's continuation: recreated here.
  const carry = o.xfade && from > 0 && trans.has(from);
  // A fade in from black needs nothing from the previous run.
  const inT = (i: number): boolean => trans.has(i) && (i > from || carry || !o.xfade);
  // The last sequence of a run crossfades out only in the next run; a fade to black stays here.
  const outT = (i: number): boolean => trans.has(i + 1) && (i + 1 < to || !o.xfade);

  g.addStills([...(carry ? [from - 1] : []), ...Array.from({ length: to - from }, (_, k) => from + k)]);
  const tails = new Map<number, string>();
  if (carry) {
    const t = g.label("carry");
    drawSequence(g, from - 1, g.XF + 1, plan.sequences[from - 1]!.frames, t);
    tails.set(from - 1, t);
  }
  const parts: string[] = [];
  for (let i = from; i < to; i++) {
    const seg = g.label("seg");
    const hasIn = inT(i);
    const hasOut = outT(i);
    drawSequence(g, i, plan.sequences[i]!.frames + (hasOut && o.xfade ? g.XF + 1 : 0), 0, seg);
    if (!hasIn && !hasOut) {
      g.partFrames.set(seg, plan.sequences[i]!.frames);
      if (visuals[i]!.type === "still") g.stillParts.add(seg);
      parts.push(seg);
    } else parts.push(...cutSequence(g, i, seg, hasIn, hasOut, tails));
  }
  g.addClips();
  finish(g, parts, chunk);
  return { inputs: g.inputs, graph: g.lines.join(";\n") + "\n" };
}
