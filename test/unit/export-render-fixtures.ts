/**
 * Fixtures for the export renderer's tests: small real inputs made with the real ffmpeg (solid colours,
 * so layouts can be checked by sampling pixels), a RenderSpec builder on the 30 fps grid, and readers
 * of what ffmpeg actually wrote (frames as RGB, audio levels, the ffmpeg processes of a job). Inputs
 * are made and outputs read with the instruments' ffmpeg (test/helpers/fixture-ffmpeg.ts).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { probe, type Tools } from "../../src/media/index.js";
import { THUMBNAIL_JPEG_ARGS } from "../../src/media/image.js";
import type { MediaShow, RenderExportResult, RenderSpec } from "../../src/media/export/index.js";
import { ff, fixtureTools } from "../helpers/fixture-ffmpeg.js";

/** A solid-colour picture (PNG or JPEG by extension). */
export function solidImage(tools: Tools, file: string, color: string, size: string): string {
  ff(tools, ["-f", "lavfi", "-i", `color=c=${color}:s=${size}:d=1`, "-frames:v", "1", "-update", "1", file]);
  return file;
}

/** A solid-colour H.264 clip with temporal luma noise (every frame differs), optional audio, VFR. */
export function solidVideo(tools: Tools, file: string, o: { color: string; size: string; seconds: number; rate?: number; audio?: boolean; vfr?: boolean }): string {
  const args = ["-f", "lavfi", "-i", `color=c=${o.color}:s=${o.size}:r=${o.rate ?? 25}:d=${o.seconds},format=yuv420p,noise=c0s=12:c0f=t`];
  if (o.audio) args.push("-f", "lavfi", "-i", `sine=f=300:d=${o.seconds}`);
  // Variable frame rate: drop every third frame and keep the timestamps as they are.
  if (o.vfr) args.push("-vf", "select='not(eq(mod(n,3),2))'", vfrOption(fixtureTools(tools)), "vfr");
  args.push("-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p");
  if (o.audio) args.push("-c:a", "aac", "-shortest");
  args.push("-f", "mp4", file);
  ff(tools, args);
  return file;
}

const timingOptions = new Map<string, string>();
/** `-fps_mode` where this ffmpeg has it (5.1+), else the older `-vsync` (the npm copy is 4.1). */
function vfrOption(tools: Tools): string {
  let option = timingOptions.get(tools.ffmpeg);
  if (!option) {
    const help = execFileSync(tools.ffmpeg, ["-hide_banner", "-h", "long"], { encoding: "utf8", maxBuffer: 16 << 20 });
    option = /-fps_mode\b/.test(help) ? "-fps_mode" : "-vsync";
    timingOptions.set(tools.ffmpeg, option);
  }
  return option;
}

/** A WAV of a tone (stands in for speech: the renderer only needs a WAV per sentence). */
export function toneWav(tools: Tools, file: string, seconds: number, freq = 440): string {
  ff(tools, ["-f", "lavfi", "-i", `sine=f=${freq}:d=${seconds}:sample_rate=22050`, "-ac", "1", "-c:a", "pcm_s16le", file]);
  return file;
}

/** A music file (chords-ish noise), MP3 when the build can, else WAV. */
export function musicFile(tools: Tools, file: string, seconds: number): string {
  ff(tools, ["-f", "lavfi", "-i", `aevalsrc=0.2*sin(2*PI*220*t)+0.2*sin(2*PI*330*t)|0.2*sin(2*PI*277*t):s=44100:d=${seconds}`, file]);
  return file;
}

export interface SeqDef {
  seconds: number;
  /** null: silent sequence. */
  text?: string | null;
  look?: string | null;
  media?: { kind: "image" | "video"; path: string; show: MediaShow; trim_start?: number };
  /** WAV per sentence (one sentence per sequence here). */
  wav?: string;
}

/** A RenderSpec on the 30 fps grid: sequences back to back, one sentence each. */
export function buildSpec(seqs: SeqDef[], o: { width: number; height: number; subtitles?: boolean; music?: string; transitions?: boolean }): RenderSpec {
  const fps = 30;
  const ms = (frame: number): number => Math.round((frame * 1000) / fps);
  let frame = 0;
  const sequences = seqs.map((s) => {
    const start = frame;
    frame += Math.round(s.seconds * fps);
    const text = s.text === undefined ? "A short sentence of speech for this part" : s.text;
    return {
      text,
      start_ms: ms(start),
      end_ms: ms(frame),
      look_image_path: s.look === undefined ? null : s.look,
      media: s.media,
      sentences: text && s.wav ? [{ text, start_ms: ms(start), end_ms: ms(frame), audio_path: s.wav }] : [],
    };
  });
  return {
    width: o.width,
    height: o.height,
    fps,
    duration_ms: ms(frame),
    options: { subtitles: o.subtitles ?? false, music: o.music !== undefined, transitions: o.transitions ?? false },
    music_path: o.music,
    blocks: [{ start_ms: 0, end_ms: ms(frame), sequences }],
  };
}

/** Frame `n` of a video as RGB24 (w×h), scaled to w×h. */
export function frameRgb(tools: Tools, file: string, n: number, w: number, h: number): Buffer {
  return execFileSync(
    fixtureTools(tools).ffmpeg,
    [
      "-hide_banner",
      "-nostdin",
      "-loglevel",
      "error",
      "-i",
      file,
      "-vf",
      `select=eq(n\\,${n}),scale=${w}:${h}:flags=neighbor`,
      "-frames:v",
      "1",
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-",
    ],
    { maxBuffer: 64 << 20 },
  );
}

/**
 * Frames `ns` of a video as RGB24 (w×h each, in the order asked), decoded in one ffmpeg run: the same
 * pictures as frameRgb gives one by one, for one decode of the file instead of one per frame.
 */
export function framesRgb(tools: Tools, file: string, ns: readonly number[], w: number, h: number): Buffer[] {
  const wanted = [...new Set(ns)].sort((a, b) => a - b);
  const select = wanted.map((n) => `eq(n\\,${n})`).join("+");
  const reader = fixtureTools(tools);
  const raw = execFileSync(
    reader.ffmpeg,
    [
      "-hide_banner",
      "-nostdin",
      "-loglevel",
      "error",
      "-i",
      file,
      "-vf",
      `select=${select},scale=${w}:${h}:flags=neighbor`,
      // One output frame per selected frame: no frame duplicated to fill the gaps between them.
      vfrOption(reader),
      "passthrough",
      "-frames:v",
      String(wanted.length),
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-",
    ],
    { maxBuffer: 256 << 20 },
  );
  const size = w * h * 3;
  expect(raw.length, `frames ${wanted.join(",")} of ${path.basename(file)}`).toBe(size * wanted.length);
  return ns.map((n) => raw.subarray(wanted.indexOf(n) * size, (wanted.indexOf(n) + 1) * size));
}

/** The pixel at (fx, fy) of each of frames `ns`, from one decode (see framesRgb). */
export function pixelsAt(
  tools: Tools,
  file: string,
  w: number,
  h: number,
  points: ReadonlyArray<readonly [n: number, fx: number, fy: number]>,
): Array<[number, number, number]> {
  const frames = framesRgb(
    tools,
    file,
    points.map(([n]) => n),
    w,
    h,
  );
  return points.map(([, fx, fy], i) => pixel(frames[i]!, w, h, fx, fy));
}

/** The RGB pixel at (fx, fy), fractions of the frame (w×h as passed to frameRgb). */
export function pixel(buf: Buffer, w: number, h: number, fx: number, fy: number): [number, number, number] {
  const x = Math.min(w - 1, Math.floor(fx * w));
  const y = Math.min(h - 1, Math.floor(fy * h));
  const i = (y * w + x) * 3;
  return [buf[i]!, buf[i + 1]!, buf[i + 2]!];
}

/** Frame `n` of a video as a w×h JPEG beside it, made as a thumbnail decoded back from the file would be. */
export function jpegOfFrame(tools: Tools, file: string, n: number, w: number, h: number): string {
  const jpeg = `${file}.frame-${n}.jpg`;
  execFileSync(fixtureTools(tools).ffmpeg, [
    ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-i", file],
    ...["-vf", `select=eq(n\\,${n}),scale=${w}:${h},setsar=1`, "-frames:v", "1", ...THUMBNAIL_JPEG_ARGS, jpeg],
  ]);
  return jpeg;
}

/**
 * The average R, G and B of each `block`×`block` square of an RGB24 frame (w×h), row by row: a
 * picture's shape without its grain, to compare two encodings of one frame.
 */
export function blockMeans(buf: Buffer, w: number, h: number, block: number): number[] {
  const out: number[] = [];
  for (let by = 0; by + block <= h; by += block) {
    for (let bx = 0; bx + block <= w; bx += block) {
      const sum = [0, 0, 0];
      for (let y = by; y < by + block; y++) {
        for (let x = bx; x < bx + block; x++) for (let c = 0; c < 3; c++) sum[c]! += buf[(y * w + x) * 3 + c]!;
      }
      out.push(...sum.map((v) => v / (block * block)));
    }
  }
  return out;
}

/** Mean volume (dB) of the audio between a and a+d seconds, from ffmpeg's volumedetect. */
export function meanVolumeDb(tools: Tools, file: string, a: number, d: number): number {
  const r = spawnSync(
    fixtureTools(tools).ffmpeg,
    ["-hide_banner", "-nostdin", "-ss", String(a), "-t", String(d), "-i", file, "-af", "volumedetect", "-vn", "-f", "null", "-"],
    {
      encoding: "utf8",
    },
  );
  const m = /mean_volume:\s*(-?[\d.]+|-inf) dB/.exec(r.stderr);
  if (!m) throw new Error(`no mean_volume in: ${r.stderr.slice(-500)}`);
  return m[1] === "-inf" ? -Infinity : Number(m[1]);
}

/**
 * Mean volume (dB) of several windows [a, a+d) of the audio, from one ffmpeg run (a volumedetect per
 * window on the decoded samples: the figures meanVolumeDb gives one run each).
 */
export function meanVolumesDb(tools: Tools, file: string, windows: ReadonlyArray<readonly [a: number, d: number]>): number[] {
  const n = windows.length;
  const graph = [
    `[0:a]asplit=${n}${windows.map((_, i) => `[s${i}]`).join("")}`,
    ...windows.map(([a, d], i) => `[s${i}]atrim=start=${a}:duration=${d},volumedetect[v${i}]`),
  ].join(";");
  const outs = windows.flatMap((_, i) => ["-map", `[v${i}]`, "-f", "null", "-"]);
  const r = spawnSync(fixtureTools(tools).ffmpeg, ["-hide_banner", "-nostdin", "-i", file, "-filter_complex", graph, ...outs], { encoding: "utf8" });
  // Each report names its filter instance (Parsed_volumedetect_<index in the graph>): windows in order.
  const found = new Map<number, number>();
  for (const m of r.stderr.matchAll(/Parsed_volumedetect_(\d+) @ [^\]]+\] mean_volume:\s*(-?[\d.]+|-inf) dB/g)) {
    found.set(Number(m[1]), m[2] === "-inf" ? -Infinity : Number(m[2]));
  }
  const order = [...found.keys()].sort((x, y) => x - y);
  if (order.length !== n) throw new Error(`expected ${n} mean_volume reports in: ${r.stderr.slice(-1500)}`);
  return order.map((k) => found.get(k)!);
}

/** Pids of live processes whose working directory is inside `dir` (the job's ffmpeg runs there). */
export function processesIn(dir: string): number[] {
  const real = fs.realpathSync(dir);
  const pids: number[] = [];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${d}/cwd`);
      if (cwd.startsWith(real + path.sep)) pids.push(Number(d));
    } catch {
      // not ours, or gone
    }
  }
  return pids;
}

/**
 * Which of `pids` (seen running in `dir`) are still running there after up to `waitMs`. A pid is
 * checked against its working directory too: under load the system can hand a finished job's pid to
 * another process. The wait is for the kernel, not the product: the tool itself has been reaped
 * when the render settles, but the rest of its group (the watchdog shell) was sent SIGKILL at the
 * same moment and ends only when next scheduled, which on a loaded machine can be a moment later.
 */
export async function stillRunningIn(dir: string, pids: readonly number[], waitMs = 5_000): Promise<number[]> {
  const until = Date.now() + waitMs;
  for (;;) {
    const now = new Set(processesIn(dir));
    const left = pids.filter((p) => now.has(p) && alive(p));
    if (left.length === 0 || Date.now() >= until) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead but still listed until reaped.
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/** Everything in `dir` that looks like a leftover of a job (temp files and work dirs). */
export function leftovers(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith(".tmp") || f.startsWith("."));
}

/** The checks every export must pass, on the file itself: streams, exact size and frames, duration. */
export async function expectValid(tools: Tools, out: string, spec: RenderSpec, r: RenderExportResult): Promise<void> {
  const p = await probe(out, { tools: fixtureTools(tools) });
  const frames = Math.round((spec.duration_ms * 30) / 1000);
  expect([p.videoCodec, p.audioCodec, p.audioSampleRate, p.streams]).toEqual(["h264", "aac", 48000, 2]);
  expect([p.width, p.height]).toEqual([spec.width, spec.height]);
  expect(p.videoFrames).toBe(frames);
  expect(Math.abs(p.durationSeconds - frames / 30)).toBeLessThanOrEqual(1 / 30);
  expect(r.frames).toBe(frames);
  expect(leftovers(path.dirname(out))).toEqual([]);
}

export const isRed = ([r, g, b]: number[]): boolean => r! > 180 && g! < 80 && b! < 80;
export const isBlue = ([r, g, b]: number[]): boolean => b! > 180 && r! < 80 && g! < 80;
export const isGreen = ([r, g, b]: number[]): boolean => g! > 150 && r! < 100 && b! < 100;
export const isDark = ([r, g, b]: number[]): boolean => r! < 45 && g! < 45 && b! < 45;
