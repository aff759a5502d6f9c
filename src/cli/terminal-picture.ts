/**
 * `--show`: draws a saved picture (or a frame of a saved video) inline, on terminals that announce
 * that they can: kitty's graphics protocol (kitty, Ghostty) or iTerm2's inline images (iTerm2,
 * WezTerm). Everywhere else — a pipe, `--json`, tmux, any other terminal — it says nothing, so the
 * output reads the same as without the flag. Sixel is not drawn: it needs an encoder (libsixel or an
 * ffmpeg built with it) that this machine's tools do not offer.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { readEnv, type Env } from "../config/env.js";

export type PictureProtocol = "kitty" | "iterm2";

/** Which protocol this terminal announces (from its environment), if any. */
export function pictureProtocol(env: Env): PictureProtocol | undefined {
  if (readEnv("TMUX", env)) return undefined;
  const term = readEnv("TERM", env) ?? "";
  const program = readEnv("TERM_PROGRAM", env) ?? "";
  if (term === "xterm-kitty" || readEnv("KITTY_WINDOW_ID", env) || term === "xterm-ghostty" || program === "ghostty") return "kitty";
  if (program === "iTerm.app" || program === "WezTerm" || readEnv("LC_TERMINAL", env) === "iTerm2") return "iterm2";
  return undefined;
}

/**
 * The pixel cap of every picture mediagen decodes (src/media/image-header.ts MAX_IMAGE_SIDE and
 * MAX_IMAGE_PIXELS: the CLI frame does not load the media layer): a 16000×16000 PNG from a download
 * is under a megabyte and a gigabyte once a terminal decodes it.
 */
const MAX_SIDE = 8192;
const MAX_PIXELS = 40_000_000;
/** How much of a file is read to find its size (a JPEG's frame header may follow its metadata). */
const HEADER_BYTES = 256 * 1024;

/** Width and height from a PNG, GIF, WebP or JPEG header; undefined when not one of them (or cut short). */
export function pictureSize(b: Buffer): { width: number; height: number } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString("latin1", 12, 16) === "IHDR") return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && b.toString("latin1", 0, 4) === "GIF8") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") {
    const chunk = b.toString("latin1", 12, 16);
    if (chunk === "VP8X") return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    if (chunk === "VP8L") return { width: 1 + (b[21]! | ((b[22]! & 0x3f) << 8)), height: 1 + ((b[22]! >> 6) | (b[23]! << 2) | ((b[24]! & 0x0f) << 10)) };
    if (chunk === "VP8 ") return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    for (let i = 2; i + 9 < b.length; ) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      i += 2 + b.readUInt16BE(i + 2);
    }
  }
  return undefined;
}

/** Whether the picture in `file` is one the terminal may be asked to decode: a known format within the cap. */
function withinCap(file: string): boolean {
  const fd = fs.openSync(file, "r");
  try {
    const b = Buffer.alloc(HEADER_BYTES);
    const size = pictureSize(b.subarray(0, fs.readSync(fd, b, 0, HEADER_BYTES, 0)));
    return !!size && size.width <= MAX_SIDE && size.height <= MAX_SIDE && size.width * size.height <= MAX_PIXELS;
  } finally {
    fs.closeSync(fd);
  }
}

/** Width of the drawn picture, in terminal cells. */
const CELLS = 40;
/** Largest file sent as is (an image); a bigger one is drawn from a scaled frame. */
const MAX_DIRECT = 4 * 1024 * 1024;
const KITTY_CHUNK = 4096;
const IMAGE = /\.(png|jpe?g|gif|webp)$/i;
const VIDEO_OR_IMAGE = /\.(png|jpe?g|gif|webp|mp4|m4v|mov|webm)$/i;

/**
 * The ffmpeg to draw a frame with: MEDIAGEN_FFMPEG, else the one on PATH, else the copy npm installs
 * (a fresh machine has only that). The media layer's discovery is not reachable from the CLI frame,
 * and a picture needs no capability check: the first that runs is enough.
 */
function ffmpegCandidates(env: Env): string[] {
  const chosen = readEnv("MEDIAGEN_FFMPEG", env);
  if (chosen) return [chosen];
  const list = ["ffmpeg"];
  try {
    const npm = (createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg") as { path?: string }).path;
    if (npm && fs.existsSync(npm)) list.push(npm);
  } catch {
    // package missing or platform unsupported (it throws a plain string)
  }
  return list;
}

/** A PNG of the file's first frame, scaled down, by one ffmpeg (undefined when it cannot be made). */
function framePngWith(ffmpeg: string, file: string, env: Env): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    // The decoder gets the same cap: a frame over it is an error, not a gigabyte of memory.
    const args = [
      "-v",
      "error",
      "-max_pixels",
      String(MAX_PIXELS),
      "-ss",
      "0",
      "-i",
      file,
      "-frames:v",
      "1",
      "-vf",
      "scale='min(640,iw)':-2",
      "-f",
      "image2pipe",
      "-c:v",
      "png",
      "-",
    ];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(ffmpeg, args, { stdio: ["ignore", "pipe", "ignore"], env: env as NodeJS.ProcessEnv });
    } catch {
      return resolve(undefined);
    }
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", () => resolve(undefined));
    child.on("close", (code) => resolve(code === 0 && chunks.length ? Buffer.concat(chunks) : undefined));
  });
}

/** A PNG of the file's first frame, scaled down, made by the first ffmpeg that can (undefined when none can). */
async function framePng(file: string, env: Env): Promise<Buffer | undefined> {
  for (const ffmpeg of ffmpegCandidates(env)) {
    const png = await framePngWith(ffmpeg, file, env);
    if (png) return png;
  }
  return undefined;
}

/** kitty: PNG data (f=100), transmitted and shown at once (a=T), in chunks of 4096 base64 bytes. */
export function kittyEscape(png: Buffer): string {
  const b64 = png.toString("base64");
  let out = "";
  for (let i = 0; i < b64.length; i += KITTY_CHUNK) {
    const more = i + KITTY_CHUNK < b64.length ? 1 : 0;
    const head = i === 0 ? `a=T,f=100,c=${CELLS},q=2,m=${more}` : `m=${more}`;
    out += `\x1b_G${head};${b64.slice(i, i + KITTY_CHUNK)}\x1b\\`;
  }
  return `${out}\n`;
}

/** iTerm2: the file itself, any format the terminal reads, as an OSC 1337 inline image. */
export function itermEscape(data: Buffer, name: string): string {
  const args = `name=${Buffer.from(name).toString("base64")};size=${data.length};inline=1;width=${CELLS};preserveAspectRatio=1`;
  return `\x1b]1337;File=${args}:${data.toString("base64")}\x07\n`;
}

export interface PictureTerminal {
  /** Writes to the terminal as is. */
  write(text: string): void;
  isTTY: boolean;
  env: Env;
}

/**
 * Draws `file` when the terminal can; resolves false (and writes nothing) otherwise. Never throws:
 * a picture that cannot be drawn is not the command's failure.
 */
export async function showPicture(term: PictureTerminal, file: string): Promise<boolean> {
  if (!term.isTTY || !VIDEO_OR_IMAGE.test(file)) return false;
  const protocol = pictureProtocol(term.env);
  if (!protocol) return false;
  try {
    let data: Buffer | undefined;
    // A picture is measured from its header before anything decodes it: over the cap, nothing is drawn.
    if (IMAGE.test(file) && !withinCap(file)) return false;
    const direct = IMAGE.test(file) && fs.statSync(file).size <= MAX_DIRECT;
    // iTerm2 reads any image; kitty's f=100 is PNG only; a video is shown by its first frame.
    if (direct && (protocol === "iterm2" || /\.png$/i.test(file))) data = fs.readFileSync(file);
    else data = await framePng(file, term.env);
    if (!data) return false;
    term.write(protocol === "kitty" ? kittyEscape(data) : itermEscape(data, path.basename(file)));
    return true;
  } catch {
    return false;
  }
}
