/**
 * The wizard, round 3 of issue 38, on a real pseudo-terminal: each new speech block asks its voice,
 * pre-filled with one of the look's gender in the text's language, and a voice that does not match
 * is warned about (not refused); the step before "Make the video now?" offers the video format and
 * background music (the request's `format` and `enable.music`: the sequence plan has neither), Enter
 * keeping today's command; at 50 columns the live timeline and the notes fit the terminal, ids whole.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";
import { KEY, onTerminal as onPty, type PtyResult, type Step } from "./pty.js";

const { ENTER, DOWN, UP } = KEY;
let home: string;
let dir: string;

const onTerminal = (args: string[], steps: Step[], cols = 100, maxSeconds = 40): Promise<PtyResult> =>
  onPty(args, steps, { home, cwd: dir, cols, rows: 30, maxSeconds, quietMs: 30 });

/** A speech block of one sequence: its text, then the block's look, no action, no media. */
const speech = (text: string): Step[] => [
  { expect: "What next?", send: ENTER },
  { expect: "Spoken text of the sequence", send: text + ENTER },
  { expect: "Look for this sequence", send: ENTER },
  { expect: "Action", send: ENTER },
  { expect: "Media on screen", send: ENTER },
];
/** Save (second from the bottom of the menu), no preview. */
const SAVE: Step[] = [
  { expect: "What next?", send: UP + UP + ENTER },
  { expect: "Preview it first?", send: ENTER },
];

/**
 * The lines the run drew, each frame apart (the text between two escapes or carriage returns: a
 * prompt redrawn in place is not glued to the line before), empty ones left out.
 */
function drawnLines(raw: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences are what is split on
  const frames = raw.split(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007|\r/);
  return frames.flatMap((f) => f.split("\n")).filter((l) => l.trim());
}

/** Every line drawn fits `cols`; every id-shaped word on screen is a whole id of `ids`. */
function expectFits(r: PtyResult, cols: number, ids: string[]): string[] {
  const lines = drawnLines(r.raw);
  for (const l of lines) expect(l.length, `${JSON.stringify(l)}\n${lines.join("\n")}`).toBeLessThanOrEqual(cols);
  for (const l of lines) for (const m of l.match(/\b(?:vc|lk|av)_[\w-]*/g) ?? []) expect(ids, `${m} in ${JSON.stringify(l)}`).toContain(m);
  return lines;
}

/** The ids the pickers may show: every voice, look and avatar of the local instance. */
let catalogIds: string[];

beforeAll(async () => {
  home = newHome();
  dir = path.join(home, "work");
  fs.mkdirSync(dir);
  // Also draws the catalog's pictures now (said once per home), not in a wizard below.
  const looks = (await run(["avatar", "list", "--json"], { home })).json<{ id: string; avatar_id: string }[]>();
  const voices = (await run(["voice", "list", "--json"], { home })).json<{ id: string }[]>();
  catalogIds = [...voices.map((v) => v.id), ...looks.flatMap((l) => [l.id, l.avatar_id])];
}, 60_000);

describe.concurrent("the wizard, round 3", () => {
  it("a new block asks its voice, pre-filled from the look's gender and the text's language; a mismatch is a one-line warning", { timeout: 90_000 }, async () => {
    const steps: Step[] = [
      // Defaults: George (male, English) on Maya in the kitchen (a female look).
      { expect: "Voice language", send: ENTER },
      { expect: "Voice gender", send: DOWN + DOWN + ENTER },
      { expect: "Default voice", send: "george" },
      { expect: "❯ George", send: ENTER },
      { expect: "Look gender", send: ENTER },
      { expect: "Default look", send: "kitchen" },
      { expect: "❯ Maya in the kitchen", send: ENTER },
      // Block 1: English text on a female look: Emma (female, English) is offered first; Enter takes it.
      ...speech("Welcome to our kitchen."),
      { expect: "Voice of this block" },
      { expect: "❯ Emma", send: ENTER },
      { expect: "Add another sequence to this block?", send: ENTER },
      // Block 2: George picked anyway: warned, and kept.
      ...speech("Here is how we cook."),
      { expect: "Voice of this block", send: "george" },
      { expect: "❯ George", send: ENTER },
      { expect: "Warning: George (vc_george) is a male voice on a female look (Maya in the kitchen)" },
      { expect: "Add another sequence to this block?", send: ENTER },
      // Block 3: French text: Camille (female, French) is offered first.
      ...speech("Bonjour, voici la cuisine de la maison."),
      { expect: "Voice of this block" },
      { expect: "❯ Camille", send: ENTER },
      { expect: "Add another sequence to this block?", send: ENTER },
      // Block 4: French text, an English voice: warned about the language.
      ...speech("Nous faisons la cuisine pour les enfants."),
      { expect: "Voice of this block", send: "emma" },
      { expect: "❯ Emma", send: ENTER },
      { expect: "Warning: Emma (vc_emma) speaks en, the text reads as fr" },
      { expect: "Add another sequence to this block?", send: ENTER },
      ...SAVE,
      { expect: "Video format", send: ENTER },
      { expect: "Background music?", send: ENTER },
      { expect: "Make the video now?", send: ENTER },
    ];
    const r = await onTerminal(["plan", "new", "-o", "voices.json"], steps);
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);
    const plan = JSON.parse(fs.readFileSync(path.join(dir, "voices.json"), "utf8")) as { voice_id: string }[];
    expect(plan.map((b) => b.voice_id)).toEqual(["vc_emma", "vc_george", "vc_camille", "vc_emma"]);
    // A match says nothing: only the two mismatches were warned about.
    expect(r.raw.match(/Warning:/g)).toHaveLength(2);
  });

  it("before 'Make the video now?': the format and music; Enter keeps today's command, a choice adds its flags and generate uses them", {
    timeout: 120_000,
  }, async () => {
    const file = path.join(dir, "formats.json");
    fs.writeFileSync(file, JSON.stringify([{ voice_id: "vc_noah", look_id: "lk_james_car", sequences: [{ text: "Short." }] }]));
    const plain = await onTerminal(
      ["plan", "edit", "formats.json"],
      [...SAVE, { expect: "Video format", send: ENTER }, { expect: "Background music?", send: ENTER }, { expect: "Make the video now?", send: ENTER }],
    );
    expect(plain.failed_step, plain.screen).toBeNull();
    expect(plain.exit, plain.screen).toBe(0);
    expect(plain.screen).toMatch(/To make it later: mediagen generate --plan formats\.json --watch\s*$/m);

    // (120 columns: the command is one line.)
    const custom = await onTerminal(
      ["plan", "edit", "formats.json"],
      [
        ...SAVE,
        // vertical (default), square, ads, horizontal, custom
        { expect: "Video format", send: UP + ENTER },
        { expect: "Width in pixels", send: "1280" + ENTER },
        { expect: "Height in pixels", send: "720" + ENTER },
        { expect: "Background music?", send: "y" + ENTER },
        { expect: "Make the video now?", send: ENTER },
      ],
      120,
    );
    expect(custom.failed_step, custom.screen).toBeNull();
    expect(custom.screen).toContain("To make it later: mediagen generate --plan formats.json --watch --format custom --width 1280 --height 720 --music");

    // Horizontal: the vertical look is said to be cropped; generated, the job has the format.
    const made = await onTerminal(
      ["plan", "edit", "formats.json"],
      [
        ...SAVE,
        { expect: "Video format", send: DOWN + DOWN + DOWN + ENTER },
        { expect: "James in the car is a vertical look in a horizontal video" },
        { expect: "Background music?", send: "y" + ENTER },
        { expect: "Make the video now?", send: DOWN + ENTER },
        { expect: "Running: mediagen generate --plan formats.json --watch --format horizontal --music" },
      ],
      100,
      90,
    );
    expect(made.failed_step, made.screen).toBeNull();
    expect(made.exit, made.screen).toBe(0);
    const job = /Started generation (run_[0-9a-f]+)/.exec(made.screen)?.[1];
    expect(job, made.screen).toBeDefined();
    const history = (await run(["history", "--json", "--no-refresh"], { home })).json<{ id: string; video_format?: { format: string } }[]>();
    expect(history.find((h) => h.id === job)?.video_format).toEqual({ format: "horizontal" });
    // The video made: horizontal, with music (off when not asked).
    const status = (await run(["generation", "status", job!, "--json"], { home })).json<{ result: { video_id: string } }>();
    const video = (await run(["local", "videos", "show", status.result.video_id, "--json"], { home })).json<{
      timeline: { format: string; options: { music: boolean } };
    }>();
    expect(video.timeline).toMatchObject({ format: "horizontal", options: { music: true } });
  });

  it("at 50 columns the timeline, the notes and the warnings fit the terminal, at word boundaries, ids whole", { timeout: 90_000 }, async () => {
    const file = path.join(dir, "narrow.json");
    fs.writeFileSync(
      file,
      JSON.stringify([
        {
          voice_id: "vc_emma",
          look_id: "lk_maya_kitchen",
          sequences: [
            { text: "Welcome to our kitchen, where we cook for the whole family every single day.", action: "smile and point at the door" },
            {
              text: "Here is how.",
              look_id: "lk_maya_office",
              media: { url: "https://example.com/media/a-rather-long-path/of-pictures/kitchen-picture.png", show: "half" },
            },
          ],
        },
        { look_id: "lk_maya_kitchen", sequences: [{ text: null, duration_ms: 1500 }] },
      ]),
    );
    const steps: Step[] = [
      { expect: "Total: about" },
      // Edit block 1: its voice, George, is warned about; then the default look changes (a note).
      { expect: "What next?", send: DOWN + DOWN + ENTER },
      { expect: "Which block", send: ENTER },
      { expect: "Block 1", send: UP + UP + UP + ENTER },
      { expect: "Voice of this block (type to search)", send: "george" },
      { expect: "❯ George", send: ENTER },
      { expect: "Warning:" },
      { expect: "Block 1", send: UP + ENTER },
      { expect: "What next?", send: UP + UP + UP + ENTER },
      { expect: "Default look: Maya", send: DOWN + ENTER },
      { expect: "Look gender", send: ENTER },
      { expect: "Default look", send: "office" },
      { expect: "❯ Maya at the office", send: ENTER },
      { expect: "Note:" },
      { expect: "Total: about" },
      // Saved; the command to make it later is broken between words, a backslash at each break, to fit.
      ...SAVE,
      { expect: "Video format", send: ENTER },
      { expect: "Background music?", send: "y" + ENTER },
      { expect: "Make the video now?", send: ENTER },
      { expect: "To make it later:" },
    ];
    const r = await onTerminal(["plan", "edit", "narrow.json"], steps, 50);
    expect(r.failed_step, r.screen).toBeNull();
    expect(r.exit, r.screen).toBe(0);
    // stdout's line, the saved file's path for scripts, is never broken: the rest is the wizard's.
    const lines = expectFits({ ...r, raw: r.raw.replace(`${file}\r\n`, "") }, 50, catalogIds);
    expect(r.raw).toContain(`${file}\r\n`);
    expect(lines.join("\n").replace(/ \\\n\s+/g, " ")).toContain("To make it later:\n  mediagen generate --plan narrow.json --watch --music");
    const all = lines.join("\n");
    // The ids are on screen whole, in the timeline and the notes.
    for (const id of ["(vc_emma)", "(vc_george)", "(lk_maya_kitchen)", "(lk_maya_office)"]) expect(all).toContain(id);
    // Prose is wrapped between words: the note and the warning read back whole once their lines are joined.
    const joined = lines.map((l) => l.trim()).join(" ");
    expect(joined).toContain("Note: Maya at the office is a horizontal look in a vertical video");
    expect(joined).toContain("Warning: George (vc_george) is a male voice on a female look");
    expect(joined).toContain("action: smile and point at the door");
  });
});
