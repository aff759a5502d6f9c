/**
 * `plan preview` of a vertical plan on a horizontal catalog look (Maya at the office, a 960x540
 * picture with her description written on it): the draft used to cover-crop the picture, so its
 * words were cut at both edges ("presenting at a"). Now the look is shown whole and no white letter
 * touches the frame's sides; the sequence's `action` is a label in the corner, and only there.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { actionLabel } from "../../src/media/export/draft.js";
import { getTools } from "../../src/media/tools.js";
import { framesRgb } from "../unit/export-render-fixtures.js";
import { newHome, run } from "./helpers.js";

const TOOLS = await getTools();

let home: string;
let dir: string;

beforeAll(() => {
  home = newHome();
  dir = path.join(home, "work");
  fs.mkdirSync(dir);
});

type R = { x: number; y: number; w: number; h: number };

/** The white pixels (every channel above 200) of an RGB24 frame inside `region`. */
function whitePixels(buf: Buffer, W: number, region: R): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let y = region.y; y < region.y + region.h; y++) {
    for (let x = region.x; x < region.x + region.w; x++) {
      const i = (y * W + x) * 3;
      if (buf[i]! > 200 && buf[i + 1]! > 200 && buf[i + 2]! > 200) out.push([x, y]);
    }
  }
  return out;
}

describe("plan preview: a horizontal look in a vertical draft", () => {
  it("shows the look's words whole (none cut at the frame's sides) and labels the sequence's action", async () => {
    const plan = {
      enable: { subtitles: false, music: false, transitions: false, broll: false },
      sequence_plan: [
        { voice_id: "vc_noah", look_id: "lk_maya_office", sequences: [{ text: "Hello there.", action: "point at the door" }] },
        { voice_id: "vc_noah", look_id: "lk_maya_office", sequences: [{ text: "And again." }] },
      ],
    };
    const file = path.join(dir, "wide-look.json");
    fs.writeFileSync(file, JSON.stringify(plan));
    const out = path.join(dir, "wide-look.preview.mp4");
    const r = await run(["plan", "preview", file, "-o", out, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const res = r.json<{ width: number; height: number; sequences: { start_ms: number; end_ms: number }[]; warnings: string[] }>();
    // Said, since the export will differ: it crops the look as the service does.
    expect(res.warnings).toEqual([expect.stringMatching(/^the look \(lk_maya_office\.png\) is another shape .*the export crops it/)]);
    const [W, H] = [res.width, res.height];
    expect([W, H]).toEqual([540, 960]);
    const mid = (s: { start_ms: number; end_ms: number }) => Math.round(((s.start_ms + s.end_ms) / 2000) * 30);
    const [withAction, without] = framesRgb(TOOLS, out, [mid(res.sequences[0]!), mid(res.sequences[1]!)], W, H);

    for (const frame of [withAction!, without!]) {
      // The card's words are white: somewhere in the frame, but never in the columns at its sides.
      expect(whitePixels(frame, W, { x: 0, y: 0, w: W, h: H }).length).toBeGreaterThan(500);
      expect(whitePixels(frame, W, { x: 0, y: 0, w: 3, h: H })).toEqual([]);
      expect(whitePixels(frame, W, { x: W - 3, y: 0, w: 3, h: H })).toEqual([]);
    }
    const label = actionLabel("point at the door", W, H)!;
    expect(whitePixels(withAction!, W, label.rect).length, "the action's label").toBeGreaterThan(20);
    expect(whitePixels(without!, W, label.rect), "no label without an action").toEqual([]);
  }, 90_000);
});
