/**
 * `mediagen plan new` / `plan edit`, the wizard, driven through a real pseudo-terminal
 * (fixtures/pty-script.py types each step's keys once the prompt it waits for is on screen): a plan
 * of two speech blocks, a silent sequence and one media item (a local file), which `plan validate`
 * passes and `generate --plan` starts on the local instance; Ctrl-C mid-wizard leaves no file (nor a
 * temp file) and exits 130; without a terminal it refuses with exit 2 and names the way without one.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { renderImage } from "../../src/media/index.js";
import { newHome, run } from "./helpers.js";
import { KEY, onTerminal as onPty, type PtyResult, type Step } from "./pty.js";

const { ENTER, DOWN, UP, CTRL_C } = KEY;
/** The wizard's prompts listen as soon as they are drawn: a short quiet time before each step's keys. */
const QUIET_MS = 30;

let home: string;
let dir: string;
let picture: string;

/**
 * `mediagen <args>` on a pseudo-terminal (100×30 unless `size` says otherwise), as a person at a
 * terminal runs it (no CI), typing `steps`.
 */
function onTerminal(steps: Step[], args: string[], maxSeconds = 40, size = { cols: 100, rows: 30 }): Promise<PtyResult> {
  return onPty(args, steps, { home, cwd: dir, maxSeconds, cols: size.cols, rows: size.rows, quietMs: QUIET_MS });
}

/** The picker steps: language Any, gender female, search, pick. */
const PICK_DEFAULTS: Step[] = [
  { expect: "Voice language", send: ENTER },
  { expect: "Voice gender", send: DOWN + ENTER },
  { expect: "Default voice", send: "olivia" },
  { expect: "❯ Olivia", send: ENTER },
  { expect: "Look gender", send: ENTER },
  { expect: "Default look", send: "kitchen" },
  { expect: "❯ Maya in the kitchen", send: ENTER },
];

beforeAll(async () => {
  home = newHome();
  dir = path.join(home, "work");
  fs.mkdirSync(dir);
  picture = path.join(dir, "kitchen.png");
  await renderImage({ out: picture, width: 320, height: 240, prompt: "kitchen" });
}, 60_000);

const leftovers = () => fs.readdirSync(dir).filter((f) => !f.startsWith("steps-") && f !== "kitchen.png");

describe("plan new on a terminal", () => {
  it("builds two speech blocks, a silence and a media item; the saved plan validates and generate --plan starts it", { timeout: 120_000 }, async () => {
    const steps: Step[] = [
      ...PICK_DEFAULTS,
      { expect: "No block yet." },
      // Block 1: one sequence with a local picture in full screen.
      { expect: "What next?", send: ENTER },
      { expect: "Spoken text of the sequence", send: "Welcome to our kitchen." + ENTER },
      { expect: "about 1.6 s spoken" },
      { expect: "Look for this sequence", send: ENTER },
      { expect: "Action", send: ENTER },
      { expect: "Media on screen", send: DOWN + DOWN + DOWN + ENTER },
      { expect: "Path of the image or video file", send: "kitchen.png" + ENTER },
      { expect: "How to show it", send: ENTER },
      // The block's voice, pre-filled with the default voice (it fits the look: female, English).
      { expect: "Voice of this block (type to search)" },
      { expect: "❯ Olivia", send: ENTER },
      { expect: "Add another sequence to this block?", send: ENTER },
      // The running timeline and price.
      { expect: "Block 1 · voice Olivia (vc_olivia) · look Maya in the kitchen (lk_maya_kitchen)" },
      { expect: "credits" },
      // Block 2: another look for its sequence, and an action.
      { expect: "What next?", send: ENTER },
      { expect: "Spoken text of the sequence", send: "Here is how we cook." + ENTER },
      { expect: "Look for this sequence", send: DOWN + ENTER },
      { expect: "Look gender", send: ENTER },
      { expect: "Look of this sequence", send: "office" },
      { expect: "❯ Maya at the office", send: ENTER },
      { expect: "Action", send: "smiles" + ENTER },
      { expect: "Media on screen", send: ENTER },
      { expect: "Voice of this block (type to search)" },
      { expect: "❯ Olivia", send: ENTER },
      { expect: "Add another sequence to this block?", send: ENTER },
      // A silence of 1.5 s.
      { expect: "What next?", send: DOWN + ENTER },
      { expect: "Length of the silence, in seconds", send: "1.5" + ENTER },
      { expect: "Look for this sequence", send: ENTER },
      { expect: "Action", send: ENTER },
      { expect: "Media on screen", send: ENTER },
      { expect: "(silence, 1.5 s)" },
      // Save (second from the bottom of the menu), then do not generate now.
      { expect: "What next?", send: UP + UP + ENTER },
      { expect: "Preview it first?", send: ENTER },
      { expect: "Video format", send: ENTER },
      { expect: "Background music?", send: ENTER },
      { expect: "Make the video now?", send: ENTER },
      { expect: "To make it later: mediagen generate --plan plan.json --watch" },
    ];
    const r = await onTerminal(steps, ["plan", "new", "-o", "plan.json"]);
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);

    const file = path.join(dir, "plan.json");
    const plan = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(plan).toEqual([
      {
        voice_id: "vc_olivia",
        look_id: "lk_maya_kitchen",
        sequences: [{ text: "Welcome to our kitchen.", media: { url: picture, show: "full" } }],
      },
      {
        voice_id: "vc_olivia",
        look_id: "lk_maya_kitchen",
        sequences: [{ text: "Here is how we cook.", look_id: "lk_maya_office", action: "smiles" }],
      },
      { look_id: "lk_maya_kitchen", sequences: [{ text: null, duration_ms: 1500 }] },
    ]);
    expect(leftovers()).toEqual(["plan.json"]);

    const valid = await run(["plan", "validate", file, "--json"], { home });
    expect(valid.exitCode, valid.stdout).toBe(0);
    expect(valid.json()).toMatchObject({ valid: true, ids_checked: true });
    const started = await run(["generate", "--plan", file, "--json"], { home });
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.json()).toMatchObject({ status: "pending", job_id: expect.stringMatching(/^run_/) });
  });

  it("plan edit re-opens a plan: a block deleted and the result saved back, validated", async () => {
    const file = path.join(dir, "edit-me.json");
    fs.writeFileSync(
      file,
      JSON.stringify([
        { voice_id: "vc_emma", look_id: "lk_maya_kitchen", sequences: [{ text: "One." }] },
        { sequences: [{ text: null, duration_ms: 800 }] },
        { voice_id: "vc_emma", look_id: "lk_maya_kitchen", sequences: [{ text: "Two." }] },
      ]),
    );
    const steps: Step[] = [
      { expect: "(silence, 0.8 s)" },
      // Menu: speech, silent, edit, move, delete…: "Delete a block…" is the fifth.
      { expect: "What next?", send: DOWN + DOWN + DOWN + DOWN + ENTER },
      { expect: "Delete which block", send: DOWN + ENTER },
      { expect: "Delete block 2?", send: "y" + ENTER },
      { expect: "What next?", send: UP + UP + ENTER },
      { expect: "Preview it first?", send: ENTER },
      { expect: "Video format", send: ENTER },
      { expect: "Background music?", send: ENTER },
      { expect: "Make the video now?", send: ENTER },
    ];
    const r = await onTerminal(steps, ["plan", "edit", "edit-me.json"]).finally(() => fs.renameSync(file, path.join(home, "edited.json")));
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);
    expect(r.screen).toContain("Block 1 · voice Emma (vc_emma)");
    expect(JSON.parse(fs.readFileSync(path.join(home, "edited.json"), "utf8"))).toEqual([
      { voice_id: "vc_emma", look_id: "lk_maya_kitchen", sequences: [{ text: "One." }] },
      { voice_id: "vc_emma", look_id: "lk_maya_kitchen", sequences: [{ text: "Two." }] },
    ]);
  });

  it("at the end it offers to generate: the equivalent command is printed first, then the video is made", async () => {
    const file = path.join(dir, "short.json");
    fs.writeFileSync(file, JSON.stringify([{ voice_id: "vc_noah", look_id: "lk_james_car", sequences: [{ text: "Short." }] }]));
    const steps: Step[] = [
      { expect: "Block 1 · voice Noah (vc_noah)" },
      { expect: "What next?", send: UP + UP + ENTER },
      { expect: "Preview it first?", send: ENTER },
      { expect: "Video format", send: ENTER },
      { expect: "Background music?", send: ENTER },
      { expect: "Make the video now?", send: DOWN + ENTER },
      { expect: "Running: mediagen generate --plan short.json --watch" },
    ];
    const r = await onTerminal(steps, ["plan", "edit", "short.json"], 90).finally(() => fs.renameSync(file, path.join(home, "short.json")));
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);
    expect(r.screen).toMatch(/Started generation run_[0-9a-f]+/);
    expect(r.screen).toMatch(/status\s+completed/);
  }, 120_000);

  it("Ctrl-C mid-wizard: exit 130, no stack trace, no file and no temp file", async () => {
    const steps: Step[] = [
      ...PICK_DEFAULTS,
      { expect: "What next?", send: ENTER },
      { expect: "Spoken text of the sequence", send: "Half a thought" },
      { expect: "Half a thought", send: CTRL_C },
    ];
    const r = await onTerminal(steps, ["plan", "new", "-o", "interrupted.json"]);
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.signal, r.screen).toBe(2); // SIGINT, as a shell must see it to stop a loop
    expect(r.screen).toContain("Interrupted: nothing was saved.");
    expect(r.screen).not.toMatch(/\n\s+at .+\(.*:\d+:\d+\)/);
    expect(leftovers().filter((f) => f !== "plan.json")).toEqual([]);
  });

  it("on a terminal that reports 0 columns and 0 rows: the pickers still draw and answer, Ctrl-C still leaves nothing", async () => {
    const steps: Step[] = [...PICK_DEFAULTS, { expect: "What next?", send: CTRL_C }];
    const r = await onTerminal(steps, ["plan", "new", "-o", "zero-columns.json"], 40, { cols: 0, rows: 0 });
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.signal, r.screen).toBe(2); // SIGINT, as a shell must see it to stop a loop
    expect(r.screen).toContain("Maya in the kitchen (lk_maya_kitchen)");
    expect(r.screen).toContain("Interrupted: nothing was saved.");
    expect(leftovers().filter((f) => f !== "plan.json")).toEqual([]);
  });
});

describe("plan new without a terminal", () => {
  it("refuses with exit 2 and names the non-interactive way", async () => {
    const r = await run(["plan", "new", "-o", path.join(dir, "never.json")], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/needs a terminal/);
    expect(r.stderr).toContain("mediagen plan validate");
    expect(r.stderr).toContain("mediagen generate --plan");
    expect(fs.existsSync(path.join(dir, "never.json"))).toBe(false);
    // A terminal on stdin is not enough: the prompts are drawn on stderr.
    const half = await run(["plan", "new"], { home, tty: { stdin: true, stdout: true }, env: { CI: undefined } });
    expect(half.exitCode).toBe(2);
    const edit = await run(["plan", "edit", "x.json", "--json"], { home });
    expect(edit.exitCode).toBe(2);
    expect(edit.errorLine()).toMatchObject({ code: "no_terminal" });
  });
});
