import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { clearToolsCache, getTools, MediaInputError, MediaToolError, probe, RenderError, synthesize, type Tools } from "../../src/media/index.js";
import { whichOnPath } from "../../src/media/tools.js";
import { makeImage, tempDir } from "./media-fixtures.js";

let tools: Tools;
let dir: string;
const savedEnv = { ...process.env };

beforeAll(async () => {
  tools = await getTools();
  dir = tempDir();
});

afterEach(() => {
  for (const k of ["MEDIAGEN_FFMPEG", "MEDIAGEN_FFPROBE", "MEDIAGEN_ESPEAK"]) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
  clearToolsCache();
});

describe("getTools", () => {
  it("prefers the system tools, or the npm fallbacks when forced or missing", () => {
    const forced = !!process.env.MEDIAGEN_MEDIA_FALLBACK && process.env.MEDIAGEN_MEDIA_FALLBACK !== "0";
    const expected = process.env.MEDIAGEN_FFMPEG ? "env" : !forced && whichOnPath("ffmpeg") ? "path" : "npm";
    expect(tools.source).toBe(expected);
    expect(tools.tts.kind).toBe(!forced && whichOnPath("espeak-ng") ? "native" : "wasm");
    expect(fs.existsSync(tools.fontFile)).toBe(true);
  });

  it("learns the filters once and derives the capability flags from them", () => {
    expect(tools.filters.size).toBeGreaterThan(100);
    expect(tools.hasDrawtext).toBe(tools.filters.has("drawtext"));
    expect(tools.hasXfade).toBe(tools.filters.has("xfade"));
    expect(tools.hasLibass).toBe(tools.filters.has("subtitles") || tools.filters.has("ass"));
    for (const needed of ["color", "loop", "overlay", "scale", "crop", "fade", "trim", "concat", "apad", "atrim", "aresample", "tpad"]) {
      expect(tools.filters.has(needed), needed).toBe(true);
    }
  });

  it("is cached once per process", async () => {
    const a = getTools();
    const b = getTools();
    expect(b).toBe(a);
    expect(await getTools()).toBe(await a);
  });

  it("honours MEDIAGEN_FFMPEG", async () => {
    clearToolsCache();
    process.env.MEDIAGEN_FFMPEG = tools.ffmpeg;
    const t = await getTools();
    expect([t.source, t.ffmpeg]).toEqual(["env", tools.ffmpeg]);
  });

  it.each([
    ["MEDIAGEN_FFMPEG", "ffmpeg"],
    ["MEDIAGEN_FFPROBE", "ffprobe"],
    ["MEDIAGEN_ESPEAK", "espeak-ng"],
  ])("names what is missing and how to install it when %s points nowhere", async (envVar, missing) => {
    clearToolsCache();
    process.env[envVar] = path.join(dir, "does-not-exist");
    const e = await getTools().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MediaToolError);
    expect((e as MediaToolError).missing).toEqual([missing]);
    expect((e as MediaToolError).message).toMatch(/apt-get install ffmpeg espeak-ng/);
    expect((e as MediaToolError).message).toContain(envVar);
  });
});

describe("probe", () => {
  it("reads size, codecs, rate, frames and stream count", async () => {
    const mp4 = path.join(dir, "av.mp4");
    execFileSync(tools.ffmpeg, [
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc=s=128x96:r=25:d=2",
      "-f",
      "lavfi",
      "-i",
      "sine=r=44100:d=2",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      mp4,
    ]);
    const p = await probe(mp4);
    expect(p).toMatchObject({ width: 128, height: 96, videoCodec: "h264", audioCodec: "aac", audioSampleRate: 44100, streams: 2, videoFrames: 50 });
    expect(Math.abs(p.durationSeconds - 2)).toBeLessThan(0.1);
  });

  it("reads still images and WAVs", async () => {
    const png = makeImage(tools, path.join(dir, "p.png"), { size: "34x18" });
    expect(await probe(png)).toMatchObject({ width: 34, height: 18, streams: 1, audioCodec: undefined });
    const wav = path.join(dir, "s.wav");
    const { durationMs } = await synthesize({ text: "probe me", out: wav });
    const p = await probe(wav);
    expect(p.videoCodec).toBeUndefined();
    expect(Math.abs(p.durationSeconds * 1000 - durationMs)).toBeLessThan(5);
  });

  it("fails clearly for missing and non-media files", async () => {
    await expect(probe(path.join(dir, "nope.mp4"))).rejects.toBeInstanceOf(MediaInputError);
    const junk = path.join(dir, "junk.mp4");
    fs.writeFileSync(junk, "definitely not a video");
    await expect(probe(junk)).rejects.toBeInstanceOf(RenderError);
  });
});
