/**
 * Pixel size of a PNG, JPEG or WebP from its header, without a decoder, and the limit on what the
 * renderers will decode. A 16000×16000 PNG of one colour is under 1 MB on the wire but a gigabyte
 * once decoded (a decompression bomb), so every picture a caller supplies is measured here first and
 * refused past MAX_IMAGE_SIDE or MAX_IMAGE_PIXELS; the decoders get the same bound (`-max_pixels`).
 */
import fs from "node:fs";
import { MediaInputError } from "./errors.js";

export interface ImageSize {
  width: number;
  height: number;
  type: "png" | "jpeg" | "webp";
}

/** Longest side, in pixels, of a supplied picture (as the renderers' own MAX_SIDE). */
export const MAX_IMAGE_SIDE = 8192;
/** Most pixels of a supplied picture, or of any frame a decoder is asked to make: 40 MP (about 160 MB as RGBA). */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** Decoder options for every input read from a file: a frame over the limit is an error, not an allocation. */
export const DECODE_LIMIT_ARGS: readonly string[] = ["-max_pixels", String(MAX_IMAGE_PIXELS)];

/** A supplied picture over the limits: the caller's input, named by its field. */
export class ImageTooLargeError extends MediaInputError {
  readonly tooLarge = true;
}

type Read = (offset: number, length: number) => Buffer;

export function readImageSize(buf: Buffer): ImageSize | undefined {
  return sizeFrom((offset, length) => buf.subarray(offset, Math.min(buf.length, offset + length)));
}

/** The size of the picture in `file`, reading only its header (and, for a JPEG, its segment headers). */
export function readImageFileSize(file: string): ImageSize | undefined {
  const fd = fs.openSync(file, "r");
  try {
    return sizeFrom((offset, length) => {
      const b = Buffer.alloc(length);
      const n = fs.readSync(fd, b, 0, length, offset);
      return b.subarray(0, n);
    });
  } finally {
    fs.closeSync(fd);
  }
}

function sizeFrom(read: Read): ImageSize | undefined {
  const head = read(0, 30);
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47 && head.toString("ascii", 12, 16) === "IHDR") {
    return { type: "png", width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  }
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8) return jpegSize(read);
  if (head.length >= 30 && head.toString("ascii", 0, 4) === "RIFF" && head.toString("ascii", 8, 12) === "WEBP") {
    return webpSize(head);
  }
  return undefined;
}

/** Walks the JPEG's segments (however long its EXIF) to the first frame header. */
function jpegSize(read: Read): ImageSize | undefined {
  let i = 2;
  for (let steps = 0; steps < 10_000; steps++) {
    const b = read(i, 9);
    if (b.length < 2 || b[0] !== 0xff) return undefined;
    const marker = b[1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    if (b.length < 4) return undefined;
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (b.length < 9) return undefined;
      return { type: "jpeg", height: b.readUInt16BE(5), width: b.readUInt16BE(7) };
    }
    i += 2 + b.readUInt16BE(2);
  }
  return undefined;
}

function webpSize(buf: Buffer): ImageSize | undefined {
  const chunk = buf.toString("ascii", 12, 16);
  if (chunk === "VP8X") {
    return { type: "webp", width: 1 + buf.readUIntLE(24, 3), height: 1 + buf.readUIntLE(27, 3) };
  }
  if (chunk === "VP8 ") {
    return { type: "webp", width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === "VP8L") {
    const b = buf.readUInt32LE(21);
    return { type: "webp", width: 1 + (b & 0x3fff), height: 1 + ((b >> 14) & 0x3fff) };
  }
  return undefined;
}

/** Why a picture of this size is refused, or undefined when it is within the limits. */
export function imageSizeProblem(width: number, height: number): string | undefined {
  if (width <= MAX_IMAGE_SIDE && height <= MAX_IMAGE_SIDE && width * height <= MAX_IMAGE_PIXELS) return undefined;
  const mp = Math.round((width * height) / 100_000) / 10;
  return `the image is ${width}×${height} pixels (${mp} MP); at most ${MAX_IMAGE_SIDE} pixels a side and ${MAX_IMAGE_PIXELS / 1_000_000} MP are accepted`;
}

/** A local picture over the size limits, from its header; undefined when within them, missing or not measurable. */
export function localImageProblem(file: string): string | undefined {
  let size: ImageSize | undefined;
  try {
    size = readImageFileSize(file);
  } catch {
    return undefined;
  }
  return size ? imageSizeProblem(size.width, size.height) : undefined;
}

/**
 * Checks a supplied picture before anything decodes it: a PNG, JPEG or WebP within the limits. An
 * image that is none of the three (whatever its extension says) is refused too, since ffmpeg would
 * otherwise find a decoder for it by its content and decode it whole.
 */
export function checkImageFile(file: string, field: string): ImageSize {
  let size: ImageSize | undefined;
  try {
    size = readImageFileSize(file);
  } catch {
    size = undefined;
  }
  if (!size || size.width <= 0 || size.height <= 0) throw new MediaInputError(`${field}: not a PNG, JPEG or WebP image`, field);
  const problem = imageSizeProblem(size.width, size.height);
  if (problem) throw new ImageTooLargeError(`${field}: ${problem}`, field);
  return size;
}
