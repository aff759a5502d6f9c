/**
 * The wizard keeps your work (issue 26), on a real pseudo-terminal: a draft beside the output,
 * rewritten after each answer; Ctrl-C with work in progress asks before discarding it (a second
 * Ctrl-C quits and keeps it); the next `plan new` offers to resume it; saving removes it. A look whose
 * shape differs from the video's is said in the wizard and warned about (not failed) by `plan validate`.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";
import { KEY, onTerminal as onPty, type PtyOptions, type PtyResult, type Step } from "./pty.js";

const { ENTER, DOWN, UP, CTRL_C } = KEY;
let home: string;
let dir: string;

/** The wizard's prompts listen as soon as they are drawn: a short quiet time before each step's keys. */
const onTerminal = (args: string[], steps: Step[], o: PtyOptions): Promise<PtyResult> => onPty(args, steps, { quietMs: 30, ...o });

const pickDefaults = (look: string, pick: string): Step[] => [
  { expect: "Voice language", send: ENTER },
  { expect: "Voice gender", send: DOWN + ENTER },
  { expect: "Default voice", send: "olivia" },
  { expect: "❯ Olivia", send: ENTER },
  { expect: "Look gender", send: ENTER },
  { expect: "Default look", send: look },
  { expect: `❯ ${pick}`, send: ENTER },
];
const firstSequence = (text: string): Step[] => [
  { expect: "What next?", send: ENTER },
  { expect: "Spoken text of the sequence", send: text + ENTER },
  { expect: "Look for this sequence", send: ENTER },
  { expect: "Action", send: ENTER },
  { expect: "Media on screen", send: ENTER },
  // The block's voice: the default one, Olivia, fits the look (female) and the text (English).
  { expect: "Voice of this block (type to search)" },
  { expect: "❯ Olivia", send: ENTER },
];

beforeAll(() => {
  home = newHome();
  dir = path.join(home, "work");
  fs.mkdirSync(dir);
});

// Each wizard works on its own file (kept, dropped, edited): the three terminals run at the same time.
describe.concurrent("plan new keeps a draft", () => {
  it("Ctrl-C mid-block asks first; a second Ctrl-C quits keeping the draft; the next plan new resumes it and saving removes it", { timeout: 90_000 }, async () => {
    const steps: Step[] = [
      ...pickDefaults("kitchen", "Maya in the kitchen"),
      ...firstSequence("The first sequence."),
      { expect: "Add another sequence to this block?", send: "y" + ENTER },
      { expect: "Spoken text of the sequence", send: "Half a thou" },
      { expect: "Half a thou", send: CTRL_C },
      { expect: "Discard your work?", send: CTRL_C },
    ];
    const r = await onTerminal(["plan", "new", "-o", "kept.json"], steps, { home, cwd: dir });
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.signal, r.screen).toBe(2); // SIGINT, as a shell must see it to stop a loop
    const draft = path.join(dir, "kept.json.draft");
    expect(r.screen).toContain(`your work is kept in ${draft}`);
    expect(r.screen).toContain("mediagen plan new -o kept.json` offers to resume it");
    expect(fs.existsSync(path.join(dir, "kept.json"))).toBe(false);
    const kept = JSON.parse(fs.readFileSync(draft, "utf8"));
    expect(kept.state.blocks).toHaveLength(1);
    expect(kept.state.blocks[0].sequences.map((s: { text: string }) => s.text)).toEqual(["The first sequence."]);
    // No temp file of the atomic writes is left.
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    const again: Step[] = [
      { expect: "A draft of kept.json was kept" },
      { expect: "Resume the draft?", send: ENTER },
      { expect: "Block 1 · voice Olivia (vc_olivia) · look Maya in the kitchen (lk_maya_kitchen)" },
      { expect: "What next?", send: UP + UP + ENTER },
      { expect: "Preview it first?", send: ENTER },
      { expect: "Video format", send: ENTER },
      { expect: "Background music?", send: ENTER },
      { expect: "Make the video now?", send: ENTER },
    ];
    const r2 = await onTerminal(["plan", "new", "-o", "kept.json"], again, { home, cwd: dir });
    expect(r2.failed_step, r2.screen).toBeNull();
    expect(r2.exit, r2.screen).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "kept.json"), "utf8"))).toEqual([
      { voice_id: "vc_olivia", look_id: "lk_maya_kitchen", sequences: [{ text: "The first sequence." }] },
    ]);
    expect(fs.existsSync(draft)).toBe(false);
  });

  it("Ctrl-C then 'go back' returns to the plan; Ctrl-C then 'discard' removes the draft; a horizontal look is said", { timeout: 60_000 }, async () => {
    const steps: Step[] = [
      ...pickDefaults("office", "Maya at the office"),
      { expect: "Note: Maya at the office is a horizontal look in a vertical video" },
      ...firstSequence("Kept for a moment."),
      { expect: "Add another sequence to this block?", send: ENTER },
      { expect: "What next?", send: CTRL_C },
      { expect: "Discard your work?", send: ENTER },
      { expect: "What next?", send: CTRL_C },
      { expect: "Discard your work?", send: DOWN + DOWN + ENTER },
    ];
    const r = await onTerminal(["plan", "new", "-o", "dropped.json"], steps, { home, cwd: dir });
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.signal, r.screen).toBe(2); // SIGINT, as a shell must see it to stop a loop
    expect(r.screen).toContain("Interrupted: nothing was saved (the draft was discarded).");
    expect(fs.existsSync(path.join(dir, "dropped.json.draft"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "dropped.json"))).toBe(false);
  });

  it("plan edit offers the draft kept for the file it opens; 'open as saved' discards it", { timeout: 60_000 }, async () => {
    const file = path.join(dir, "edited.json");
    fs.writeFileSync(file, JSON.stringify([{ voice_id: "vc_emma", look_id: "lk_maya_kitchen", sequences: [{ text: "One." }] }]));
    // The menu of an opened plan of one block: speech, silent, edit, delete…
    const steps: Step[] = [
      { expect: "What next?", send: DOWN + DOWN + DOWN + ENTER },
      { expect: "Delete which block", send: ENTER },
      { expect: "Delete block 1?", send: "y" + ENTER },
      { expect: "What next?", send: CTRL_C },
      { expect: "Discard your work?", send: DOWN + ENTER },
    ];
    const r = await onTerminal(["plan", "edit", "edited.json"], steps, { home, cwd: dir });
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.signal, r.screen).toBe(2); // SIGINT, as a shell must see it to stop a loop
    expect(r.screen).toContain("mediagen plan edit edited.json` offers to resume it");
    expect(JSON.parse(fs.readFileSync(`${file}.draft`, "utf8")).state.blocks).toEqual([]);

    const r2 = await onTerminal(
      ["plan", "edit", "edited.json"],
      [
        { expect: "Resume the draft?", send: DOWN + ENTER },
        { expect: "What next?", send: CTRL_C },
      ],
      { home, cwd: dir },
    );
    expect(r2.failed_step, r2.screen).toBeNull();
    expect(r2.screen).toContain("Open edited.json as saved (discard the draft)");
    expect(r2.screen).toContain("Block 1 · voice Emma (vc_emma)");
    expect(r2.screen).toContain("Interrupted: nothing was saved.");
    expect(fs.existsSync(`${file}.draft`)).toBe(false);
  });
});

describe("plan validate and the look's shape", () => {
  it("warns (exit 0) when a look's format differs from the video's; --format horizontal fits it; a bad --format is exit 2", async () => {
    const file = path.join(dir, "shapes.json");
    fs.writeFileSync(
      file,
      JSON.stringify([{ voice_id: "vc_emma", look_id: "lk_maya_kitchen", sequences: [{ text: "Hi." }, { text: "There.", look_id: "lk_maya_office" }] }]),
    );
    const r = await run(["plan", "validate", file, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      valid: true,
      warnings: [
        { code: "LOOK_FORMAT_MISMATCH", field: "sequence_plan[0].sequences[1].look_id", message: expect.stringContaining("horizontal look in a vertical video") },
      ],
    });
    const human = await run(["plan", "validate", file], { home });
    expect(human.stdout).toContain("warning: LOOK_FORMAT_MISMATCH: sequence_plan[0].sequences[1].look_id: look lk_maya_office is a horizontal look in a vertical video");
    const wide = await run(["plan", "validate", file, "--format", "horizontal", "--json"], { home });
    expect(wide.json()).toMatchObject({
      valid: true,
      warnings: [{ code: "LOOK_FORMAT_MISMATCH", field: "sequence_plan[0].look_id", message: expect.stringContaining("vertical look in a horizontal video") }],
    });
    const bad = await run(["plan", "validate", file, "--format", "wide"], { home });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--format: expected one of");
  });
});
