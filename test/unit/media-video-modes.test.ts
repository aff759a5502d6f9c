import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getTools, probe, renderVideo, type Tools, type VideoMode } from "../../src/media/index.js";
import { isJpeg, makeImage, makeVideo, sha, tempDir } from "./media-fixtures.js";
import { fixtureTools } from "../helpers/fixture-ffmpeg.js";

let tools: Tools;
let dir: string;
let start: string;
let end: string;
let clip: string;

beforeAll(async () => {
  tools = await getTools();
  dir = tempDir();
  start = makeImage(tools, path.join(dir, "start.png"), { size: "160x90", source: "testsrc2" });
  end = makeImage(tools, path.join(dir, "end.png"), { size: "90x160", source: "rgbtestsrc" });
  clip = makeVideo(tools, path.join(dir, "clip.mp4"), { seconds: 2, size: "176x144", rate: 30 });
});

/** Hash of frame `n` as decoded: equal hashes mean the same picture. */
async function frameAt(file: string, n: number, out: string): Promise<string> {
  const { execFileSync } = await import("node:child_process");
  execFileSync(fixtureTools(tools).ffmpeg, [
    "-hide_banner",
    "-nostdin",
    "-y",
    "-loglevel",
    "error",
    "-i",
    file,
    "-vf",
    `trim=start_frame=${n}:end_frame=${n + 1}`,
    "-frames:v",
    "1",
    "-f",
    "image2",
    "-update",
    "1",
    "-c:v",
    "png",
    out,
  ]);
  return sha(out);
}

describe("renderVideo modes", () => {
  // Short renders (the checks are the same at any length); extend runs past the 2 s source clip.
  const cases: Array<[VideoMode, () => Record<string, unknown>, number]> = [
    ["first-last", () => ({ startImage: start, endImage: end }), 2],
    ["edit", () => ({ sourceVideo: clip }), 1],
    ["extend", () => ({ sourceVideo: clip }), 3],
    ["upscale", () => ({ sourceVideo: clip }), 1],
    ["motion", () => ({ motionVideo: clip, startImage: start }), 1],
    ["generate", () => ({ references: [clip, start] }), 1],
  ];

  it.each(cases)("%s gives the exact duration, size, audio and a thumbnail", async (mode, inputs, seconds) => {
    const out = path.join(dir, `${mode}.mp4`);
    const thumbnailOut = path.join(dir, `${mode}.jpg`);
    const r = await renderVideo({ out, thumbnailOut, width: 320, height: 180, durationSeconds: seconds, prompt: `mode ${mode}`, audio: true, mode, ...inputs() });
    const p = await probe(out, { tools: fixtureTools(tools) });
    expect(Math.abs(p.durationSeconds - seconds)).toBeLessThanOrEqual(0.1);
    expect([p.width, p.height, p.videoFrames, p.audioCodec]).toEqual([320, 180, seconds * 24, "aac"]);
    expect(r.durationSeconds).toBeCloseTo(p.durationSeconds, 6);
    expect(isJpeg(thumbnailOut)).toBe(true);
  });

  it("first-last starts on the start image and ends on the end image", async () => {
    const o = { width: 320, height: 180, durationSeconds: 3, prompt: "fl", audio: false, mode: "first-last" as const };
    const ab = path.join(dir, "ab.mp4");
    const ba = path.join(dir, "ba.mp4");
    await renderVideo({ ...o, out: ab, thumbnailOut: path.join(dir, "ab.png"), startImage: start, endImage: end });
    await renderVideo({ ...o, out: ba, thumbnailOut: path.join(dir, "ba.png"), startImage: end, endImage: start });
    // Same two pictures swapped: the first frames differ, and the middle (the dissolve) differs from both ends.
    const abFirst = await frameAt(ab, 0, path.join(dir, "ab0.png"));
    const baFirst = await frameAt(ba, 0, path.join(dir, "ba0.png"));
    const abMid = await frameAt(ab, 36, path.join(dir, "ab36.png"));
    const abLast = await frameAt(ab, 71, path.join(dir, "ab71.png"));
    expect(abFirst).not.toBe(baFirst);
    expect(new Set([abFirst, abMid, abLast]).size).toBe(3);
  });

  it("the source video's frames are used: another source gives another video", async () => {
    const other = makeVideo(tools, path.join(dir, "other.mp4"), { seconds: 1, size: "320x240", rate: 25 });
    const o = { width: 320, height: 180, durationSeconds: 1, prompt: "same prompt", audio: false, mode: "edit" as const };
    await renderVideo({ ...o, out: path.join(dir, "e1.mp4"), thumbnailOut: path.join(dir, "e1.png"), sourceVideo: clip });
    await renderVideo({ ...o, out: path.join(dir, "e2.mp4"), thumbnailOut: path.join(dir, "e2.png"), sourceVideo: other });
    expect(sha(path.join(dir, "e1.png"))).not.toBe(sha(path.join(dir, "e2.png")));
    expect(sha(path.join(dir, "e1.mp4"))).not.toBe(sha(path.join(dir, "e2.mp4")));
  });
});
