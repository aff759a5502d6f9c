/**
 * mp4Info reads what ffprobe says of an MP4 from its moov box, for the renders' own outputs; what it
 * cannot read it leaves to ffprobe (undefined). Each file here is made by the ffmpeg the suite runs
 * on, and each answer is compared with ffprobe's own.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getTools, probe, type Tools } from "../../src/media/index.js";
import { mp4Info } from "../../src/media/mp4-info.js";
import { tempDir } from "./media-fixtures.js";

let tools: Tools;
let dir: string;

function ffmpeg(args: string[], out: string): string {
  const file = path.join(dir, out);
  execFileSync(tools.ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", ...args, file]);
  return file;
}

const picture = (seconds: number, size = "96x64") => ["-f", "lavfi", "-i", `testsrc=s=${size}:r=25:d=${seconds}`];
const tone = (seconds: number) => ["-f", "lavfi", "-i", `sine=f=440:r=44100:d=${seconds}`];
const h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];

beforeAll(async () => {
  tools = await getTools();
  dir = tempDir();
});

describe("mp4Info", () => {
  it("says what ffprobe says of a picture-only MP4, with faststart and with moov after the media", async () => {
    const files = [ffmpeg([...picture(0.6, "128x72"), ...h264, "-movflags", "+faststart"], "picture.mp4"), ffmpeg([...picture(1.2), ...h264], "moov-last.mp4")];
    for (const file of files) expect(mp4Info(file), path.basename(file)).toEqual(await probe(file));
    expect(mp4Info(files[0]!)).toMatchObject({ width: 128, height: 72, videoCodec: "h264", videoFrames: 15, streams: 1, audioCodec: undefined, durationSeconds: 0.6 });
  });

  it("with AAC: says what ffprobe says, or leaves it to ffprobe where the movie header and the edit lists disagree", async () => {
    // ffprobe 5 reports the movie header's length and 4.1 the edit lists': with the encoder's priming
    // samples counted in one and not the other, only ffprobe knows what it would say.
    const av = ffmpeg([...picture(1.2), ...tone(1.2), ...h264, "-c:a", "aac", "-movflags", "+faststart"], "av.mp4");
    const probed = await probe(av);
    expect(probed).toMatchObject({ videoCodec: "h264", audioCodec: "aac", audioSampleRate: 44100, streams: 2 });
    expect(mp4Info(av) ?? probed).toEqual(probed);
    // The movie header made one tick longer than every track: not read, whatever the version.
    const bytes = fs.readFileSync(av);
    const mvhd = bytes.indexOf("mvhd", 0, "latin1");
    const version = bytes.readUInt8(mvhd + 4);
    const at = mvhd + 4 + (version === 1 ? 24 : 16);
    if (version === 1) bytes.writeBigUInt64BE(bytes.readBigUInt64BE(at) + 1n, at);
    else bytes.writeUInt32BE(bytes.readUInt32BE(at) + 1, at);
    const longer = path.join(dir, "longer.mp4");
    fs.writeFileSync(longer, bytes);
    expect(mp4Info(longer)).toBeUndefined();
  });

  it("leaves to ffprobe what it cannot read: another container, a fragmented MP4, a cut file, text", () => {
    const mkv = ffmpeg([...picture(0.4), ...h264, "-f", "matroska"], "clip.mkv");
    const fragmented = ffmpeg([...picture(0.8), ...h264, "-movflags", "frag_keyframe+empty_moov"], "fragmented.mp4");
    const whole = ffmpeg([...picture(1), ...h264, "-movflags", "+faststart"], "whole.mp4");
    const cut = path.join(dir, "cut.mp4");
    fs.writeFileSync(cut, fs.readFileSync(whole).subarray(0, 200));
    const text = path.join(dir, "text.mp4");
    fs.writeFileSync(text, "this is text, not a video");
    for (const file of [mkv, fragmented, cut, text, path.join(dir, "missing.mp4")]) expect(mp4Info(file), path.basename(file)).toBeUndefined();
  });
});
