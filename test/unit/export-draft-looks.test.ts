/**
 * What a draft (plan preview) shows so it can be looked at: a look of another shape than the video
 * is shown whole (the words drawn on a local look were cut at both edges by the export's cover crop:
 * "lking into a poc"), and a sequence's `action` is a label inside the frame. The layout functions'
 * results, then real renders: a white bar drawn across a look stands in for its caption, and every
 * white pixel of the draft's frame must be away from the frame's edges.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTools, type Tools } from "../../src/media/index.js";
import { renderExport } from "../../src/media/export/index.js";
import { actionLabel, lookPlacement } from "../../src/media/export/draft.js";
import { planVisuals } from "../../src/media/export/graph.js";
import { planSpec } from "../../src/media/export/spec.js";
import { ff } from "../helpers/fixture-ffmpeg.js";
import { buildSpec, framesRgb, solidImage, solidVideo } from "./export-render-fixtures.js";

let tools: Tools;
let dir: string;

beforeAll(async () => {
  tools = await getTools();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-draft-looks-"));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

type R = { x: number; y: number; w: number; h: number };
const inside = (r: R, W: number, H: number): boolean => r.x >= 0 && r.y >= 0 && r.x + r.w <= W && r.y + r.h <= H;
const within = (r: R, outer: R): boolean => r.x >= outer.x && r.y >= outer.y && r.x + r.w <= outer.x + outer.w && r.y + r.h <= outer.y + outer.h;

/** A dark picture with a white bar where a look's caption would be (`bar`: x, y, w, h in pixels). */
function lookWithCaption(file: string, size: string, bar: R): string {
  ff(tools, [
    "-f",
    "lavfi",
    "-i",
    `color=c=0x303030:s=${size}:d=1,drawbox=x=${bar.x}:y=${bar.y}:w=${bar.w}:h=${bar.h}:color=white:t=fill`,
    "-frames:v",
    "1",
    "-update",
    "1",
    file,
  ]);
  return file;
}

/** The white pixels (every channel above 200) of an RGB24 frame, as their columns and rows. */
function whitePixels(buf: Buffer, W: number, H: number, region: R = { x: 0, y: 0, w: W, h: H }): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let y = region.y; y < region.y + region.h; y++) {
    for (let x = region.x; x < region.x + region.w; x++) {
      const i = (y * W + x) * 3;
      if (buf[i]! > 200 && buf[i + 1]! > 200 && buf[i + 2]! > 200) out.push([x, y]);
    }
  }
  return out;
}

/** How far the white pixels come to the frame's edges: the smallest distance, in pixels. */
function nearestEdge(white: Array<[number, number]>, W: number, H: number): number {
  return Math.min(...white.map(([x, y]) => Math.min(x, y, W - 1 - x, H - 1 - y)));
}

describe("draft layout: a look of another shape, an action label", () => {
  it("a horizontal look in a vertical draft is fitted whole inside the frame, the export's crop framed", () => {
    const p = lookPlacement(960, 540, 540, 960);
    if (p.mode !== "fit") throw new Error(`expected a fitted look, got ${p.mode}`);
    expect(inside(p.box, 540, 960)).toBe(true);
    expect(p.box.w).toBe(540);
    expect(p.box.h).toBeLessThan(320);
    expect(p.box.y).toBeGreaterThan(300);
    // The export keeps the middle of the picture, of the frame's shape.
    expect(within(p.keep, p.box)).toBe(true);
    expect(p.keep.h).toBe(p.box.h);
    expect(p.keep.w / p.keep.h).toBeCloseTo(540 / 960, 1);
    expect(Math.abs(p.keep.x + p.keep.w / 2 - 270)).toBeLessThanOrEqual(1);
  });

  it("and vice versa: a vertical look in a horizontal draft, or in the half layout's box", () => {
    const p = lookPlacement(540, 960, 960, 540);
    if (p.mode !== "fit") throw new Error(`expected a fitted look, got ${p.mode}`);
    expect(inside(p.box, 960, 540)).toBe(true);
    expect(p.box.h).toBe(540);
    expect(p.box.w).toBeLessThan(320);
    expect(within(p.keep, p.box)).toBe(true);
    expect(p.keep.w).toBe(p.box.w);
    expect(p.keep.w / p.keep.h).toBeCloseTo(960 / 540, 1);
    const half = lookPlacement(540, 960, 540, 480);
    expect(half.mode).toBe("fit");
    if (half.mode === "fit") expect(inside(half.box, 540, 480)).toBe(true);
  });

  it("a look of the video's shape is covered as the export covers it", () => {
    expect(lookPlacement(540, 960, 540, 960)).toEqual({ mode: "cover" });
    expect(lookPlacement(1080, 1920, 540, 960)).toEqual({ mode: "cover" });
    // A size not known (no header): the export's cover.
    expect(lookPlacement(undefined, undefined, 540, 960)).toEqual({ mode: "cover" });
  });

  it("only a draft fits the look: the export's stills still cover it", () => {
    const look = lookWithCaption(path.join(dir, "plan-look.png"), "320x180", { x: 16, y: 20, w: 288, h: 14 });
    const plan = planSpec(buildSpec([{ seconds: 1, look, text: null }], { width: 180, height: 320 }));
    const info = new Map([[look, { width: 320, height: 180 }]]);
    const [draft] = planVisuals(plan, info, { draft: true });
    const [full] = planVisuals(plan, info);
    expect(draft?.type === "still" && draft.frame.key.startsWith("fit|")).toBe(true);
    expect(full?.type === "still" && full.frame.key.startsWith("cover|")).toBe(true);
  });

  it("an action label stays inside the frame: shrunk, then shortened with an ellipsis", () => {
    const short = actionLabel("smile", 540, 960)!;
    expect(short.text).toBe("smile");
    expect(inside(short.rect, 540, 960)).toBe(true);
    const long = "point at the door while walking slowly towards the window, then turn around and smile at the camera, wave twice and sit down on the sofa by the lamp";
    for (const [W, H] of [
      [540, 960],
      [960, 540],
      [180, 320],
    ] as const) {
      const l = actionLabel(long, W, H)!;
      expect(inside(l.rect, W, H), `${W}x${H}: ${JSON.stringify(l)}`).toBe(true);
      expect(l.text.endsWith("…")).toBe(true);
    }
    expect(actionLabel("  \n ", 540, 960)).toBeNull();
  });
});

describe("draft render: every letter inside the frame", () => {
  it("a horizontal look's caption is whole in a vertical draft (the full export crops it), with the action labelled", async () => {
    const [W, H] = [360, 640];
    const look = lookWithCaption(path.join(dir, "wide.png"), "640x360", { x: 32, y: 40, w: 576, h: 28 });
    const spec = buildSpec([{ seconds: 1, look, text: null }], { width: W, height: H });
    spec.blocks[0]!.sequences[0]!.action = "smile";
    const draftOut = path.join(dir, "wide-draft.mp4");
    const draft = await renderExport(spec, { outPath: draftOut, tools, draft: true });
    expect(draft.warnings).toEqual([
      "the look (wide.png) is another shape than its place in the frame: the draft shows it whole, the export crops it to the part framed in yellow",
    ]);
    const [frame] = framesRgb(tools, draftOut, [15], W, H);
    const white = whitePixels(frame!, W, H);
    expect(white.length, "the caption is shown").toBeGreaterThan(500);
    expect(nearestEdge(white, W, H), "no white pixel at the frame's edges").toBeGreaterThanOrEqual(4);
    // The caption's bar, fitted: the full width of the bar scaled by W / 640, all of it visible.
    const barRows = [...new Set(white.filter(([, y]) => y > 200).map(([, y]) => y))];
    const widest = Math.max(...barRows.map((y) => white.filter(([, yy]) => yy === y).length));
    expect(widest).toBeGreaterThan(576 * (W / 640) - 12);
    // The action's label: white text in its box at the top-right corner.
    const label = actionLabel("smile", W, H)!;
    expect(whitePixels(frame!, W, H, label.rect).length, "the action's label is drawn").toBeGreaterThan(5);

    // The full export keeps the service's cover crop: the bar runs from edge to edge there.
    const fullOut = path.join(dir, "wide-full.mp4");
    expect((await renderExport(spec, { outPath: fullOut, tools })).warnings).toEqual([]);
    const [full] = framesRgb(tools, fullOut, [15], W, H);
    const fullWhite = whitePixels(full!, W, H);
    expect(nearestEdge(fullWhite, W, H)).toBe(0);
    expect(whitePixels(full!, W, H, label.rect)).toHaveLength(0);
  }, 30_000);

  it("a vertical look's caption at its top is shown in a horizontal draft (a cover crop loses it)", async () => {
    const [W, H] = [640, 360];
    const look = lookWithCaption(path.join(dir, "tall.png"), "360x640", { x: 20, y: 16, w: 320, h: 28 });
    const spec = buildSpec([{ seconds: 1, look, text: null }], { width: W, height: H });
    const out = path.join(dir, "tall-draft.mp4");
    await renderExport(spec, { outPath: out, tools, draft: true });
    const [frame] = framesRgb(tools, out, [15], W, H);
    const white = whitePixels(frame!, W, H);
    expect(white.length, "the caption is shown").toBeGreaterThan(300);
    expect(nearestEdge(white, W, H)).toBeGreaterThanOrEqual(4);
  }, 30_000);

  it("in the half layout's box too; a moving sequence carries its action's label on every frame", async () => {
    const [W, H] = [360, 640];
    const look = lookWithCaption(path.join(dir, "tall-half.png"), "360x640", { x: 20, y: 16, w: 320, h: 28 });
    const still = solidImage(tools, path.join(dir, "media.png"), "0x2040a0", "320x180");
    const clip = solidVideo(tools, path.join(dir, "clip.mp4"), { color: "0x206020", size: "320x180", seconds: 1 });
    const spec = buildSpec(
      [
        { seconds: 0.5, look, text: null, media: { kind: "image", path: still, show: "half" } },
        { seconds: 0.5, look, text: null, media: { kind: "video", path: clip, show: "full" } },
      ],
      { width: W, height: H },
    );
    spec.blocks[0]!.sequences[1]!.action = "wave";
    const out = path.join(dir, "half-draft.mp4");
    await renderExport(spec, { outPath: out, tools, draft: true });
    const [half, moving] = framesRgb(tools, out, [7, 22], W, H);
    // Half: the media above, the look below, fitted into its 360x320 box with its caption whole.
    const white = whitePixels(half!, W, H);
    expect(white.length, "the caption is shown").toBeGreaterThan(150);
    expect(Math.min(...white.map(([, y]) => y))).toBeGreaterThanOrEqual(H / 2);
    expect(nearestEdge(white, W, H)).toBeGreaterThanOrEqual(4);
    const label = actionLabel("wave", W, H)!;
    expect(whitePixels(half!, W, H, label.rect), "no action, no label").toHaveLength(0);
    expect(whitePixels(moving!, W, H, label.rect).length, "the action's label over the clip").toBeGreaterThan(5);
  }, 30_000);
});
