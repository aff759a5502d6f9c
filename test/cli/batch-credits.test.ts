/**
 * A batch that runs out of credits (issue 26): the lines the service refuses with 402 are an
 * insufficient-credits outcome — exit 5, as a `--max-credits` skip, not 7 — and the summary says how
 * many credits were missing and how to add them; after adding them, the same command starts those
 * lines (without --retry-failed: nothing was debited for them).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { localKey, newHome, run } from "./helpers.js";

const line = (i: number) => JSON.stringify({ kind: "asset", type: "image", model: "imgA-4-fast", prompt: `shot ${i}` });

describe("batch run out of credits", () => {
  it("402-refused lines: exit 5, the missing credits in the summary, and a re-run after adding credits starts them", async () => {
    const home = newHome();
    const { api_key, space_id } = await localKey("PRO", 0.15, home);
    const env = { MEDIAGEN_API_KEY: api_key };
    const file = path.join(home, "three.jsonl");
    fs.writeFileSync(file, [1, 2, 3].map(line).join("\n") + "\n");
    const out = path.join(home, "out");

    const r = await run(["batch", "run", file, "--out", out, "--parallel", "1", "--json"], { home, env, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(5);
    const events = r.stdout
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const lines = events.filter((e) => e.event === "line");
    expect(lines.map((e) => [e.line, e.status])).toEqual([
      [1, "done"],
      [2, "insufficient_credits"],
      [3, "insufficient_credits"],
    ]);
    expect(lines[1]).toMatchObject({ code: "insufficient_credits", missing: 0.05 });
    expect(events.find((e) => e.event === "summary")).toMatchObject({ done: 1, failed: 0, insufficient_credits: 2, credits_missing: 0.15 });

    const human = await run(["batch", "run", file, "--out", out, "--parallel", "1"], { home, env, timeoutMs: 60_000 });
    expect(human.exitCode, human.stderr).toBe(5);
    expect(human.stderr).toMatch(/Batch: 1\/3 done \(0 this run, 1 before\), 2 refused for want of credits: 0\.15 credits missing;/);
    expect(human.stderr).toContain(`mediagen local credits add ${space_id} 0.15`);

    expect((await run(["local", "credits", "add", space_id, "1"], { home })).exitCode).toBe(0);
    // The two refused lines together (--parallel 2): the lines are compared in line order.
    const again = await run(["batch", "run", file, "--out", out, "--parallel", "2", "--json"], { home, env, timeoutMs: 60_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    const after = again.stdout
      .split("\n")
      .filter((l) => l.includes('"event":"line"'))
      .map((l) => JSON.parse(l) as { line: number; status: string })
      .sort((a, b) => a.line - b.line);
    expect(after.map((e) => [e.line, e.status])).toEqual([
      [1, "skipped_done"],
      [2, "done"],
      [3, "done"],
    ]);
  }, 120_000);
});
