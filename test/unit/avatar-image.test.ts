import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { readImageSize } from "../../src/features/avatar/emulator/image.js";
import { getTools } from "../../src/media/tools.js";
import { fixtureTools } from "../helpers/fixture-ffmpeg.js";

let dir: string;
let ffmpeg: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  ffmpeg = fixtureTools(await getTools()).ffmpeg;
});

function make(name: string, size: string, extra: string[] = []): Buffer {
  const out = path.join(dir, name);
  execFileSync(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", `color=red:s=${size}`, "-frames:v", "1", ...extra, out]);
  return fs.readFileSync(out);
}

describe("image size from the header", () => {
  it.each([
    ["a.png", "38x22", [], "png", 38, 22],
    ["b.jpg", "64x120", [], "jpeg", 64, 120],
    ["c.webp", "90x30", [], "webp", 90, 30],
    ["d.webp", "34x78", ["-lossless", "1"], "webp", 34, 78],
  ] as const)("%s (%s)", (name, size, extra, type, width, height) => {
    expect(readImageSize(make(name, size, [...extra]))).toEqual({ type, width, height });
  });

  it.each([
    ["text", Buffer.from("this is not an image at all, just text")],
    ["empty", Buffer.alloc(0)],
    ["truncated png", Buffer.from([0x89, 0x50, 0x4e, 0x47])],
    ["jpeg start only", Buffer.from([0xff, 0xd8, 0xff])],
  ])("%s → undefined", (_n, buf) => {
    expect(readImageSize(buf)).toBeUndefined();
  });
});
