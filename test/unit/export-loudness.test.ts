/**
 * The full export's soundtrack loudness (audio.ts): measured once with ebur128, one gain to −16 LUFS,
 * a limiter under −1.5 dBTP. Checked on real renders (espeak-ng speech, with and without music) by
 * ffmpeg's own ebur128 with true-peak metering on the AAC the export wrote, on the ffmpeg mediagen
 * finds (Debian's 5.1, or the npm 4.1 with the system tools hidden).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTools, synthesize, type Tools } from "../../src/media/index.js";
import { integratedLoudness, normalizeFilters, TARGET_LUFS } from "../../src/media/export/audio.js";
import { renderExport } from "../../src/media/export/index.js";
import { buildSpec, expectValid, musicFile, solidImage } from "./export-render-fixtures.js";
import { ff, fixtureTools } from "../helpers/fixture-ffmpeg.js";

let tools: Tools;
let dir: string;
let look: string;
let music: string;
let speech: string[];

/** Integrated loudness (LUFS) and true peak (dBTP) of a file's audio, from ebur128 with peak=true. */
function loudnessOf(file: string): { lufs: number; truePeak: number } {
  const r = spawnSync(fixtureTools(tools).ffmpeg, ["-hide_banner", "-nostdin", "-nostats", "-i", file, "-vn", "-af", "ebur128=peak=true", "-f", "null", "-"], {
    encoding: "utf8",
  });
  const summary = r.stderr.slice(r.stderr.lastIndexOf("Summary:"));
  const lufs = /I:\s*(-?[\d.]+) LUFS/.exec(summary);
  const peak = /True peak:\s*Peak:\s*(-?[\d.]+|-inf) dBFS/.exec(summary);
  if (!lufs || !peak) throw new Error(`no ebur128 summary in: ${r.stderr.slice(-1500)}`);
  return { lufs: Number(lufs[1]), truePeak: peak[1] === "-inf" ? -Infinity : Number(peak[1]) };
}

/** A copy of a WAV with its level changed by `db`. */
function gained(file: string, db: number): string {
  const out = file.replace(/\.wav$/, `-${db < 0 ? "m" : "p"}${Math.abs(db)}.wav`);
  ff(tools, ["-i", file, "-af", `volume=${db}dB`, "-c:a", "pcm_s16le", out]);
  return out;
}

beforeAll(async () => {
  tools = await getTools();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-loud-"));
  look = solidImage(tools, path.join(dir, "look.png"), "red", "180x320");
  music = musicFile(tools, path.join(dir, "music.mp3"), 2);
  const lines = ["The first sentence is spoken over the music bed.", "And a second one, a little longer, closes the video."];
  speech = await Promise.all(
    lines.map(async (text, i) => {
      const out = path.join(dir, `s${i}.wav`);
      await synthesize({ text, out, tools });
      return out;
    }),
  );
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

async function renderWith(wavs: string[], withMusic: boolean): Promise<string> {
  const seconds = wavs.map((w) => {
    const r = spawnSync(fixtureTools(tools).ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", w], { encoding: "utf8" });
    return Math.ceil(Number(r.stdout.trim()) * 10) / 10 + 0.2;
  });
  const spec = buildSpec(
    wavs.map((wav, i) => ({ seconds: seconds[i]!, look, wav })),
    { width: 180, height: 320, ...(withMusic ? { music } : {}) },
  );
  const out = path.join(dir, `out-${withMusic ? "music" : "voice"}-${path.basename(wavs[0]!, ".wav")}.mp4`);
  const r = await renderExport(spec, { outPath: out, tools });
  await expectValid(tools, out, spec, r);
  return out;
}

describe("the full export's soundtrack loudness", () => {
  it("is −16 LUFS (±1 LU) with its true peak at most −1.5 dBTP: speech over music", async () => {
    const out = await renderWith(speech, true);
    const { lufs, truePeak } = loudnessOf(out);
    expect(Math.abs(lufs - TARGET_LUFS)).toBeLessThanOrEqual(1);
    expect(truePeak).toBeLessThanOrEqual(-1.5 + 0.2);
  });

  it("lifts quiet speech and limits loud speech to the same targets", async () => {
    const quiet = await renderWith(
      speech.map((w) => gained(w, -18)),
      false,
    );
    const loud = await renderWith(
      speech.map((w) => gained(w, 6)),
      true,
    );
    for (const out of [quiet, loud]) {
      const { lufs, truePeak } = loudnessOf(out);
      expect(Math.abs(lufs - TARGET_LUFS), path.basename(out)).toBeLessThanOrEqual(1);
      expect(truePeak, path.basename(out)).toBeLessThanOrEqual(-1.5 + 0.2);
    }
  });
});

describe("the loudness step's pieces", () => {
  it("reads the last ebur128 summary (ffmpeg may print an empty one first)", () => {
    const first = "[Parsed_ebur128_3 @ 0x1] Summary:\n\n  Integrated loudness:\n    I:         -70.0 LUFS\n    Threshold:   0.0 LUFS\n";
    const last = "[Parsed_ebur128_3 @ 0x2] Summary:\n\n  Integrated loudness:\n    I:         -20.4 LUFS\n    Threshold: -30.4 LUFS\n";
    expect(integratedLoudness(first + last)).toBe(-20.4);
    expect(integratedLoudness("no summary")).toBeNaN();
  });

  it("gains to the target, none for silence or an unreadable measure; the limiter's delay is undone", () => {
    expect(normalizeFilters(-20.5, 48000)).toMatch(/^volume=4\.5dB,/);
    expect(normalizeFilters(-10, 48000)).toMatch(/^volume=-6dB,/);
    expect(normalizeFilters(-70, 48000)).toMatch(/^volume=0dB,/);
    expect(normalizeFilters(Number.NaN, 48000)).toMatch(/^volume=0dB,/);
    const f = normalizeFilters(-20, 48000);
    expect(f).toContain("level=0");
    const pad = /apad=pad_len=(\d+)/.exec(f)![1];
    expect(f).toContain(`atrim=start_sample=${pad}`);
    expect(f).toMatch(/apad=whole_len=48000,atrim=end_sample=48000$/);
  });
});
