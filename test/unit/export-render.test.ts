/**
 * The export renderer on the ffmpeg mediagen finds (Debian's 5.1 on PATH, else the npm copy, 4.1,
 * which has no xfade: the crossfade checks skip there and say so): real renders of small timelines, checked
 * on the files ffmpeg wrote — streams, exact size and frame count, duration, pixels of each layout,
 * audio levels — and on the processes and temp files a cancelled or failed job leaves (none).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearToolsCache, getTools, type Tools } from "../../src/media/index.js";
import { ExportError, exportSize, planSpec, renderExport, type ExportStep, type RenderExportResult, type RenderSpec } from "../../src/media/export/index.js";
import { buildAss, planCues } from "../../src/media/export/subtitles.js";
import { skipUnless } from "../helpers/capability.js";
import { probeOutput } from "../helpers/fixture-ffmpeg.js";
import { tempDir } from "./media-fixtures.js";
import {
  stillRunningIn,
  blockMeans,
  buildSpec,
  expectValid,
  isBlue,
  isDark,
  isGreen,
  isRed,
  frameRgb,
  jpegOfFrame,
  framesRgb,
  leftovers,
  meanVolumesDb,
  musicFile,
  pixel,
  pixelsAt,
  processesIn,
  solidImage,
  solidVideo,
  toneWav,
} from "./export-render-fixtures.js";

let tools: Tools;
let dir: string;
let f: { red: string; blue: string; yellow: string; green: string; wav: string; music: string };

beforeAll(async () => {
  for (const k of ["MEDIAGEN_FFMPEG", "MEDIAGEN_FFPROBE", "MEDIAGEN_ESPEAK", "MEDIAGEN_MEDIA_FALLBACK"]) delete process.env[k];
  clearToolsCache();
  tools = await getTools();
  dir = tempDir();
  f = {
    red: solidImage(tools, path.join(dir, "avatar.png"), "red", "360x640"),
    yellow: solidImage(tools, path.join(dir, "look2.png"), "yellow", "360x640"),
    blue: solidImage(tools, path.join(dir, "still.jpg"), "blue", "320x180"),
    green: solidVideo(tools, path.join(dir, "clip.mp4"), { color: "0x00ff00", size: "320x180", seconds: 1 }),
    wav: toneWav(tools, path.join(dir, "speech.wav"), 0.9),
    music: musicFile(tools, path.join(dir, "music.mp3"), 2),
  };
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

let outN = 0;
async function render(
  spec: RenderSpec,
  o: { xfade?: boolean; onProgress?: (s: ExportStep, p: number) => void; cacheDir?: string } = {},
): Promise<{ out: string; r: RenderExportResult }> {
  const out = path.join(dir, `out-${++outN}.mp4`);
  const r = await renderExport(spec, { outPath: out, tools, ...o });
  return { out, r };
}

/**
 * A video with subtitles and the same video without (360×640, three sequences with a cue each and
 * transitions), both verified: shared by the two subtitle tests. Both renders share the soundtrack and
 * the stills through a cache, as the export job's renders do.
 */
let subtitled: Promise<{ spec: RenderSpec; ours: { out: string; r: RenderExportResult }; bare: { out: string; r: RenderExportResult } }> | undefined;
function subtitledPair() {
  subtitled ??= (async () => {
    const seqs = [
      { seconds: 1.2, look: f.red, text: "First words on the screen now and then some more words", wav: f.wav },
      {
        seconds: 1.2,
        look: f.red,
        media: { kind: "video" as const, path: f.green, show: "background" as const },
        text: "Then the clip plays behind the presenter here",
        wav: f.wav,
      },
      { seconds: 1.2, look: f.yellow, text: "And a last line to close", wav: f.wav },
    ];
    const spec = buildSpec(seqs, { width: 360, height: 640, subtitles: true, transitions: true });
    const cacheDir = path.join(dir, "cues-cache");
    const ours = await render(spec, { cacheDir });
    await expectValid(tools, ours.out, spec, ours.r);
    const bareSpec = { ...spec, options: { ...spec.options, subtitles: false } };
    const bare = await render(bareSpec, { cacheDir });
    await expectValid(tools, bare.out, bareSpec, bare.r);
    return { spec, ours, bare };
  })();
  return subtitled;
}

describe("renderExport on the system ffmpeg", () => {
  it("draws every media layout where it belongs (hide, full, half, background; image and video; no look)", async () => {
    const W = 180;
    const H = 320;
    // Half a second each (15 frames): every layout is checked on the middle frame of its sequence.
    const seqs = [
      { seconds: 0.5, look: f.red, media: { kind: "image" as const, path: f.blue, show: "hide" as const } },
      { seconds: 0.5, look: f.red, media: { kind: "image" as const, path: f.blue, show: "full" as const } },
      { seconds: 0.5, look: f.red, media: { kind: "video" as const, path: f.green, show: "full" as const } },
      { seconds: 0.5, look: f.red, media: { kind: "image" as const, path: f.blue, show: "half" as const } },
      { seconds: 0.5, look: f.red, media: { kind: "video" as const, path: f.green, show: "half" as const } },
      { seconds: 0.5, look: f.red, media: { kind: "image" as const, path: f.blue, show: "background" as const } },
      { seconds: 0.5, look: f.red, media: { kind: "video" as const, path: f.green, show: "background" as const } },
      { seconds: 0.5, look: null },
    ].map((s) => ({ ...s, wav: f.wav }));
    const spec = buildSpec(seqs, { width: W, height: H });
    const { out, r } = await render(spec);
    await expectValid(tools, out, spec, r);
    const frames = framesRgb(
      tools,
      out,
      seqs.map((_, i) => i * 15 + 7),
      W,
      H,
    );
    const at = (i: number): Buffer => frames[i]!;
    const px = (i: number, x: number, y: number): number[] => pixel(at(i), W, H, x, y);
    expect(isRed(px(0, 0.5, 0.5))).toBe(true); // hide: the avatar only
    expect(isBlue(px(1, 0.5, 0.5))).toBe(true); // full image
    expect(isGreen(px(2, 0.5, 0.5))).toBe(true); // full video
    const half = at(3);
    expect([isBlue(pixel(half, W, H, 0.5, 0.25)), isRed(pixel(half, W, H, 0.5, 0.75))]).toEqual([true, true]); // media on top
    const halfV = at(4);
    expect([isGreen(pixel(halfV, W, H, 0.5, 0.25)), isRed(pixel(halfV, W, H, 0.5, 0.75))]).toEqual([true, true]);
    const bg = at(5);
    expect([isRed(pixel(bg, W, H, 0.5, 0.5)), isBlue(pixel(bg, W, H, 0.03, 0.02))]).toEqual([true, true]); // avatar over the media
    const bgV = at(6);
    expect([isRed(pixel(bgV, W, H, 0.5, 0.5)), isGreen(pixel(bgV, W, H, 0.03, 0.5))]).toEqual([true, true]);
    expect(isDark(px(7, 0.5, 0.5))).toBe(true); // no look: a dark background
  });

  it("splits half layouts side by side in landscape output", async () => {
    const spec = buildSpec([{ seconds: 0.5, look: f.red, media: { kind: "image", path: f.blue, show: "half" }, wav: f.wav }], { width: 320, height: 180 });
    const { out, r } = await render(spec);
    await expectValid(tools, out, spec, r);
    const fr = frameRgb(tools, out, 7, 320, 180);
    expect([isBlue(pixel(fr, 320, 180, 0.25, 0.5)), isRed(pixel(fr, 320, 180, 0.75, 0.5))]).toEqual([true, true]);
  });

  it("crossfades only the transition window with xfade", async (ctx) => {
    skipUnless(ctx, tools.hasXfade, `this ffmpeg (${tools.ffmpegVersion}) has no xfade filter; the fade through black is tested below`);
    const spec = buildSpec(
      [
        { seconds: 1, look: f.red, wav: f.wav },
        { seconds: 1, look: f.red, media: { kind: "image", path: f.blue, show: "full" }, wav: f.wav },
        { seconds: 1, look: f.red, media: { kind: "video", path: f.green, show: "full" }, wav: f.wav },
      ],
      { width: 180, height: 320, transitions: true },
    );
    const { out, r } = await render(spec);
    await expectValid(tools, out, spec, r);
    expect(r.usedXfade).toBe(true);
    const [last1, mid, after, mid2, green] = pixelsAt(
      tools,
      out,
      180,
      320,
      [29, 37, 46, 67, 80].map((n) => [n, 0.5, 0.5] as const),
    );
    expect(isRed(last1!)).toBe(true); // the last frame of the first sequence is untouched
    // mid: halfway through the 15-frame window that opens the second sequence
    expect(mid![0]! > 60 && mid![2]! > 60).toBe(true);
    expect(isBlue(after!)).toBe(true); // after the window
    expect(mid2![1]! > 60 && mid2![2]! > 60).toBe(true); // blue → green
    expect(isGreen(green!)).toBe(true);
  });

  it("fades through black when xfade is not used (forced here, as on ffmpeg builds without it)", async () => {
    const spec = buildSpec(
      [
        { seconds: 1, look: f.red, wav: f.wav },
        { seconds: 1, look: f.red, media: { kind: "video", path: f.green, show: "full" }, wav: f.wav },
        { seconds: 1, look: f.red, media: { kind: "image", path: f.blue, show: "full" }, wav: f.wav },
      ],
      { width: 180, height: 320, transitions: true },
    );
    const { out, r } = await render(spec, { xfade: false });
    await expectValid(tools, out, spec, r);
    expect(r.usedXfade).toBe(false);
    const [red, endOut, startIn, green, dark, blue] = pixelsAt(
      tools,
      out,
      180,
      320,
      [15, 29, 30, 45, 60, 75].map((n) => [n, 0.5, 0.5] as const),
    );
    expect(isRed(red!)).toBe(true);
    expect(isDark(endOut!)).toBe(true); // end of the fade out
    expect(isDark(startIn!)).toBe(true); // start of the fade in
    expect(isGreen(green!)).toBe(true);
    expect(isDark(dark!)).toBe(true);
    expect(isBlue(blue!)).toBe(true);
  });

  it("splits long timelines into several runs within a memory budget, crossfades across the cuts intact", async () => {
    const seqs = [
      { seconds: 1, look: f.red, media: { kind: "video" as const, path: f.green, show: "half" as const }, wav: f.wav },
      { seconds: 1, look: f.red, media: { kind: "image" as const, path: f.blue, show: "full" as const }, wav: f.wav },
      { seconds: 1, look: f.red, media: { kind: "video" as const, path: f.green, show: "full" as const }, wav: f.wav },
      { seconds: 1, look: f.yellow, wav: f.wav },
    ];
    const spec = buildSpec(seqs, { width: 180, height: 320, transitions: true, subtitles: true });
    if (!tools.hasXfade) process.stderr.write(`crossfades across the cuts not checked: this ffmpeg (${tools.ffmpegVersion}) has no xfade filter\n`);
    // Both passes share the soundtrack and the stills through a cache, as the export job's renders do.
    const cacheDir = path.join(dir, "chunked-cache");
    for (const xfade of tools.hasXfade ? [true, false] : [false]) {
      const out = path.join(dir, `chunked-${xfade}.mp4`);
      // The thumbnail shows frame 80, which a later run than the first renders (at half size here).
      const thumb = path.join(dir, `chunked-${xfade}.jpg`);
      const thumbnail = { out: thumb, size: (w: number, h: number) => ({ width: w / 2, height: h / 2 }), at: (seconds: number) => (seconds * 80) / 120 };
      // About one clip per run (the budget is in 1080×1920 units; this output is 36× smaller, capped at 4×).
      const r = await renderExport(spec, { outPath: out, tools, xfade, chunkBudget: 1.25, cacheDir, thumbnail });
      await expectValid(tools, out, spec, r);
      expect(r.runs).toBeGreaterThanOrEqual(3);
      const ns = [20, 29, 30, 37, 50, 67, 80, 110];
      const decoded = framesRgb(tools, out, ns, 180, 320);
      const frames = new Map(ns.map((n, i) => [n, decoded[i]!]));
      const px = (n: number, y = 0.25): number[] => pixel(frames.get(n)!, 180, 320, 0.5, y);
      // The thumbnail is a JPEG of 90×160 showing frame 80: the picture a JPEG of that frame decoded
      // back from the file shows (the clip is grainy: compared by the average colour of 10×10 blocks).
      const t = await probeOutput(thumb);
      expect([t.videoCodec, t.width, t.height]).toEqual(["mjpeg", 90, 160]);
      const shown = blockMeans(frameRgb(tools, thumb, 0, 90, 160), 90, 160, 10);
      const distance = (n: number) => {
        const d = blockMeans(frameRgb(tools, jpegOfFrame(tools, out, n, 90, 160), 0, 90, 160), 90, 160, 10).map((v, i) => Math.abs(v - shown[i]!));
        return d.reduce((x, y) => x + y) / d.length;
      };
      expect(distance(80)).toBeLessThan(4);
      expect(distance(60)).toBeGreaterThan(30); // the picture before: another one
      expect(isGreen(px(20))).toBe(true);
      if (xfade) {
        // The window opening sequence 2 blends the first sequence's continuation, recreated by run 2.
        const mid = px(37);
        expect(mid[1]! > 60 && mid[2]! > 60).toBe(true);
        const mid2 = px(67);
        expect(mid2[1]! > 60 && mid2[2]! > 60).toBe(true);
      } else {
        expect([isDark(px(29)), isDark(px(30))]).toEqual([true, true]);
      }
      expect(isBlue(px(50))).toBe(true);
      expect(isGreen(px(80))).toBe(true);
      expect(isRed(px(110, 0.5)) || px(110, 0.5)[1]! > 180).toBe(true); // yellow look
    }
  });

  it("burns subtitles only when enabled", async () => {
    // The two renders of the cue test below: the same video with subtitles on and off.
    const { ours, bare } = await subtitledPair();
    const W = 360;
    const H = 640;
    const whiteInBand = (out: string): number => {
      const fr = frameRgb(tools, out, 15, W, H);
      let n = 0;
      // Bottom-centred, 15 % above the bottom edge. No look, clip or background has white in it.
      for (let y = Math.floor(H * 0.7); y < Math.floor(H * 0.9); y++) {
        for (let x = 0; x < W; x++) {
          const [rr, g, b] = pixel(fr, W, H, x / W, y / H);
          if (rr > 200 && g > 200 && b > 200) n++;
        }
      }
      return n;
    };
    expect(whiteInBand(ours.out)).toBeGreaterThan(100);
    expect(whiteInBand(bare.out)).toBe(0);
  });

  it("shows each cue on exactly the frames a per-frame burn of the same subtitles would", async () => {
    const { spec, ours, bare } = await subtitledPair();
    // The same ASS burned afterwards on every frame of the video without subtitles.
    const plan = planSpec(spec);
    const fonts = fs.mkdtempSync(path.join(dir, "fonts-"));
    fs.copyFileSync(tools.fontFile, path.join(fonts, path.basename(tools.fontFile)));
    fs.writeFileSync(path.join(fonts, "subs.ass"), buildAss(plan, planCues(plan)));
    const burned = path.join(dir, "burned.mp4");
    execFileSync(
      tools.ffmpeg,
      ["-hide_banner", "-loglevel", "error", "-y", "-i", bare.out, "-vf", "subtitles=filename=subs.ass:fontsdir=.", "-c:v", "libx264", "-crf", "10", burned],
      { cwd: fonts },
    );
    const stats = path.join(fonts, "psnr.txt");
    execFileSync(tools.ffmpeg, ["-hide_banner", "-loglevel", "error", "-i", ours.out, "-i", burned, "-lavfi", "psnr=stats_file=psnr.txt", "-f", "null", "-"], {
      cwd: fonts,
    });
    const perFrame = fs
      .readFileSync(stats, "utf8")
      .trim()
      .split("\n")
      .map((l) => Number(/psnr_avg:(\S+)/.exec(l)![1]));
    expect(perFrame).toHaveLength(plan.frames);
    // A cue shown one frame early or late differs by a whole line of text: ~20 dB on that frame.
    expect(Math.min(...perFrame)).toBeGreaterThan(32);
  });

  it("mixes music under the voice only when enabled, silence elsewhere", async () => {
    const seqs = [
      { seconds: 1, look: f.red, wav: f.wav },
      { seconds: 1.5, look: f.red, text: null },
    ];
    const withMusic = buildSpec(seqs, { width: 180, height: 320, music: f.music });
    const a = await render(withMusic);
    await expectValid(tools, a.out, withMusic, a.r);
    const without = buildSpec(seqs, { width: 180, height: 320 });
    const b = await render(without);
    await expectValid(tools, b.out, without, b.r);
    // The voice is there either way; in the silent sequence only the music plays (looped: the file is 2 s).
    const [aVoice, aSilent] = meanVolumesDb(tools, a.out, [
      [0.1, 0.8],
      [1.2, 1.0],
    ]);
    const [bVoice, bSilent] = meanVolumesDb(tools, b.out, [
      [0.1, 0.8],
      [1.2, 1.0],
    ]);
    expect(aVoice).toBeGreaterThan(-35);
    expect(bVoice).toBeGreaterThan(-35);
    expect(aSilent).toBeGreaterThan(-45);
    expect(bSilent).toBeLessThan(-70);
  });

  it("renders every export format at its exact size, odd custom sizes rounded to even", async () => {
    const cases: Array<[Parameters<typeof exportSize>[0], { width?: number; height?: number }, [number, number], "render" | "size only"]> = [
      ["vertical", {}, [1080, 1920], "render"],
      ["ads", {}, [1080, 1350], "render"],
      // Rendered whole, at this size, by test/scenarios/export.test.ts (the plan).
      ["square", {}, [1080, 1080], "size only"],
      ["horizontal", {}, [1920, 1080], "render"],
      // The renderer takes any even size alike: the odd custom size below is the case to render.
      ["custom", { width: 720, height: 720 }, [720, 720], "size only"],
      ["custom", { width: 721, height: 405 }, [722, 406], "render"],
    ];
    // Two frames each: the size is the same on every frame. The soundtrack (the same for every size) is
    // mixed once and found in the cache after, as in the export job.
    const cacheDir = path.join(dir, "formats-cache");
    for (const [format, custom, size, check] of cases) {
      const s = exportSize(format, custom);
      expect([s.width, s.height]).toEqual(size);
      if (check === "size only") continue;
      const spec = buildSpec([{ seconds: 2 / 30, look: f.red, media: { kind: "image", path: f.blue, show: "half" }, wav: f.wav }], { width: s.width, height: s.height });
      const out = path.join(dir, `format-${s.width}x${s.height}.mp4`);
      const r = await renderExport(spec, { outPath: out, tools, cacheDir });
      await expectValid(tools, out, spec, r);
      expect([r.width, r.height]).toEqual(size);
    }
    expect(exportSize("custom", { width: 721, height: 405 }).warnings.join(" ")).toMatch(/721 rounded to 722/);
    expect(exportSize("custom", { width: 5000, height: 4100 }).warnings.join(" ")).toMatch(/above 4096/);
    expect(exportSize("custom").width).toBe(1080);
    expect(() => exportSize("custom", { width: 5001 })).toThrow(expect.objectContaining({ code: "FORMAT_CONVERSION_FAILED" }));
    expect(() => exportSize("custom", { height: 0 })).toThrow(expect.objectContaining({ code: "FORMAT_CONVERSION_FAILED" }));
  }, 180_000);

  it("takes variable frame rate, rotated clips with their own audio, and still lands on the frame grid", async () => {
    const vfr = solidVideo(tools, path.join(dir, "vfr.mp4"), { color: "0x00ff00", size: "320x180", seconds: 1, rate: 24, audio: true, vfr: true });
    const rotated = path.join(dir, "rotated.mp4");
    // A phone clip: landscape pixels, displayed rotated.
    execFileSync(tools.ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-i", vfr, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated]);
    const spec = buildSpec(
      [
        { seconds: 1.1, look: f.red, media: { kind: "video", path: vfr, show: "full" }, wav: f.wav },
        { seconds: 0.9, look: f.red, media: { kind: "video", path: rotated, show: "half", trim_start: 0.3 }, wav: f.wav },
      ],
      { width: 180, height: 320, transitions: true },
    );
    const { out, r } = await render(spec);
    await expectValid(tools, out, spec, r);
  });

  it("reports progress that only grows, through the steps in order, ending at 100 after the checks", async () => {
    const seen: Array<[ExportStep, number]> = [];
    const spec = buildSpec(
      [
        { seconds: 1, look: f.red, media: { kind: "video", path: f.green, show: "background" }, wav: f.wav },
        { seconds: 1, look: f.yellow, wav: f.wav },
      ],
      { width: 180, height: 320, transitions: true, subtitles: true, music: f.music },
    );
    const { out, r } = await render(spec, { onProgress: (s, p) => seen.push([s, p]) });
    await expectValid(tools, out, spec, r);
    const order = ["render-audio", "avatar", "render"];
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]![1]).toBeGreaterThanOrEqual(seen[i - 1]![1]);
      expect(order.indexOf(seen[i]![0])).toBeGreaterThanOrEqual(order.indexOf(seen[i - 1]![0]));
    }
    expect(seen[0]).toEqual(["render-audio", 0]);
    expect(seen.at(-1)).toEqual(["render", 100]);
    expect(seen.filter(([, p]) => p === 100)).toHaveLength(1);
    expect(new Set(seen.map(([s]) => s))).toEqual(new Set(order));
  });

  it("on abort kills every ffmpeg of the job and leaves no temp file", async () => {
    const jobDir = fs.mkdtempSync(path.join(dir, "abort-"));
    const seqs = [0, 1, 2, 3].map((i) => ({
      seconds: 3,
      look: f.red,
      media: { kind: "video" as const, path: f.green, show: i % 2 ? ("background" as const) : ("full" as const) },
      wav: f.wav,
    }));
    const spec = buildSpec(seqs, { width: 640, height: 360, transitions: true, subtitles: true, music: f.music });
    const ac = new AbortController();
    let pids: number[] = [];
    const out = path.join(jobDir, "out.mp4");
    const thumbnail = { out: path.join(jobDir, "thumb.jpg"), size: () => ({ width: 64, height: 36 }), at: () => 1 };
    const job = renderExport(spec, {
      outPath: out,
      tools,
      signal: ac.signal,
      thumbnail,
      onProgress: (step, pct) => {
        if (step === "render" && pct >= 11 && !ac.signal.aborted) {
          pids = processesIn(jobDir);
          ac.abort();
        }
      },
    });
    const err = await job.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ExportError);
    expect(err).toMatchObject({ code: "EXPORT_FAILED", aborted: true });
    expect(pids.length).toBeGreaterThan(0); // the render (and maybe the audio mix) was running
    expect(await stillRunningIn(jobDir, pids)).toEqual([]);
    expect(await stillRunningIn(jobDir, processesIn(jobDir))).toEqual([]); // and none started after
    expect(fs.readdirSync(jobDir)).toEqual([]);
  });

  it("kills a render that stops making progress and says so", async () => {
    const jobDir = fs.mkdtempSync(path.join(dir, "stall-"));
    const spec = buildSpec([{ seconds: 2, look: f.red, media: { kind: "video", path: f.green, show: "full" }, wav: f.wav }], { width: 640, height: 360 });
    let pids: number[] = [];
    const err = await renderExport(spec, {
      outPath: path.join(jobDir, "out.mp4"),
      tools,
      // Shorter than ffmpeg's first progress report: the watchdog fires on a healthy run, which is
      // what this checks — the kill and the clean-up, not the detection.
      stallTimeoutMs: 40,
      onProgress: (step) => {
        if (step === "render" && pids.length === 0) pids = processesIn(jobDir);
      },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "ENCODING_FAILED", message: expect.stringMatching(/made no progress for 0 s \(stuck after 0 of 60 frames\)/) });
    expect(await stillRunningIn(jobDir, pids)).toEqual([]);
    expect(fs.readdirSync(jobDir)).toEqual([]);
  });

  it("fails with ENCODING_FAILED naming the unreadable input, without server paths", async () => {
    const broken = path.join(dir, "broken.mp4");
    fs.writeFileSync(broken, Buffer.from("this is not a video at all, just text pretending".repeat(100)));
    const spec = buildSpec([{ seconds: 0.5, look: f.red, media: { kind: "video", path: broken, show: "full" }, wav: f.wav }], { width: 180, height: 320 });
    const err = (await render(spec).catch((e: unknown) => e)) as ExportError;
    expect(err).toBeInstanceOf(ExportError);
    expect(err.code).toBe("ENCODING_FAILED");
    expect(err.message).toMatch(/media of sequence 1 \(broken\.mp4\)/);
    expect(err.message).toMatch(/Invalid data|not a readable/i);
    expect(err.message).not.toContain(dir);

    const badLook = path.join(dir, "look-bad.png");
    fs.writeFileSync(badLook, fs.readFileSync(f.red).subarray(0, 60)); // a PNG cut off after its header
    const spec2 = buildSpec([{ seconds: 0.5, look: badLook, wav: f.wav }], { width: 180, height: 320 });
    const err2 = (await render(spec2).catch((e: unknown) => e)) as ExportError;
    expect(err2.code).toBe("ENCODING_FAILED");
    expect(err2.message).toMatch(/look-bad\.png/);
    expect(err2.message).not.toContain(dir);
    expect(leftovers(dir)).toEqual([]);
  });

  it("fails with the spec's other codes: missing input, bad size, unwritable output", async () => {
    const missing = buildSpec([{ seconds: 0.5, look: path.join(dir, "nope.png"), wav: f.wav }], { width: 180, height: 320 });
    await expect(render(missing)).rejects.toMatchObject({
      code: "EXPORT_FAILED",
      message: expect.stringMatching(/missing input: look image of sequence 1 \(nope\.png\)/),
    });
    const odd = buildSpec([{ seconds: 0.5, look: f.red, wav: f.wav }], { width: 181, height: 320 });
    await expect(render(odd)).rejects.toMatchObject({ code: "FORMAT_CONVERSION_FAILED" });
    const file = path.join(dir, "a-file");
    fs.writeFileSync(file, "x");
    const ok = buildSpec([{ seconds: 0.5, look: f.red, wav: f.wav }], { width: 180, height: 320 });
    await expect(renderExport(ok, { outPath: path.join(file, "out.mp4"), tools })).rejects.toMatchObject({ code: "STORAGE_FAILED" });
    const gap = buildSpec(
      [
        { seconds: 0.5, look: f.red, wav: f.wav },
        { seconds: 0.5, look: f.red, wav: f.wav },
      ],
      { width: 180, height: 320 },
    );
    gap.blocks[0]!.sequences[1]!.start_ms += 100;
    await expect(render(gap)).rejects.toMatchObject({ code: "EXPORT_FAILED", message: expect.stringMatching(/sequence 2 starts at/) });
  });

  it("reuses the cached soundtrack and stills on a second export of the same video", async () => {
    const cacheDir = path.join(dir, "cache");
    const spec = buildSpec(
      [
        { seconds: 0.6, look: f.red, media: { kind: "image", path: f.blue, show: "half" }, wav: f.wav },
        { seconds: 0.6, look: f.yellow, wav: f.wav },
      ],
      { width: 180, height: 320, music: f.music },
    );
    const a = path.join(dir, "cached-a.mp4");
    await renderExport(spec, { outPath: a, tools, cacheDir });
    const cached = fs.readdirSync(cacheDir).sort();
    expect(cached.filter((n) => n.startsWith("mix-"))).toHaveLength(1);
    expect(cached.filter((n) => n.startsWith("still-"))).toHaveLength(2);
    const mtimes = cached.map((n) => fs.statSync(path.join(cacheDir, n)).mtimeMs);
    const b = path.join(dir, "cached-b.mp4");
    const r = await renderExport(spec, { outPath: b, tools, cacheDir });
    await expectValid(tools, b, spec, r);
    expect(fs.readdirSync(cacheDir).sort()).toEqual(cached);
    expect(cached.map((n) => fs.statSync(path.join(cacheDir, n)).mtimeMs)).toEqual(mtimes);
  });
});
