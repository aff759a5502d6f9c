/**
 * `--show` measures a picture from its header before a terminal decodes it: a 16000×16000 PNG (a
 * pixel bomb of a hosted download) is not drawn, with the same cap as references (8192 a side, 40 MP);
 * a picture within it is drawn as before.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { pictureSize, showPicture } from "../../src/cli/terminal-picture.js";

const SMALL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

/** A PNG of `w`×`h` grey pixels: a valid header and a deflated body (small on disk whatever its size). */
function bombPng(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([Buffer.from(type, "latin1"), data])) >>> 0);
    return Buffer.concat([len, Buffer.from(type, "latin1"), data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = zlib.deflateSync(Buffer.alloc((w + 1) * 64), { level: 9 });
  return Buffer.concat([SMALL_PNG.subarray(0, 8), chunk("IHDR", ihdr), chunk("IDAT", rows), chunk("IEND", Buffer.alloc(0))]);
}

function terminal() {
  const written: string[] = [];
  return { written, term: { write: (t: string) => void written.push(t), isTTY: true, env: { TERM: "xterm-kitty" } } };
}

describe("--show's pixel cap", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-show-"));

  it("reads the size of PNG, GIF and WebP headers", () => {
    expect(pictureSize(bombPng(16000, 16000))).toEqual({ width: 16000, height: 16000 });
    const gif = Buffer.from("GIF89a\u0080\u003e\u0080\u003e", "latin1");
    expect(pictureSize(gif)).toEqual({ width: 16000, height: 16000 });
    expect(pictureSize(Buffer.from("not a picture"))).toBeUndefined();
  });

  it("does not draw a 16000×16000 PNG, nor a file that is no known picture; draws a small one", async () => {
    const bomb = path.join(dir, "bomb.png");
    fs.writeFileSync(bomb, bombPng(16000, 16000));
    expect(fs.statSync(bomb).size).toBeLessThan(4 * 1024 * 1024);
    const a = terminal();
    expect(await showPicture(a.term, bomb)).toBe(false);
    expect(a.written).toEqual([]);

    const odd = path.join(dir, "odd.png");
    fs.writeFileSync(odd, "certainly not a PNG");
    const b = terminal();
    expect(await showPicture(b.term, odd)).toBe(false);
    expect(b.written).toEqual([]);

    const small = path.join(dir, "small.png");
    fs.writeFileSync(small, SMALL_PNG);
    const c = terminal();
    expect(await showPicture(c.term, small)).toBe(true);
    expect(c.written.join("")).toContain("\u001b_Ga=T,f=100");
  });
});
