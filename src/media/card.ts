/**
 * Turns a CardLayout into an ffmpeg filtergraph that draws it. The canvas is yuv444p (drawbox in old
 * static builds only blends on YUV, and 4:4:4 keeps colours sharp); callers convert at the end.
 * Text goes through `textfile=` + `expansion=none`, so prompts need no escaping and `%{…}` is inert.
 */
import fs from "node:fs";
import { DECODE_LIMIT_ARGS } from "./image-header.js";
import path from "node:path";
import type { CardLayout, Rect } from "./layout.js";
import { escapeFilterValue as esc } from "./filtergraph.js";
import type { Tools } from "./tools.js";

export interface GraphPart {
  /** Extra ffmpeg input arguments, in order (their indexes start at the `firstInput` given). */
  inputArgs: string[];
  /** Filtergraph statements, joined with ";". */
  graph: string;
  /** Whether text was drawn (false when this ffmpeg lacks drawtext or no font file exists). */
  textDrawn: boolean;
}

export function canDrawText(tools: Tools): boolean {
  return tools.hasDrawtext && tools.fontFile !== "";
}

function box(r: Rect, color: string): string {
  return `drawbox=x=${r.x}:y=${r.y}:w=${r.w}:h=${r.h}:color=${color}:t=fill`;
}

let textSeq = 0;
function textFile(workDir: string, text: string): string {
  const file = path.join(workDir, `text-${process.pid}-${++textSeq}.txt`);
  fs.writeFileSync(file, text, "utf8");
  return file;
}

export function drawText(
  tools: Tools,
  workDir: string,
  o: { text: string; size: number; x: number; y: number; color?: string; lineSpacing?: number; boxPad?: number },
): string {
  const parts = [
    `drawtext=fontfile=${esc(tools.fontFile)}`,
    `textfile=${esc(textFile(workDir, o.text))}`,
    `expansion=none`,
    `fontsize=${o.size}`,
    `fontcolor=${o.color ?? "white"}`,
    `x=${o.x}`,
    `y=${o.y}`,
  ];
  if (o.lineSpacing) parts.push(`line_spacing=${o.lineSpacing}`);
  if (o.boxPad) parts.push("box=1", "boxcolor=black@0.5", `boxborderw=${o.boxPad}`);
  return parts.join(":");
}

/**
 * The input arguments of a reference (image or video): only its first frame is used, so reading
 * stops after one second. Names with `%` are copied first: the image2 demuxer would treat them as
 * sequence patterns.
 */
export function stillInputArgs(file: string, workDir: string, index: number): string[] {
  let p = path.resolve(file);
  if (path.basename(p).includes("%")) {
    const copy = path.join(workDir, `ref-${index}${path.extname(p).replace(/%/g, "")}`);
    fs.copyFileSync(p, copy);
    p = copy;
  }
  return [...DECODE_LIMIT_ARGS, "-t", "1", "-i", `file:${p}`];
}

/** Graph drawing `layout` with `refs` (input indexes from `firstInput`) into the label `[out]`. */
export function cardGraph(tools: Tools, layout: CardLayout, refs: string[], workDir: string, firstInput: number, out: string): GraphPart {
  const text = canDrawText(tools);
  const base: string[] = [
    `color=c=${layout.background}:s=${layout.width}x${layout.height}:r=1:d=1`,
    "format=yuv444p",
    ...layout.shapes.map((s) => box(s, s.color)),
    box(layout.label.band, "black@0.45"),
    // The accent rule under the label strip still says "something is here" when text cannot be drawn.
    box({ x: 0, y: layout.label.band.h, w: layout.width, h: Math.max(1, Math.round(layout.label.fontSize / 6)) }, layout.accent),
  ];
  if (text && layout.label.text) {
    base.push(drawText(tools, workDir, { text: layout.label.text, size: layout.label.fontSize, x: layout.label.x, y: layout.label.y }));
  }
  if (text && layout.prompt) {
    const p = layout.prompt;
    base.push(
      drawText(tools, workDir, {
        text: p.lines.join("\n"),
        size: p.fontSize,
        x: p.x,
        y: p.y,
        lineSpacing: p.lineSpacing,
        boxPad: p.pad,
      }),
    );
  }
  const tiles = layout.tiles.slice(0, refs.length);
  for (const t of tiles) base.push(box(t, layout.tileFrame));
  const statements: string[] = [];
  const inputArgs: string[] = [];
  // Internal labels derive from `out` so several cards can share one graph.
  let current = `${out}_c0`;
  statements.push(`${base.join(",")}[${current}]`);
  tiles.forEach((t, i) => {
    const idx = firstInput + i;
    inputArgs.push(...stillInputArgs(refs[i]!, workDir, idx));
    const inner = { w: Math.max(2, t.w - 4), h: Math.max(2, t.h - 4) };
    statements.push(
      `[${idx}:v]trim=end_frame=1,setpts=PTS-STARTPTS,` + `scale=w=${inner.w}:h=${inner.h}:force_original_aspect_ratio=decrease,setsar=1,format=yuv444p[${out}_r${i}]`,
    );
    const next = `${out}_c${i + 1}`;
    statements.push(`[${current}][${out}_r${i}]overlay=x=${t.x}+(${t.w}-w)/2:y=${t.y}+(${t.h}-h)/2:format=yuv444:eval=init[${next}]`);
    current = next;
  });
  statements.push(`[${current}]null[${out}]`);
  return { inputArgs, graph: statements.join(";\n"), textDrawn: text };
}

/** An opaque strip with one line of text (edit/extend/motion/upscale captions in videos). */
export function bandGraph(tools: Tools, o: { width: number; height: number; text: string; color: string; accent: string }, workDir: string, out: string): GraphPart {
  const text = canDrawText(tools);
  const size = Math.max(8, Math.round(o.height * 0.5));
  const chain = [
    `color=c=${o.color}:s=${o.width}x${o.height}:r=1:d=1`,
    "format=yuv444p",
    box({ x: 0, y: 0, w: Math.max(2, Math.round(o.height * 0.15)), h: o.height }, o.accent),
  ];
  if (text && o.text) {
    chain.push(
      drawText(tools, workDir, {
        text: o.text,
        size,
        x: Math.round(o.height * 0.45),
        y: Math.round((o.height - size) / 2),
      }),
    );
  }
  return { inputArgs: [], graph: `${chain.join(",")}[${out}]`, textDrawn: text };
}
