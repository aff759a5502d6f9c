/**
 * What `plan preview` does only on a terminal, in a real pseudo-terminal (fixtures/pty-script.py):
 * it offers to open the file it wrote; and the wizard offers a preview (free, local) before it
 * offers to generate, and writes it beside the plan.
 */
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN, newHome, ROOT } from "./helpers.js";
import { runEnv } from "../helpers/cli.js";

const PTY = path.join(ROOT, "test", "cli", "fixtures", "pty-script.py");
const ENTER = "\r";
const UP = "\u001b[A";

interface Step {
  expect?: string;
  send?: string;
}

let home: string;
let dir: string;

async function onTerminal(steps: Step[], args: string[], maxSeconds = 60): Promise<{ exit: number | null; failed_step: unknown; screen: string }> {
  const stepsFile = path.join(dir, `steps-${Date.now()}.json`);
  fs.writeFileSync(stepsFile, JSON.stringify(steps));
  const env = runEnv(home, { CI: undefined, TERM: "xterm-256color", NO_COLOR: "1" });
  const r = await execa("python3", [PTY, "100", "30", String(maxSeconds), stepsFile, "--", process.execPath, BIN, ...args], {
    env,
    cwd: dir,
    extendEnv: false,
    reject: false,
    timeout: (maxSeconds + 10) * 1000,
  });
  fs.rmSync(stepsFile);
  if (r.exitCode !== 0) throw new Error(`pty-script.py failed: ${r.stderr}`);
  return JSON.parse(String(r.stdout)) as { exit: number | null; failed_step: unknown; screen: string };
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

  it("the wizard offers a preview before it offers to generate", async () => {
    fs.writeFileSync(path.join(dir, "short.json"), JSON.stringify([{ voice_id: "vc_noah", look_id: "lk_james_car", sequences: [{ text: "A short one." }] }]));
    const steps: Step[] = [
      { expect: "Block 1 · voice Noah (vc_noah)" },
      { expect: "What next?", send: UP + UP + ENTER },
      { expect: "Preview it first?", send: "y" + ENTER },
      { expect: "Open short.preview.mp4 now?", send: "n" + ENTER },
      { expect: "Make the video now?", send: ENTER },
    ];
    const r = await onTerminal(steps, ["plan", "edit", "short.json"]);
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);
    expect(fs.statSync(path.join(dir, "short.preview.mp4")).size).toBeGreaterThan(1000);
  }, 90_000);
});
