/**
 * Pixel size of a generated asset from its aspect ratio and resolution. Defined once: the renderer,
 * the status record and the tests all read this table.
 *
 * Image resolutions (`1K`, `2K`, `4K`) fix the long side; video resolutions (`480p` … `1080p`, and
 * `4K` = 2160p) fix the short side, as the industry names them. Sizes are even so H.264 accepts them.
 */
export type MediaKind = "image" | "video";

const IMAGE_LONG_SIDE: Record<string, number> = { "1K": 1024, "2K": 2048, "4K": 4096 };
const VIDEO_SHORT_SIDE: Record<string, number> = { "480p": 480, "720p": 720, "1080p": 1080, "4K": 2160 };

/** Used when a model has no resolution choice. */
export const DEFAULT_RESOLUTION: Record<MediaKind, string> = { image: "1K", video: "720p" };
/** Used when a model has no aspect-ratio choice and no source to follow. */
export const DEFAULT_ASPECT_RATIO = "16:9";

/** Models that follow their source render at most this long (the hosted models cap inputs similarly). */
export const MAX_FOLLOW_SECONDS = 60;

export interface Size {
  width: number;
  height: number;
}

function even(n: number): number {
  return Math.max(2, Math.round(n / 2) * 2);
}

export function parseAspectRatio(ratio: string): { w: number; h: number } {
  const m = /^(\d+):(\d+)$/.exec(ratio);
  if (!m) throw new RangeError(`not an aspect ratio: ${ratio}`);
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (w <= 0 || h <= 0) throw new RangeError(`not an aspect ratio: ${ratio}`);
  return { w, h };
}

export function frameSize(kind: MediaKind, aspectRatio: string, resolution: string): Size {
  const { w, h } = parseAspectRatio(aspectRatio);
  if (kind === "image") {
    const long = IMAGE_LONG_SIDE[resolution];
    if (long === undefined) throw new RangeError(`unknown image resolution: ${resolution}`);
    return w >= h ? { width: long, height: even((long * h) / w) } : { width: even((long * w) / h), height: long };
  }
  const short = VIDEO_SHORT_SIDE[resolution];
  if (short === undefined) throw new RangeError(`unknown video resolution: ${resolution}`);
  return w >= h ? { width: even((short * w) / h), height: short } : { width: short, height: even((short * h) / w) };
}

/** Upscale output: twice the source, the short side capped at 2160, even. */
export function upscaleSize(source: Size): Size {
  const short = Math.min(source.width, source.height);
  const factor = Math.min(2, 2160 / Math.max(1, short));
  return { width: even(source.width * factor), height: even(source.height * factor) };
}

/** Models that follow their source (edit, motion, extend) keep its size, made even. */
export function followSize(source: Size): Size {
  return { width: even(source.width), height: even(source.height) };
}

/** Ratios an output is named by when its size is (within 1 %) one of them; others are reduced w:h. */
const NAMED_RATIOS = ["21:9", "16:9", "3:2", "4:3", "5:4", "1:1", "4:5", "3:4", "2:3", "9:16"];

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The aspect ratio of a size, as `generation_params` names it for models that follow their source:
 * the usual name when the size is that ratio give or take the rounding to even pixels.
 */
export function aspectRatioName(size: Size): string {
  const r = size.width / size.height;
  for (const name of NAMED_RATIOS) {
    const { w, h } = parseAspectRatio(name);
    if (Math.abs(r - w / h) / (w / h) < 0.01) return name;
  }
  const g = gcd(size.width, size.height);
  return `${size.width / g}:${size.height / g}`;
}

/** A video's resolution name from its short side: the usual names, else `<short>p`. */
export function videoResolutionName(size: Size): string {
  const short = Math.min(size.width, size.height);
  const named = Object.entries(VIDEO_SHORT_SIDE).find(([, px]) => px === short);
  return named ? named[0] : `${short}p`;
}
