/** Shared fixtures for the media tests: temp dirs and small real inputs made with the real ffmpeg. */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Tools } from "../../src/media/index.js";
import { ff } from "../helpers/fixture-ffmpeg.js";

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  process.env.MEDIAGEN_HOME = path.join(dir, "home");
  return dir;
}

/** A small H.264 test-pattern clip (moving counter), without audio. */
export function makeVideo(tools: Tools, file: string, o: { seconds: number; size?: string; rate?: number }): string {
  ff(tools, [
    "-f",
    "lavfi",
    "-i",
    `testsrc=s=${o.size ?? "160x120"}:r=${o.rate ?? 25}:d=${o.seconds}`,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    "-f",
    "mp4",
    file,
  ]);
  return file;
}

/** A solid-colour PNG with a pattern (so references differ visibly from each other). */
export function makeImage(tools: Tools, file: string, o: { size: string; source?: string }): string {
  ff(tools, ["-f", "lavfi", "-i", `${o.source ?? "testsrc2"}=s=${o.size}:d=1`, "-frames:v", "1", "-c:v", "png", "-f", "image2", "-update", "1", file]);
  return file;
}

export function sha(file: string): string {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

export function isPng(file: string): boolean {
  const b = fs.readFileSync(file);
  return b.length > 8 && b.readUInt32BE(0) === 0x89504e47;
}

export function isJpeg(file: string): boolean {
  const b = fs.readFileSync(file);
  return b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
}

/** Files in `dir` (not recursive) whose names mark them as our temp outputs. */
export function leftoverTemps(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"));
}
