/**
 * Helpers for writing ffmpeg filtergraphs: escaping option values (two levels: the option parser,
 * then the graph parser), numbers that never print in exponent form, and colours from a hash.
 */

/** Escapes a value used as `key=value` inside a filtergraph (paths, text). */
export function escapeFilterValue(v: string): string {
  const level1 = v.replace(/[\\':]/g, (c) => `\\${c}`);
  return level1.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

/** A number formatted for ffmpeg expressions (fixed, no exponent, trimmed). */
export function num(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  if (Number.isInteger(n)) return String(n);
  return n.toFixed(6).replace(/0+$/, "").replace(/\.$/, "");
}

/** `0xRRGGBB` from HSL (h in degrees, s and l in 0..1). */
export function hslHex(h: number, s: number, l: number): string {
  const k = (n: number): number => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): number => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  const to = (x: number): string =>
    Math.round(Math.max(0, Math.min(1, x)) * 255)
      .toString(16)
      .padStart(2, "0");
  return `0x${to(f(0))}${to(f(8))}${to(f(4))}`;
}

/** Rounds a pixel size up to even (x264 with yuv420p refuses odd sizes). */
export function even(n: number): number {
  const r = Math.max(2, Math.round(n));
  return r % 2 === 0 ? r : r + 1;
}
