/**
 * The timeline fitted to a terminal (the wizard's running summary, issue 38): lines broken between
 * words, "·" kept with the word after it, ids never cut, links shortened in their middle; without a
 * width (`plan show`) the lines are as before.
 */
import { describe, expect, it } from "vitest";
import { checkPlan, type PlanBlock } from "../../src/features/generation/plan.js";
import { fitParts, planTimeline, timelineLines, wrapWords } from "../../src/features/generation/client/plan-show.js";
import { videoFlags } from "../../src/features/generation/client/plan-wizard.js";

const LINK = "https://example.com/media/a-rather-long-path/of-pictures/kitchen-picture.png";
const PLAN = [
  {
    voice_id: "vc_emma",
    look_id: "lk_maya_kitchen",
    sequences: [
      { text: "Welcome to our kitchen, where we cook for the whole family every single day.", action: "smile and point at the door" },
      { text: "Here is how.", look_id: "lk_maya_office", media: { url: LINK, show: "half" } },
    ],
  },
  { look_id: "lk_maya_kitchen", sequences: [{ text: null, duration_ms: 1500 }] },
];
const names = {
  voice: (id: string) => (id === "vc_emma" ? "Emma" : undefined),
  look: (id: string) => (id === "lk_maya_kitchen" ? "Maya in the kitchen" : "Maya at the office"),
};
const timeline = () => planTimeline(checkPlan(PLAN, { allowLocalFiles: true }).blocks as PlanBlock[], "local");
const IDS = ["vc_emma", "lk_maya_kitchen", "lk_maya_office"];

describe("wrapWords", () => {
  it("breaks between words, indents the rest, keeps '·' with the next word and ids whole", () => {
    const lines = wrapWords("Block 1 · voice Emma (vc_emma) · look Maya in the kitchen (lk_maya_kitchen)", 30);
    expect(lines).toEqual(["Block 1 · voice Emma (vc_emma)", "  · look Maya in the kitchen", "  (lk_maya_kitchen)"]);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(30);
  });

  it("shortens a link too long for any line in its middle, keeping its end", () => {
    const [line, ...more] = wrapWords(`media: half ${LINK}`, 50);
    expect(more).toEqual([]);
    expect(line).toHaveLength(50);
    expect(line).toMatch(/^media: half https:\/\/exa.*….*kitchen-picture\.png$/);
  });

  it("leaves a line that fits, or one whose width is unknown, alone", () => {
    expect(wrapWords("short", 50)).toEqual(["short"]);
    expect(wrapWords(`a ${LINK}`, Infinity)).toEqual([`a ${LINK}`]);
  });
});

describe("fitParts", () => {
  it("starts a part that does not fit on a line of its own, after '·'", () => {
    expect(fitParts(["Block 1", "voice Emma (vc_emma)", "look Maya in the kitchen (lk_maya_kitchen)"], 50)).toEqual([
      "Block 1 · voice Emma (vc_emma)",
      "  · look Maya in the kitchen (lk_maya_kitchen)",
    ]);
  });
});

describe("timelineLines with a width", () => {
  it("at 50 and 40 columns: every line fits, every id-shaped word is a whole id, the action reads whole", () => {
    for (const width of [50, 40]) {
      const lines = timelineLines(timeline(), names, width);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(width);
      for (const l of lines) for (const m of l.match(/\b(?:vc|lk)_[\w-]*/g) ?? []) expect(IDS).toContain(m);
      const text = lines.map((l) => l.trim()).join(" ");
      for (const id of IDS) expect(text).toContain(`(${id})`);
      expect(text).toContain("action: smile and point at the door");
      // The text is cut between words.
      expect(text).toContain('"Welcome to our…"');
    }
  });

  it("without a width (plan show): one line per header and sequence, as before", () => {
    const lines = timelineLines(timeline(), names);
    expect(lines[0]).toBe("Block 1 · voice Emma (vc_emma) · look Maya in the kitchen (lk_maya_kitchen)");
    expect(lines).toContain(`                 look Maya at the office (lk_maya_office) · media: half ${LINK}`);
  });
});

describe("the wizard's video choice", () => {
  it("adds generate's flags for what was chosen, none for the defaults", () => {
    expect(videoFlags({})).toEqual([]);
    expect(videoFlags({ format: "horizontal", music: true })).toEqual(["--format", "horizontal", "--music"]);
    expect(videoFlags({ format: "custom", width: "1280", height: "720" })).toEqual(["--format", "custom", "--width", "1280", "--height", "720"]);
  });
});
