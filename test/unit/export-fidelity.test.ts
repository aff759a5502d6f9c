/**
 * Render fidelity of the export (and so of `plan preview`): an `animate` still moves (a slow zoom and
 * pan: a mark on it is in another place a second later), and an avatar that is a video plays in the
 * look's place beside `half` and `background` media instead of standing still. Small real renders
 * (180×320, 1.5 s a sequence).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getTools, type Tools } from "../../src/media/index.js";
import { renderExport } from "../../src/media/export/render.js";
import type { RenderSpec } from "../../src/media/export/index.js";
import { buildSpec, frameRgb, solidImage, toneWav } from "./export-render-fixtures.js";
import { ff } from "../helpers/fixture-ffmpeg.js";

const W = 180;
const H = 320;
let tools: Tools;
let dir: string;
let wav: string;
let look: string;
let marked: string;
let avatarClip: string;

beforeAll(async () => {
  tools = await getTools();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "export-fidelity-"));
  wav = toneWav(tools, path.join(dir, "s.wav"), 1.5);
  look = solidImage(tools, path.join(dir, "look.png"), "0x3050a0", "180x320");
  // A dark picture with one white square left of centre: where it is shows the motion.
  marked = path.join(dir, "marked.png");
  ff(tools, ["-f", "lavfi", "-i", "color=c=0x101010:s=320x180:d=1", "-vf", "drawbox=x=122:y=70:w=30:h=40:color=white:t=fill", "-frames:v", "1", marked]);
  // A moving pattern: every frame of the avatar differs from the one before.
  avatarClip = path.join(dir, "avatar.mp4");
  ff(tools, ["-f", "lavfi", "-i", "testsrc2=s=180x320:r=30:d=2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", avatarClip]);
}, 60_000);

async function render(spec: RenderSpec, name: string): Promise<string> {
  const out = path.join(dir, name);
  await renderExport(spec, { outPath: out, tools });
  return out;
}

/** Centroid (x, y) of the bright pixels of an RGB frame. */
function brightCentroid(buf: Buffer, w: number, h: number): { x: number; y: number; n: number } {
  let sx = 0;
  let sy = 0;
  let n = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      if (buf[i]! > 200 && buf[i + 1]! > 200 && buf[i + 2]! > 200) {
        sx += x;
        sy += y;
        n++;
      }
    }
  }
  return { x: sx / n, y: sy / n, n };
}

/** Mean absolute difference of two RGB frames over the rows [y0, y1). */
function diffRows(a: Buffer, b: Buffer, w: number, y0: number, y1: number): number {
  let d = 0;
  for (let i = y0 * w * 3; i < y1 * w * 3; i++) d += Math.abs(a[i]! - b[i]!);
  return d / ((y1 - y0) * w * 3);
}

/** Mean value of an RGB frame over the rows [y0, y1). */
function meanRows(a: Buffer, w: number, y0: number, y1: number): number {
  let t = 0;
  for (let i = y0 * w * 3; i < y1 * w * 3; i++) t += a[i]!;
  return t / ((y1 - y0) * w * 3);
}

describe("export fidelity", () => {
  it("an animated still moves: its mark is in another place a second later; a plain still stays put", async () => {
    const spec = (animate: boolean) => {
      const s = buildSpec([{ seconds: 1.5, look, wav, text: null, media: { kind: "image", path: marked, show: "full" } }], { width: W, height: H });
      s.blocks[0]!.sequences[0]!.media!.animate = animate;
      return s;
    };
    const moving = await render(spec(true), "moving.mp4");
    const a = brightCentroid(frameRgb(tools, moving, 2, W, H), W, H);
    const b = brightCentroid(frameRgb(tools, moving, 40, W, H), W, H);
    expect(a.n).toBeGreaterThan(20);
    expect(b.n).toBeGreaterThan(a.n); // zoomed in: the mark is larger
    expect(Math.hypot(b.x - a.x, b.y - a.y)).toBeGreaterThan(3);

    const still = await render(spec(false), "still.mp4");
    const c = brightCentroid(frameRgb(tools, still, 2, W, H), W, H);
    const d = brightCentroid(frameRgb(tools, still, 40, W, H), W, H);
    expect(Math.hypot(d.x - c.x, d.y - c.y)).toBeLessThan(0.5);
  }, 60_000);

  it("an avatar video plays beside half and background media (its frames change; the still media does not)", async () => {
    const spec = buildSpec(
      [
        { seconds: 1.5, look: null, wav, text: null, media: { kind: "image", path: marked, show: "half" } },
        { seconds: 1.5, look: null, wav, text: null, media: { kind: "image", path: marked, show: "background" } },
      ],
      { width: W, height: H },
    );
    for (const s of spec.blocks[0]!.sequences) s.look_video = { path: avatarClip, start_s: s.start_ms / 1000 };
    const out = await render(spec, "avatar-video.mp4");
    // half: media on top (rows 0..160), the avatar video below.
    const h1 = frameRgb(tools, out, 5, W, H);
    const h2 = frameRgb(tools, out, 30, W, H);
    expect(diffRows(h1, h2, W, 170, 310)).toBeGreaterThan(5);
    expect(diffRows(h1, h2, W, 10, 150)).toBeLessThan(0.5);
    // The avatar's picture, not the dark background a missing look draws.
    expect(meanRows(h1, W, 170, 310)).toBeGreaterThan(60);
    // background: the avatar video in the middle of the blurred still.
    const b1 = frameRgb(tools, out, 50, W, H);
    const b2 = frameRgb(tools, out, 80, W, H);
    expect(diffRows(b1, b2, W, 100, 220)).toBeGreaterThan(5);
    expect(meanRows(b1, W, 100, 220)).toBeGreaterThan(60);
  }, 60_000);
});
