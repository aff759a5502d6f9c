/**
 * The fallback path a fresh machine gets: npm's static ffmpeg 4.1 (no xfade, old amix) and ffprobe,
 * and the WASM espeak-ng in a child process. Forced with MEDIAGEN_MEDIA_FALLBACK=1 even where the
 * system tools exist. Each test file runs in its own process, so the tool cache is this file's own.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { clearToolsCache, getTools, probe, readWavInfo, renderImage, renderVideo, synthesize, type Tools } from "../../src/media/index.js";
import { pngSize } from "../../src/media/inputs.js";
import { isJpeg, makeImage, tempDir } from "./media-fixtures.js";

let tools: Tools;
let dir: string;

beforeAll(async () => {
  for (const k of ["MEDIAGEN_FFMPEG", "MEDIAGEN_FFPROBE", "MEDIAGEN_ESPEAK"]) delete process.env[k];
  process.env.MEDIAGEN_MEDIA_FALLBACK = "1";
  clearToolsCache();
  tools = await getTools();
  dir = tempDir();
});

describe("fallback tools (MEDIAGEN_MEDIA_FALLBACK=1)", () => {
  it("uses the npm ffmpeg/ffprobe and the WASM TTS child", () => {
    expect(tools.source).toBe("npm");
    expect(tools.ffmpeg).toMatch(/node_modules[\\/]@ffmpeg-installer/);
    expect(tools.ffprobe).toMatch(/node_modules[\\/]@ffprobe-installer/);
    expect(tools.ffmpegVersion.startsWith("5.")).toBe(false);
    expect(tools.hasXfade).toBe(false);
    expect(tools.tts.kind).toBe("wasm");
    expect(tools.tts.version).toMatch(/^espeak-ng-wasm /);
  });

  it("renders an image of the exact size, with text where drawtext exists", async () => {
    const out = path.join(dir, "img.png");
    const ref = makeImage(tools, path.join(dir, "ref.png"), { size: "120x80" });
    const r = await renderImage({ out, width: 640, height: 360, prompt: "fallback picture", references: [ref] });
    expect(pngSize(out)).toEqual({ width: 640, height: 360 });
    expect(r.textDrawn).toBe(tools.hasDrawtext);
  });

  it("renders a video with speech of the exact duration", async () => {
    const out = path.join(dir, "v.mp4");
    const thumbnailOut = path.join(dir, "v.jpg");
    const r = await renderVideo({ out, thumbnailOut, width: 320, height: 180, durationSeconds: 4, prompt: "Fallback speech works.", audio: true });
    const p = await probe(out);
    expect(Math.abs(p.durationSeconds - 4)).toBeLessThanOrEqual(0.1);
    expect([p.videoCodec, p.audioCodec, p.audioSampleRate, p.videoFrames]).toEqual(["h264", "aac", 48000, 96]);
    expect(r.hasAudio).toBe(true);
    expect(isJpeg(thumbnailOut)).toBe(true);
  });

  it("renders a first-last dissolve without xfade", async () => {
    const a = makeImage(tools, path.join(dir, "a.png"), { size: "160x90" });
    const b = makeImage(tools, path.join(dir, "b.png"), { size: "160x90", source: "rgbtestsrc" });
    const out = path.join(dir, "fl.mp4");
    await renderVideo({
      out,
      thumbnailOut: path.join(dir, "fl.png"),
      width: 320,
      height: 180,
      durationSeconds: 5,
      prompt: "fl",
      audio: false,
      startImage: a,
      endImage: b,
    });
    const p = await probe(out);
    expect(Math.abs(p.durationSeconds - 5)).toBeLessThanOrEqual(0.1);
    expect(p.audioCodec).toBeUndefined();
  });

  it("synthesises speech with the WASM espeak-ng in a child process", async () => {
    const out = path.join(dir, "s.wav");
    const r = await synthesize({ text: "Hello from the WebAssembly build.", out, voice: "en-us" });
    expect(r.durationMs).toBeGreaterThan(1000);
    expect(readWavInfo(out)!.durationMs).toBe(r.durationMs);
    await expect(synthesize({ text: "x", out: path.join(dir, "bad.wav"), voice: "xx-nope" })).rejects.toMatchObject({ field: "voice" });
  });
});
