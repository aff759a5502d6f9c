/**
 * Narrow terminals read well (issue 26), on a real pseudo-terminal whose output is replayed as the
 * terminal draws it (carriage returns and erases applied, no wrapping: a line longer than the
 * terminal is one it would have wrapped): `history` at 40 columns keeps kind, status and credits and
 * shortens paths from the middle; the spinner is cut to the width; the `asset models` footnote wraps
 * at words (no line starts with ";"); the batch bar is cleared before a saved path; `avatar status`
 * says the service's word in text as in JSON.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";
import { onTerminal, replayScreen } from "./pty.js";
import { COST_NOTE } from "../../src/features/asset/client/cli.js";

let home: string;
let deep: string;

beforeAll(async () => {
  home = newHome();
  deep = path.join(home, "projects", "spring-campaign-2026", "product-shots", "first-round");
  const a = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a red fox", "--watch", "--download", deep], {
    home,
    timeoutMs: 60_000,
  });
  expect(a.exitCode, a.stderr).toBe(0);
  const g = await run(["generate", "--prompt", "why cats purr", "--duration", "10", "--json"], { home });
  expect(g.exitCode, g.stderr).toBe(0);
}, 90_000);

describe("history on a narrow terminal", () => {
  it("at 40 columns: every line fits; each job keeps its id whole, its kind, status and credits; the saved path is shortened from the middle", async () => {
    // --no-refresh: the rows as recorded (a refresh would move the generation on while this reads it).
    const r = await onTerminal(["history", "--no-refresh"], [], { home, cols: 40 });
    expect(r.exit, r.screen).toBe(0);
    const lines = replayScreen(r.raw).filter((l) => l);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(40);
    const entries = (await run(["history", "--json", "--no-refresh"], { home })).json<{ id: string; kind: string; saved: string | null }[]>();
    const asset = entries.find((e) => e.kind === "asset")!;
    expect(lines).toContain(asset.id);
    expect(lines).toContain("  asset · completed · 0.1 credits");
    expect(lines).toContain("  generation · pending · 5 credits");
    const saved = lines.find((l) => l.includes("…") && l.endsWith(path.basename(asset.saved!)));
    expect(saved, lines.join("\n")).toBeDefined();
    expect(saved!.trim().startsWith(home.slice(0, 5))).toBe(true);
  });

  it("at 100 columns: the table with KIND, STATUS and CREDITS, the path shortened, no line (the header included) wider than the terminal", async () => {
    const r = await onTerminal(["history", "--no-refresh"], [], { home, cols: 100 });
    expect(r.exit, r.screen).toBe(0);
    const lines = replayScreen(r.raw).filter((l) => l);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
    expect(lines[0]).toMatch(/^KIND\s+ID\s+CREDITS\s+STATUS\s+SAVED$/);
    expect(lines.some((l) => /asset .* 0\.1 +completed +\/.*….*\.png$/.test(l))).toBe(true);
  });
});

describe("text and live lines fit the terminal", () => {
  it("asset models: the footnote wraps at words, at 120 and at 40 columns; no line starts with ';'", async () => {
    for (const cols of [120, 40]) {
      const r = await onTerminal(["asset", "models"], [], { home, cols });
      expect(r.exit, r.screen).toBe(0);
      const lines = replayScreen(r.raw);
      const from = lines.findIndex((l) => l.startsWith("CREDITS: the price"));
      expect(from, lines.join("\n")).toBeGreaterThan(0);
      const note = lines.slice(from).filter((l) => l);
      for (const l of note) {
        expect(l.length, l).toBeLessThanOrEqual(cols);
        expect(l.startsWith(";"), l).toBe(false);
      }
      expect(note.join(" ")).toBe(COST_NOTE);
    }
  });

  it("the wait spinner of several jobs is cut to the width with … instead of wrapping", async () => {
    const r = await onTerminal(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "three foxes", "--count", "3", "--watch"], [], {
      home,
      cols: 40,
      maxSeconds: 60,
    });
    expect(r.exit, r.screen).toBe(0);
    const raw = r.raw;
    // Every frame the spinner drew (the text between an erase of the line and the next one) fits.
    const frames = raw
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the spinner's escape sequences are what is split on
      .split(/\u001b\[2K|\u001b\[\d*G|\r/)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences are what is stripped
      .map((f) => f.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ""))
      .filter((f) => f.includes("asset "));
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) for (const l of f.split("\n")) expect(l.length, JSON.stringify(l)).toBeLessThanOrEqual(40);
    expect(frames.some((f) => f.includes("…"))).toBe(true);
  });

  it("batch run: the progress bar is cleared before each saved path, so every path starts its own line", async () => {
    const file = path.join(home, "two.jsonl");
    fs.writeFileSync(file, [1, 2].map((i) => JSON.stringify({ kind: "asset", type: "image", model: "imgA-4-fast", prompt: `bar test ${i}` })).join("\n") + "\n");
    const out = path.join(home, "bar-out");
    const r = await onTerminal(["batch", "run", file, "--out", out, "--parallel", "1"], [], { home, cols: 200, maxSeconds: 60 });
    expect(r.exit, r.screen).toBe(0);
    const lines = replayScreen(r.raw);
    const saved = fs.readdirSync(out).filter((f) => f.endsWith(".png"));
    expect(saved).toHaveLength(2);
    for (const f of saved) expect(lines, lines.join("\n")).toContain(path.join(out, f));
    expect(lines.some((l) => /ETA|running/.test(l) && l.includes(out))).toBe(false);
  });
});

describe("avatar status: one vocabulary", () => {
  it("the text says the service's status, as --json does", async () => {
    const c = await run(["avatar", "create", "--prompt", "a calm librarian", "--watch", "--json"], { home, timeoutMs: 60_000 });
    expect(c.exitCode, c.stderr).toBe(0);
    const { avatar_id, look_id } = c.json<{ avatar_id: string; look_id: string }>();
    const json = (await run(["avatar", "status", avatar_id, look_id, "--json"], { home })).json<{ status: string }>();
    const text = await run(["avatar", "status", avatar_id, look_id], { home });
    expect(text.stdout).toMatch(new RegExp(`^status\\s+${json.status}$`, "m"));
    expect(json.status).toBe("completed");
  });
});
