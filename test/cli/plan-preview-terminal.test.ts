/**
 * What `plan preview` does only on a terminal, in a real pseudo-terminal (fixtures/pty-script.py):
 * it offers to open the file it wrote; and the wizard offers a preview (free, local) before it
 * offers to generate, and writes it beside the plan.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { newHome } from "./helpers.js";
import { KEY, onTerminal as onPty, type PtyResult, type Step } from "./pty.js";

const { ENTER, UP } = KEY;

let home: string;
let dir: string;

/**
 * The prompts listen as soon as they are drawn: a short quiet time before each step's keys. A desktop
 * session (DISPLAY) unless `headless`: the offer to open the file is made only where it can be played.
 */
function onTerminal(steps: Step[], args: string[], maxSeconds = 60, headless = false): Promise<PtyResult> {
  return onPty(args, steps, { home, cwd: dir, maxSeconds, quietMs: 30, env: { DISPLAY: headless ? undefined : ":99" } });
}

beforeAll(() => {
  home = newHome();
  dir = path.join(home, "work");
  fs.mkdirSync(dir);
});

describe("plan preview on a terminal", () => {
  it("offers to open the preview it wrote", async () => {
    fs.writeFileSync(path.join(dir, "one.json"), JSON.stringify([{ voice_id: "vc_noah", look_id: "lk_james_car", sequences: [{ text: "Short." }] }]));
    const r = await onTerminal([{ expect: "Open one.mp4 now?", send: "n" + ENTER }], ["plan", "preview", "one.json", "-o", "one.mp4"]);
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);
    expect(r.screen).toContain("no credits used");
    expect(fs.statSync(path.join(dir, "one.mp4")).size).toBeGreaterThan(1000);
  }, 90_000);

  it("plan preview <plan>.json writes <plan>.preview.mp4 beside it; on a headless box it says where the file is instead of offering to open it", async () => {
    fs.writeFileSync(path.join(dir, "two-a.json"), JSON.stringify([{ voice_id: "vc_noah", look_id: "lk_james_car", sequences: [{ text: "One." }] }]));
    const r = await onTerminal([{ expect: "No desktop here to play it" }], ["plan", "preview", "two-a.json"], 60, true);
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);
    expect(r.screen).not.toContain("now?");
    expect(r.screen).toContain(path.join(dir, "two-a.preview.mp4"));
    expect(fs.statSync(path.join(dir, "two-a.preview.mp4")).size).toBeGreaterThan(1000);
    expect(fs.existsSync(path.join(dir, "preview.mp4"))).toBe(false);
  }, 90_000);

  it("the wizard offers a preview before it offers to generate", async () => {
    fs.writeFileSync(path.join(dir, "short.json"), JSON.stringify([{ voice_id: "vc_noah", look_id: "lk_james_car", sequences: [{ text: "Short." }] }]));
    const steps: Step[] = [
      { expect: "Block 1 · voice Noah (vc_noah)" },
      { expect: "What next?", send: UP + UP + ENTER },
      { expect: "Preview it first?", send: "y" + ENTER },
      { expect: "Open short.preview.mp4 now?", send: "n" + ENTER },
      { expect: "Video format", send: ENTER },
      { expect: "Background music?", send: ENTER },
      { expect: "Make the video now?", send: ENTER },
    ];
    const r = await onTerminal(steps, ["plan", "edit", "short.json"]);
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);
    expect(fs.statSync(path.join(dir, "short.preview.mp4")).size).toBeGreaterThan(1000);
  }, 90_000);
});
