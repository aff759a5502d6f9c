/**
 * What a draft (plan preview) changes in the encode, read back from the files ffmpeg wrote: x264
 * records its settings in the stream (an SEI message), so the draft's constant QP and single thread
 * and the full export's CRF 23 are checked on the H.264 itself; the soundtrack's bitrate from the
 * AAC stream. Same timeline, same frame count and duration either way (expectValid).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTools, type Tools } from "../../src/media/index.js";
import { renderExport } from "../../src/media/export/index.js";
import { buildSpec, expectValid, musicFile, solidImage, solidVideo, toneWav } from "./export-render-fixtures.js";

let tools: Tools;
let dir: string;

beforeAll(async () => {
  tools = await getTools();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-draft-"));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** x264's settings line ("cabac=0 ref=1 … rc=cqp … qp=23 …") from the file's SEI. */
function x264Settings(file: string): string {
  const m = /x264 - core [^\0]*? - H\.264\/MPEG-4 AVC codec - Copy[^\0]*? - options: ([^\0]+?)\0/.exec(fs.readFileSync(file).toString("latin1"));
  if (!m) throw new Error(`no x264 settings in ${path.basename(file)}`);
  return m[1]!;
}

function audioBitrate(file: string): number {
  const r = spawnSync(tools.ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=bit_rate", "-of", "csv=p=0", file], { encoding: "utf8" });
  return Number(r.stdout.trim());
}

describe("a draft export (plan preview)", () => {
  it("encodes at constant QP 23 on one thread with a 64k soundtrack; the full export at CRF 23, 160k", async () => {
    const look = solidImage(tools, path.join(dir, "look.png"), "red", "180x320");
    const clip = solidVideo(tools, path.join(dir, "clip.mp4"), { color: "0x00ff00", size: "320x180", seconds: 1 });
    const wav = toneWav(tools, path.join(dir, "speech.wav"), 1.4);
    const music = musicFile(tools, path.join(dir, "music.mp3"), 2);
    const spec = buildSpec(
      [
        { seconds: 1.5, look, wav },
        { seconds: 1.5, look, wav, media: { kind: "video", path: clip, show: "background" } },
      ],
      { width: 180, height: 320, music, transitions: true },
    );
    const draftOut = path.join(dir, "draft.mp4");
    const fullOut = path.join(dir, "full.mp4");
    const draft = await renderExport(spec, { outPath: draftOut, tools, draft: true });
    await expectValid(tools, draftOut, spec, draft);
    const full = await renderExport(spec, { outPath: fullOut, tools });
    await expectValid(tools, fullOut, spec, full);

    const d = x264Settings(draftOut);
    expect(d).toMatch(/\brc=cqp\b/);
    expect(d).toMatch(/\bqp=23\b/);
    expect(d).toMatch(/\bthreads=1\b/);
    const f = x264Settings(fullOut);
    expect(f).toMatch(/\brc=crf\b/);
    expect(f).toMatch(/\bcrf=23\.0\b/);

    expect(audioBitrate(draftOut)).toBeLessThan(80_000);
    expect(audioBitrate(fullOut)).toBeGreaterThan(120_000);
  });
});
