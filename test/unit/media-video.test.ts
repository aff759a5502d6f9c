import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getTools, MediaInputError, probe, RenderError, renderVideo, type Tools } from "../../src/media/index.js";
import { isJpeg, isPng, leftoverTemps, makeImage, sha, tempDir } from "./media-fixtures.js";
import { fixtureTools } from "../helpers/fixture-ffmpeg.js";

let tools: Tools;
let dir: string;
let still: string;

beforeAll(async () => {
  tools = await getTools();
  dir = tempDir();
  still = makeImage(tools, path.join(dir, "still.png"), { size: "160x90" });
});

const base = { width: 320, height: 180, prompt: "A lighthouse on a rocky coast at dusk", label: "veo" };

describe("renderVideo", () => {
  it.each([
    [4, true],
    [5, false],
    [8, true],
  ])("renders exactly %i s, audio %s, with a thumbnail", async (seconds, audio) => {
    const out = path.join(dir, `d${seconds}.mp4`);
    const thumbnailOut = path.join(dir, `d${seconds}.jpg`);
    const r = await renderVideo({ ...base, out, thumbnailOut, durationSeconds: seconds, audio });
    const p = await probe(out, { tools: fixtureTools(tools) });
    expect(Math.abs(p.durationSeconds - seconds)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(r.durationSeconds - seconds)).toBeLessThanOrEqual(0.1);
    expect([p.width, p.height, p.videoCodec]).toEqual([320, 180, "h264"]);
    expect(p.videoFrames).toBe(seconds * 24);
    expect(r.hasAudio).toBe(audio);
    if (audio) expect([p.audioCodec, p.audioSampleRate, p.streams]).toEqual(["aac", 48000, 2]);
    else expect([p.audioCodec, p.streams]).toEqual([undefined, 1]);
    expect(isJpeg(thumbnailOut)).toBe(true);
    expect(leftoverTemps(dir)).toEqual([]);
  });

  it("speaks the speech text: audio is not silence", async () => {
    const out = path.join(dir, "speech.mp4");
    await renderVideo({ ...base, out, thumbnailOut: path.join(dir, "speech.png"), durationSeconds: 4, audio: true, speechText: "Hello there, this is a spoken line." });
    // volumedetect reports on stderr; spawnSync returns it even though ffmpeg exits 0.
    const r = spawnSync(tools.ffmpeg, ["-hide_banner", "-nostdin", "-i", out, "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"], { encoding: "utf8" });
    const max = Number(/max_volume:\s*(-?[\d.]+) dB/.exec(r.stderr)?.[1]);
    expect(max).toBeGreaterThan(-30);
  });

  it("puts silence in the AAC stream when there is nothing to say", async () => {
    const out = path.join(dir, "silent.mp4");
    await renderVideo({ ...base, prompt: "", out, thumbnailOut: path.join(dir, "silent.jpg"), durationSeconds: 1, audio: true });
    const p = await probe(out, { tools: fixtureTools(tools) });
    expect([p.audioCodec, p.audioSampleRate]).toEqual(["aac", 48000]);
    expect(Math.abs(p.durationSeconds - 1)).toBeLessThanOrEqual(0.1);
  });

  it("writes a PNG thumbnail when asked for .png, and the same inputs give the same files", async () => {
    const o = { ...base, durationSeconds: 1, audio: true, references: [still] };
    await renderVideo({ ...o, out: path.join(dir, "s1.mp4"), thumbnailOut: path.join(dir, "s1.png") });
    await renderVideo({ ...o, out: path.join(dir, "s2.mp4"), thumbnailOut: path.join(dir, "s2.png") });
    expect(isPng(path.join(dir, "s1.png"))).toBe(true);
    expect(sha(path.join(dir, "s1.mp4"))).toBe(sha(path.join(dir, "s2.mp4")));
    expect(sha(path.join(dir, "s1.png"))).toBe(sha(path.join(dir, "s2.png")));
  });

  it("rounds odd sizes up to even for x264", async () => {
    const out = path.join(dir, "odd.mp4");
    const r = await renderVideo({ ...base, width: 321, height: 179, out, thumbnailOut: path.join(dir, "odd.jpg"), durationSeconds: 1, audio: false });
    const p = await probe(out, { tools: fixtureTools(tools) });
    expect([r.width, r.height, p.width, p.height]).toEqual([322, 180, 322, 180]);
  });

  it("reports progress up to 1", async () => {
    const seen: number[] = [];
    await renderVideo({
      ...base,
      out: path.join(dir, "prog.mp4"),
      thumbnailOut: path.join(dir, "prog.jpg"),
      durationSeconds: 1,
      audio: false,
      onProgress: (f) => seen.push(f),
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((f) => f >= 0 && f <= 1)).toBe(true);
    expect(seen.at(-1)).toBe(1);
  });

  it("kills ffmpeg when the signal fires and leaves nothing behind", async () => {
    const sub = path.join(dir, "abort");
    fs.mkdirSync(sub);
    const ctrl = new AbortController();
    const out = path.join(sub, "long.mp4");
    const started = Date.now();
    const p = renderVideo({
      ...base,
      width: 640,
      height: 360,
      out,
      thumbnailOut: path.join(sub, "long.jpg"),
      durationSeconds: 300,
      audio: false,
      preset: "medium",
      signal: ctrl.signal,
      onProgress: (f) => {
        if (f > 0) ctrl.abort();
      },
    });
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderError);
    expect((err as RenderError).aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(fs.readdirSync(sub)).toEqual([]);
    if (process.platform === "linux") {
      const running = fs
        .readdirSync("/proc")
        .filter((d) => /^\d+$/.test(d))
        .some((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(sub);
          } catch {
            return false;
          }
        });
      expect(running).toBe(false);
    }
  });

  it("rejects bad input with the field named and writes nothing", async () => {
    const out = path.join(dir, "bad.mp4");
    const ok = { ...base, out, thumbnailOut: path.join(dir, "bad.jpg"), durationSeconds: 4, audio: false };
    const cases: Array<[Partial<Parameters<typeof renderVideo>[0]>, string]> = [
      [{ durationSeconds: 0 }, "durationSeconds"],
      [{ durationSeconds: 601 }, "durationSeconds"],
      [{ fps: 0 }, "fps"],
      [{ width: 0 }, "width"],
      [{ mode: "edit" }, "sourceVideo"],
      [{ mode: "motion" }, "motionVideo"],
      [{ mode: "first-last" }, "startImage"],
      [{ startImage: path.join(dir, "missing.png") }, "startImage"],
      [{ voice: "not a voice!", audio: true }, "voice"],
    ];
    for (const [patch, field] of cases) {
      const err = await renderVideo({ ...ok, ...patch }).catch((e: unknown) => e);
      expect(err, field).toBeInstanceOf(MediaInputError);
      expect((err as MediaInputError).field).toBe(field);
    }
    expect(fs.existsSync(out)).toBe(false);
  });
});
