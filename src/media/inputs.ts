/** Validation shared by the renderers: bad input fails fast with the field named, before any tool runs. */
import fs from "node:fs";
import { MediaInputError } from "./errors.js";

export const MAX_SIDE = 8192;

export function checkSize(width: number, height: number): void {
  for (const [field, v] of [
    ["width", width],
    ["height", height],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_SIDE) {
      throw new MediaInputError(`${field} must be an integer from 1 to ${MAX_SIDE} (got ${v})`, field);
    }
  }
}

export function checkFile(p: string | undefined, field: string): void {
  if (p === undefined) return;
  let ok = false;
  try {
    ok = fs.statSync(p).isFile();
  } catch {
    ok = false;
  }
  if (!ok) throw new MediaInputError(`${field}: no such file: ${p}`, field);
}

export function checkOut(p: string, field: string): void {
  if (typeof p !== "string" || p.trim() === "") throw new MediaInputError(`${field} is required`, field);
}

/** Reads width/height from a PNG's IHDR chunk. */
export function pngSize(file: string): { width: number; height: number } | undefined {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(24);
    if (fs.readSync(fd, buf, 0, 24, 0) < 24) return undefined;
    if (buf.readUInt32BE(0) !== 0x89504e47 || buf.toString("latin1", 12, 16) !== "IHDR") return undefined;
    return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  } finally {
    fs.closeSync(fd);
  }
}
