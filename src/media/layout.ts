/**
 * Pure layout of the "picture of its inputs" every local render draws: background colours from a
 * hash of the prompt, the label strip, the wrapped prompt, and a grid of reference tiles. Sizes are
 * relative to the canvas so every aspect ratio and resolution looks alike. No ffmpeg here.
 */
import crypto from "node:crypto";
import { hslHex } from "./filtergraph.js";
import { textEm } from "./textwidth.js";

const LINE_EM = 1.45;
const MAX_PROMPT_CHARS = 2000;

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface CardLayout {
  width: number;
  height: number;
  background: string;
  accent: string;
  /** Decorative boxes derived from the hash, so different prompts look different at a glance. */
  shapes: Array<Rect & { color: string }>;
  label: { text: string; fontSize: number; x: number; y: number; band: Rect };
  prompt: { lines: string[]; fontSize: number; lineSpacing: number; x: number; y: number; pad: number } | null;
  tiles: Rect[];
  tileFrame: string;
}

/** Collapses whitespace and strips control characters; drawtext prints text as is. */
export function cleanText(s: string): string {
  return (
    s
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** Greedy word wrap to lines at most `maxEm` wide; words longer than a line are split. */
export function wrapText(text: string, maxEm: number): string[] {
  const lines: string[] = [];
  let line = "";
  const fits = (s: string): boolean => textEm(s) <= maxEm;
  for (const rawWord of cleanText(text).split(" ")) {
    if (!rawWord) continue;
    let word = rawWord;
    if (!fits(word)) {
      if (line) {
        lines.push(line);
        line = "";
      }
      let chunk = "";
      for (const ch of word) {
        if (chunk && !fits(chunk + ch)) {
          lines.push(chunk);
          chunk = "";
        }
        chunk += ch;
      }
      word = chunk;
    }
    const candidate = line ? `${line} ${word}` : word;
    if (fits(candidate)) line = candidate;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Cuts `text` to fit `maxEm`, ending with an ellipsis when something was cut. */
export function fitLine(text: string, maxEm: number): string {
  if (textEm(text) <= maxEm) return text;
  let out = "";
  for (const ch of text) {
    if (textEm(`${out}${ch}…`) > maxEm) break;
    out += ch;
  }
  return `${out.trimEnd()}…`;
}

function truncateLines(lines: string[], maxLines: number, maxEm: number): string[] {
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = fitLine(`${kept[maxLines - 1]!}…`, maxEm);
  return kept;
}

export function tileGrid(n: number, area: Rect, gap: number): Rect[] {
  if (n <= 0) return [];
  const rows = n <= 3 ? 1 : n <= 8 ? 2 : 3;
  const cols = Math.ceil(n / rows);
  const w = Math.floor((area.w - (cols - 1) * gap) / cols);
  const h = Math.floor((area.h - (rows - 1) * gap) / rows);
  if (w < 4 || h < 4) return [];
  const tiles: Rect[] = [];
  for (let i = 0; i < n; i++) {
    const r = Math.floor(i / cols);
    const c = i % cols;
    tiles.push({ x: area.x + c * (w + gap), y: area.y + r * (h + gap), w, h });
  }
  return tiles;
}

/**
 * `seed`: what makes two generations of one prompt differ, as a model's seed does (the local
 * instance passes the asset's id); the same prompt and seed give the same picture.
 */
export function cardLayout(o: { width: number; height: number; prompt: string; label: string; tiles: number; seed?: string }): CardLayout {
  const { width: W, height: H } = o;
  const hash = crypto
    .createHash("sha256")
    .update(o.seed ? `${o.prompt}\u0000${o.seed}` : o.prompt, "utf8")
    .digest();
  const byte = (i: number): number => hash[i % hash.length]!;
  const hue = ((byte(0) << 8) | byte(1)) % 360;
  const m = Math.min(W, H);
  const margin = Math.max(2, Math.round(m * 0.045));
  const gap = Math.max(2, Math.round(m * 0.015));

  const shapes = [0, 1, 2].map((i) => {
    const w = Math.round(W * (0.25 + (byte(4 + i * 4) / 255) * 0.45));
    const h = Math.round(H * (0.2 + (byte(5 + i * 4) / 255) * 0.45));
    return {
      x: Math.round((W - w) * (byte(6 + i * 4) / 255)),
      y: Math.round((H - h) * (byte(7 + i * 4) / 255)),
      w,
      h,
      color: hslHex((hue + 25 + i * 35 + (byte(2) % 40)) % 360, 0.45, 0.3 + i * 0.05),
    };
  });

  const labelSize = Math.max(8, Math.round(m * 0.04));
  const bandH = Math.min(H, Math.round(labelSize * 1.9));
  const label = {
    text: fitLine(cleanText(o.label).slice(0, 300), (W - 2 * margin) / labelSize),
    fontSize: labelSize,
    x: margin,
    y: Math.round((bandH - labelSize) / 2),
    band: { x: 0, y: 0, w: W, h: bandH },
  };

  const tilesH = o.tiles > 0 ? Math.round(H * (o.tiles <= 3 ? 0.3 : 0.42)) : 0;
  const tileArea: Rect = { x: margin, y: H - margin - tilesH, w: W - 2 * margin, h: tilesH };
  const tiles = tileGrid(o.tiles, tileArea, gap);

  const textTop = bandH + margin;
  const textBottom = (tiles.length ? tileArea.y : H) - margin;
  let prompt: CardLayout["prompt"] = null;
  const text = cleanText(o.prompt).slice(0, MAX_PROMPT_CHARS);
  if (text) {
    const maxSize = Math.max(8, Math.round(m * 0.075));
    const minSize = Math.max(8, Math.round(m * 0.03));
    const sizes: number[] = [];
    for (let size = maxSize; size > minSize; size -= 2) sizes.push(size);
    sizes.push(minSize);
    for (const size of sizes) {
      const pad = Math.max(2, Math.round(size * 0.4));
      const maxEm = (W - 2 * margin - 2 * pad) / size;
      const maxLines = Math.floor((textBottom - textTop - 2 * pad) / (size * LINE_EM));
      if (maxEm < 1 || maxLines < 1) continue;
      const lines = wrapText(text, maxEm);
      if (lines.length <= maxLines || size === minSize) {
        prompt = {
          lines: truncateLines(lines, maxLines, maxEm),
          fontSize: size,
          lineSpacing: Math.round(size * (LINE_EM - 1.17)),
          x: margin + pad,
          y: textTop + pad,
          pad,
        };
        break;
      }
    }
  }
  return {
    width: W,
    height: H,
    background: hslHex(hue, 0.45, 0.22),
    accent: hslHex((hue + 150 + (byte(3) % 60)) % 360, 0.65, 0.55),
    shapes,
    label,
    prompt,
    tiles,
    tileFrame: hslHex(hue, 0.2, 0.1),
  };
}
