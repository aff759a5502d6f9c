/**
 * The export's video filtergraph: one ffmpeg run renders every sequence, the transitions and the
 * subtitles. What keeps it fast (measured against the reference render, ffmpeg 5.1, 2 cores):
 *
 * - Stills (looks, image media, and whole compositions of stills: half, background, hide) are decoded,
 *   converted to BT.709 yuv420p and scaled ONCE, then repeated with `loop`; decoding or converting a
 *   still per frame costs about 30 %.
 * - Videos are cropped to the box's aspect ratio BEFORE scaling: "cover" by scaling first and cropping
 *   after made swscale write 3.2× the pixels for a landscape clip in a portrait frame.
 * - A blurred background is blurred at quarter size and upscaled bilinearly: bicubic buys nothing on
 *   a blurred picture.
 * - Only the short transition windows go through `xfade` (5.1's xfade has no yuv420p path, so each
 *   frame through it is converted twice); everything else is joined with `concat`. xfade drops the
 *   first input's last frame, hence one extra tail frame and a trim.
 * - Every branch ends with `fps`, `format=yuv420p` and a 1/fps timebase so concat and xfade accept it;
 *   no `fps` right after vstack/overlay (it dropped the last frame there).
 */
import { escapeFilterValue as esc, num } from "../filtergraph.js";
import type { PlannedSequence, RenderPlan } from "./spec.js";

export interface InputInfo {
  width?: number;
  height?: number;
  durationSeconds?: number;
}

export interface GraphOptions {
  /** Crossfades through xfade; false: fades through black (ffmpeg without xfade, or forced). */
  xfade: boolean;
  /** ASS file and font dir, relative to the run's cwd; omitted: no subtitles. */
  subtitles?: { file: string; fontsDir?: string };
  /** Probed facts of the input files, by path. */
  info: Map<string, InputInfo>;
  /** Input arguments for a still (handles names ffmpeg would read as patterns). */
  stillInput: (file: string, index: number) => string[];
  /** Transition length in seconds (0.5). */
  transitionSeconds?: number;
}

export interface VideoGraph {
  inputs: string[];
  graph: string;
  /** Boundaries (index of the sequence after it) that got a transition. */
  transitions: number[];
}

/** Rounds to an even integer, at least 2 (yuv420p needs even sizes for clean chroma). */
function even(n: number): number {
  return Math.max(2, 2 * Math.round(n / 2));
}

/** The look's background colour when a sequence has no look image. */
const NO_LOOK_COLOR = "0x14181f";

interface Use {
  file: string;
  label: string;
}

class Builder {
  inputs: string[] = [];
  lines: string[] = [];
  private nextInput = 0;
  private seq = 0;
  constructor(
    readonly plan: RenderPlan,
    readonly o: GraphOptions,
  ) {}

  label(base: string): string {
    return `${base}${++this.seq}`;
  }

  addInput(args: string[]): number {
    this.inputs.push(...args);
    return this.nextInput++;
  }

  /** The chain that repeats a one-frame stream `frames` times on the output grid. */
  loop(frames: number): string {
    const F = this.plan.fps;
    return `loop=loop=${frames - 1}:size=1:start=0,settb=1/${F},setpts=N,fps=${F}`;
  }

  /**
   * The end of every branch fed by a decoded video. The closing `fps` is needed even though the
   * frames are already on the grid: without it (trim → scale → setpts and no fps) ffmpeg 5.1 stalled
   * for good after the transition out of such a branch (measured on the reference plan).
   */
  tail(): string {
    const F = this.plan.fps;
    return `format=yuv420p,settb=1/${F},setpts=N,fps=${F}`;
  }

  /** After xfade, vstack or overlay: no `fps` there (it dropped the last frame). */
  join(): string {
    return `format=yuv420p,settb=1/${this.plan.fps},setpts=N`;
  }
}

/**
 * Crop to the aspect ratio of w×h (centred), as a filter. Expressions (not probed numbers) because
 * ffmpeg sees rotated videos after autorotation, which the probe's coded size does not show.
 */
function cropTo(w: number, h: number): string {
  const r = num(w / h);
  return `crop=w='min(iw,ih*${r})':h='min(ih,iw/${r})'`;
}

/** RGB → BT.709 limited-range conversion of a still, scaled to cover w×h: runs once per still. */
function stillCover(w: number, h: number, fmt = "yuv420p"): string {
  return `format=rgb24,${cropTo(w, h)},scale=${w}:${h}:out_color_matrix=bt709:out_range=tv,format=${fmt},setsar=1`;
}

/** Fits the probed size into a box, keeping the aspect ratio, even sizes. */
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

/** Which still files each sequence needs, in the order its branch consumes them. */
function stillUses(p: PlannedSequence): string[] {
  const s = p.seq;
  const m = s.media && s.media.show !== "hide" ? s.media : undefined;
  const look = s.look_image_path ? [s.look_image_path] : [];
  const img = m && m.kind === "image" ? [m.path] : [];
  if (!m) return look;
  if (m.show === "full") return img;
  return [...img, ...look];
}

export function buildVideoGraph(plan: RenderPlan, o: GraphOptions): VideoGraph {
  const b = new Builder(plan, o);
  const { W, H, fps: F } = plan;
  const XF = Math.max(1, Math.round((o.transitionSeconds ?? 0.5) * F));
  const n = plan.sequences.length;

  // Transitions at boundary i (between i-1 and i) when both sides are longer than the window.
  const trans = new Set<number>();
  if (plan.options.transitions) {
    for (let i = 1; i < n; i++) {
      if (plan.sequences[i - 1]!.frames > XF && plan.sequences[i]!.frames > XF) trans.add(i);
    }
  }

  // Stills: one input each, first frame only, split to every branch that uses it.
  const uses = new Map<string, number>();
  for (const p of plan.sequences) for (const f of stillUses(p)) uses.set(f, (uses.get(f) ?? 0) + 1);
  const pads = new Map<string, string[]>();
  for (const [file, count] of uses) {
    const idx = b.addInput(o.stillInput(file, b.inputs.filter((a) => a === "-i").length));
    const labels = Array.from({ length: count }, () => b.label("st"));
    // trim: an animated image contributes its first frame only.
    b.lines.push(`[${idx}:v]trim=end_frame=1,setpts=PTS-STARTPTS` + (count > 1 ? `,split=${count}` : "") + labels.map((l) => `[${l}]`).join(""));
    pads.set(file, labels);
  }
  const still = (file: string): Use => ({ file, label: pads.get(file)!.shift()! });
  const lookOrColor = (p: PlannedSequence, w: number, h: number, fmt = "yuv420p"): string => {
    const out = b.label("lk");
    if (p.seq.look_image_path) b.lines.push(`[${still(p.seq.look_image_path).label}]${stillCover(w, h, fmt)}[${out}]`);
    else b.lines.push(`color=c=${NO_LOOK_COLOR}:s=${w}x${h}:r=${F}:d=1,trim=end_frame=1,format=${fmt},setsar=1[${out}]`);
    return out;
  };
  const video = (file: string, frames: number, trimStart: number | undefined): string => {
    const info = o.info.get(file);
    let ss = trimStart && trimStart > 0 ? trimStart : 0;
    if (info?.durationSeconds && ss >= info.durationSeconds - 0.1) ss = 0;
    // Looped so a clip shorter than its sequence keeps moving; -t bounds the reading.
    const args = ["-stream_loop", "-1", ...(ss ? ["-ss", num(ss)] : []), "-t", num(frames / F + 0.5), "-i", `file:${file}`];
    const idx = b.addInput(args);
    // Trimmed right after fps: no frame beyond the sequence is scaled.
    return `[${idx}:v]fps=${F},trim=end_frame=${frames},`;
  };

  const boxes = layoutBoxes(W, H);
  const segs: string[] = [];
  plan.sequences.forEach((p, i) => {
    const L = p.frames;
    const out = trans.has(i + 1);
    const nf = L + (out && o.xfade ? XF + 1 : 0);
    const seg = b.label("seg");
    const m = p.seq.media && p.seq.media.show !== "hide" ? p.seq.media : undefined;
    const isVideo = m?.kind === "video";
    const trimV = b.tail();
    if (!m) {
      b.lines.push(`[${lookOrColor(p, W, H)}]${b.loop(nf)},format=yuv420p[${seg}]`);
    } else if (m.show === "full") {
      if (isVideo) b.lines.push(`${video(m.path, nf, m.trim_start)}${cropTo(W, H)},scale=${W}:${H},setsar=1,${trimV}[${seg}]`);
      else b.lines.push(`[${still(m.path).label}]${stillCover(W, H)},${b.loop(nf)},format=yuv420p[${seg}]`);
    } else if (m.show === "half") {
      const { vertical, media: mb, avatar: ab } = boxes.half;
      const stack = vertical ? "vstack" : "hstack";
      if (isVideo) {
        const md = b.label("md");
        const av = b.label("av");
        b.lines.push(`${video(m.path, nf, m.trim_start)}${cropTo(mb.w, mb.h)},scale=${mb.w}:${mb.h},setsar=1,${trimV}[${md}]`);
        b.lines.push(`[${lookOrColor(p, ab.w, ab.h)}]${b.loop(nf)},format=yuv420p[${av}]`);
        b.lines.push(`[${md}][${av}]${stack}=inputs=2,${b.join()}[${seg}]`);
      } else {
        const md = b.label("md");
        b.lines.push(`[${still(m.path).label}]${stillCover(mb.w, mb.h)}[${md}]`);
        const av = lookOrColor(p, ab.w, ab.h);
        // Two stills: stacked once, then repeated.
        b.lines.push(`[${md}][${av}]${stack}=inputs=2,${b.loop(nf)},format=yuv420p[${seg}]`);
      }
    } else {
      // background: the media blurred at quarter size and upscaled, the look fitted on top.
      const q = boxes.quarter;
      const blur = `boxblur=${boxes.blur}:2,scale=${W}:${H}:flags=bilinear,setsar=1`;
      const lookInfo = p.seq.look_image_path ? o.info.get(p.seq.look_image_path) : undefined;
      const fg = fitBox(lookInfo?.width, lookInfo?.height, boxes.fgBox.w, boxes.fgBox.h);
      const pos = `x=${(W - fg.w) >> 1}:y=${(H - fg.h) >> 1}`;
      const bg = b.label("bg");
      if (isVideo) {
        b.lines.push(`${video(m.path, nf, m.trim_start)}${cropTo(q.w, q.h)},scale=${q.w}:${q.h},format=yuv420p,${blur},${trimV}[${bg}]`);
      } else {
        b.lines.push(`[${still(m.path).label}]${stillCover(q.w, q.h)},${blur}[${bg}]`);
      }
      if (p.seq.look_image_path) {
        // overlay takes its top layer as yuva420p: converted here, once, not per frame.
        const fgl = b.label("fg");
        const fgChain = `[${still(p.seq.look_image_path).label}]format=rgb24,scale=${fg.w}:${fg.h}:out_color_matrix=bt709:out_range=tv,format=yuva420p,setsar=1`;
        if (isVideo) {
          b.lines.push(`${fgChain},${b.loop(nf)},format=yuva420p[${fgl}]`);
          b.lines.push(`[${bg}][${fgl}]overlay=${pos}:format=yuv420,${b.join()}[${seg}]`);
        } else {
          b.lines.push(`${fgChain}[${fgl}]`);
          b.lines.push(`[${bg}][${fgl}]overlay=${pos}:format=yuv420,${b.loop(nf)},format=yuv420p[${seg}]`);
        }
      } else if (isVideo) {
        b.lines.push(`[${bg}]null[${seg}]`);
      } else {
        b.lines.push(`[${bg}]${b.loop(nf)},format=yuv420p[${seg}]`);
      }
    }
    segs.push(seg);
  });

  // Cut each sequence into head / body / tail windows around its transitions.
  const parts: string[] = [];
  const h1 = Math.floor(XF / 2); // fade-out frames at the end of a sequence (no-xfade path)
  const h2 = XF - h1; // fade-in frames at the start of the next
  const tails: string[] = [];
  plan.sequences.forEach((p, i) => {
    const L = p.frames;
    const seg = segs[i]!;
    const inT = trans.has(i);
    const outT = trans.has(i + 1);
    if (!inT && !outT) {
      parts.push(seg);
      return;
    }
    type Cut = { key: string; a: number; b: number; fade?: string };
    const cuts: Cut[] = [];
    if (o.xfade) {
      if (inT) cuts.push({ key: "h", a: 0, b: XF });
      cuts.push({ key: "b", a: inT ? XF : 0, b: L });
      if (outT) cuts.push({ key: "t", a: L, b: L + XF + 1 });
    } else {
      if (inT) cuts.push({ key: "h", a: 0, b: h2, fade: `fade=t=in:s=0:n=${h2}` });
      cuts.push({ key: "b", a: inT ? h2 : 0, b: outT ? L - h1 : L });
      if (outT) cuts.push({ key: "t", a: L - h1, b: L, fade: `fade=t=out:s=0:n=${h1}` });
    }
    const labels = cuts.map((c) => `${seg}${c.key}`);
    b.lines.push(`[${seg}]split=${cuts.length}${labels.map((l) => `[${l}]`).join("")}`);
    const trimmed = new Map<string, string>();
    cuts.forEach((c, k) => {
      const t = `${labels[k]}x`;
      b.lines.push(`[${labels[k]}]trim=start_frame=${c.a}:end_frame=${c.b},setpts=PTS-STARTPTS${c.fade ? `,${c.fade}` : ""}[${t}]`);
      trimmed.set(c.key, t);
    });
    if (o.xfade) {
      if (inT) {
        const xf = b.label("xf");
        b.lines.push(
          `[${tails[i - 1]}][${trimmed.get("h")}]xfade=transition=fade:duration=${num(XF / F)}:offset=0,` +
            `trim=end_frame=${XF},${b.join()}[${xf}]`,
        );
        parts.push(xf);
      }
      parts.push(trimmed.get("b")!);
      if (outT) tails[i] = trimmed.get("t")!;
    } else {
      if (inT) parts.push(trimmed.get("h")!);
      parts.push(trimmed.get("b")!);
      if (outT) parts.push(trimmed.get("t")!);
    }
  });

  const cat = parts.length === 1 ? parts[0]! : "cat";
  if (parts.length > 1) b.lines.push(`${parts.map((l) => `[${l}]`).join("")}concat=n=${parts.length}:v=1:a=0[cat]`);
  if (o.subtitles) {
    const fonts = o.subtitles.fontsDir ? `:fontsdir=${esc(o.subtitles.fontsDir)}` : "";
    b.lines.push(`[${cat}]subtitles=filename=${esc(o.subtitles.file)}${fonts}[vout]`);
  } else {
    b.lines.push(`[${cat}]null[vout]`);
  }
  return { inputs: b.inputs, graph: b.lines.join(";\n") + "\n", transitions: [...trans].sort((x, y) => x - y) };
}
