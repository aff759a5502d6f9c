/**
 * The export renderer on the fallback a fresh machine gets: npm's static ffmpeg 4.1 (no xfade, old
 * amix that divides by its input count, `-vsync` instead of `-fps_mode`, `out_time_ms` progress).
 * Forced with MEDIAGEN_MEDIA_FALLBACK=1; each test file runs in its own process, so the tool cache is
 * this file's own. Same checks as on the system ffmpeg, on real files.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearToolsCache, getTools, type Tools } from "../../src/media/index.js";
import { ExportError, exportCaps, exportSize, renderExport, type ExportStep } from "../../src/media/export/index.js";
import { tempDir } from "./media-fixtures.js";
import {
  stillRunningIn,
  buildSpec,
  expectValid,
  isBlue,
  isDark,
  isGreen,
  isRed,
  meanVolumeDb,
  musicFile,
  pixelsAt,
  processesIn,
  solidImage,
  solidVideo,
  toneWav,
} from "./export-render-fixtures.js";

let tools: Tools;
let dir: string;
let f: { red: string; blue: string; green: string; wav: string; music: string };

beforeAll(async () => {
  for (const k of ["MEDIAGEN_FFMPEG", "MEDIAGEN_FFPROBE", "MEDIAGEN_ESPEAK"]) delete process.env[k];
  process.env.MEDIAGEN_MEDIA_FALLBACK = "1";
  clearToolsCache();
  tools = await getTools();
  dir = tempDir();
  f = {
    red: solidImage(tools, path.join(dir, "avatar.png"), "red", "360x640"),
    blue: solidImage(tools, path.join(dir, "still.jpg"), "blue", "320x180"),
    green: solidVideo(tools, path.join(dir, "clip.mp4"), { color: "0x00ff00", size: "320x180", seconds: 1 }),
    wav: toneWav(tools, path.join(dir, "speech.wav"), 0.9),
    music: musicFile(tools, path.join(dir, "music.mp3"), 2),
  };
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("renderExport on the npm ffmpeg 4.1 fallback", () => {
  it("uses the npm ffmpeg, which has no xfade and the old amix", async () => {
    expect(tools.source).toBe("npm");
    expect(tools.ffmpeg).toMatch(/node_modules[\\/]@ffmpeg-installer/);
    const caps = await exportCaps(tools);
    expect(caps).toMatchObject({ xfade: false, amixNormalize: false, timing: ["-vsync", "passthrough"], libass: true });
  });

  it("draws every layout, fades through black, burns subtitles, mixes music: exact frames and size", async () => {
    const W = 180;
    const H = 320;
    const seqs = [
      { seconds: 1, look: f.red },
      { seconds: 1, look: f.red, media: { kind: "image" as const, path: f.blue, show: "full" as const } },
      { seconds: 1, look: f.red, media: { kind: "video" as const, path: f.green, show: "full" as const } },
      { seconds: 1, look: f.red, media: { kind: "video" as const, path: f.green, show: "half" as const } },
      { seconds: 1, look: f.red, media: { kind: "image" as const, path: f.blue, show: "background" as const } },
      { seconds: 1, look: f.red, media: { kind: "video" as const, path: f.green, show: "background" as const } },
    ].map((s) => ({ ...s, wav: f.wav }));
    const spec = buildSpec(seqs, { width: W, height: H, transitions: true, subtitles: true, music: f.music });
    const seen: Array<[ExportStep, number]> = [];
    const out = path.join(dir, "layouts.mp4");
    // Asking for xfade where there is none gives the fallback and says so.
    const r = await renderExport(spec, { outPath: out, tools, xfade: true, onProgress: (s, p) => seen.push([s, p]) });
    await expectValid(tools, out, spec, r);
    expect(r.usedXfade).toBe(false);
    expect(r.warnings.join(" ")).toMatch(/no xfade/);
    // Every pixel checked below, from one decode of the file.
    const points = [
      [15, 0.5, 0.4],
      [30, 0.5, 0.4],
      [45, 0.5, 0.4],
      [75, 0.5, 0.4],
      [105, 0.5, 0.25],
      [105, 0.5, 0.75],
      [135, 0.5, 0.4],
      [135, 0.03, 0.02],
      [165, 0.5, 0.4],
      [165, 0.03, 0.5],
    ] as const;
    const got = pixelsAt(tools, out, W, H, points);
    const px = (n: number, x = 0.5, y = 0.4): number[] => got[points.findIndex(([pn, pxx, pyy]) => pn === n && pxx === x && pyy === y)]!;
    expect(isRed(px(15))).toBe(true);
    expect(isDark(px(30))).toBe(true); // through black into the second sequence
    expect(isBlue(px(45))).toBe(true);
    expect(isGreen(px(75))).toBe(true);
    expect([isGreen(px(105, 0.5, 0.25)), isRed(px(105, 0.5, 0.75))]).toEqual([true, true]);
    expect([isRed(px(135)), isBlue(px(135, 0.03, 0.02))]).toEqual([true, true]);
    expect([isRed(px(165)), isGreen(px(165, 0.03, 0.5))]).toEqual([true, true]);
    // 4.1 reports out_time_ms (in microseconds): progress still grows to 100.
    for (let i = 1; i < seen.length; i++) expect(seen[i]![1]).toBeGreaterThanOrEqual(seen[i - 1]![1]);
    expect(seen.some(([s, p]) => s === "render" && p > 10 && p < 96)).toBe(true);
    expect(seen.at(-1)).toEqual(["render", 100]);
  });

  it("keeps the voice level with the old amix and music in silent sequences", async () => {
    const seqs = [
      { seconds: 1, look: f.red, wav: f.wav },
      { seconds: 1.5, look: f.red, text: null },
    ];
    const spec = buildSpec(seqs, { width: 180, height: 320, music: f.music });
    const out = path.join(dir, "music.mp4");
    const r = await renderExport(spec, { outPath: out, tools });
    await expectValid(tools, out, spec, r);
    expect(meanVolumeDb(tools, out, 0.1, 0.8)).toBeGreaterThan(-35);
    expect(meanVolumeDb(tools, out, 1.2, 1.0)).toBeGreaterThan(-45);
  });

  it("renders odd custom sizes rounded to even, and landscape", async () => {
    for (const [w, h] of [
      [721, 405],
      [1920, 1080],
    ] as const) {
      const s = exportSize("custom", { width: w, height: h });
      // Two frames: the size is the same on every frame (a one-frame run writes no video stream on 4.1).
      const spec = buildSpec([{ seconds: 2 / 30, look: f.red, media: { kind: "video", path: f.green, show: "half" }, wav: f.wav }], { width: s.width, height: s.height });
      const out = path.join(dir, `size-${w}.mp4`);
      const r = await renderExport(spec, { outPath: out, tools });
      await expectValid(tools, out, spec, r);
    }
  });

  it("on abort kills its ffmpeg processes and leaves no temp file", async () => {
    const jobDir = fs.mkdtempSync(path.join(dir, "abort-"));
    const seqs = [0, 1, 2].map(() => ({ seconds: 3, look: f.red, media: { kind: "video" as const, path: f.green, show: "full" as const }, wav: f.wav }));
    const spec = buildSpec(seqs, { width: 640, height: 360, transitions: true, music: f.music });
    const ac = new AbortController();
    let pids: number[] = [];
    const err = await renderExport(spec, {
      outPath: path.join(jobDir, "out.mp4"),
      tools,
      signal: ac.signal,
      onProgress: (step, pct) => {
        if (step === "render" && pct >= 11 && !ac.signal.aborted) {
          pids = processesIn(jobDir);
          ac.abort();
        }
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExportError);
    expect(err).toMatchObject({ code: "EXPORT_FAILED", aborted: true });
    expect(pids.length).toBeGreaterThan(0);
    expect(await stillRunningIn(jobDir, pids)).toEqual([]);
    expect(fs.readdirSync(jobDir)).toEqual([]);
  });
});
