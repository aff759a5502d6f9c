/**
 * batch, as a shell scripter met it (issue 38): a transient 5xx while reading a status is a missed
 * read, not a failed line; a .txt of one prompt per line is read as lines; a re-run prints the
 * paths of the lines already done, and its summary tells this run from the total and counts refunds.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

const AS = ["--as", "asset --type image --model imgA-4 --prompt {prompt}"];

describe("batch run, round 3", () => {
  it("a 503 while reading a job's status is read again: the line is done, exit 0", async () => {
    const home = newHome();
    const file = path.join(home, "one.jsonl");
    fs.writeFileSync(file, `${JSON.stringify({ kind: "asset", type: "image", model: "imgA-4", prompt: "a kite" })}\n`);
    const fault = await run(["local", "faults", "add", "assetStatus", "error", "--status", "503", "--times", "2"], { home });
    expect(fault.exitCode, fault.stderr).toBe(0);
    const r = await run(["batch", "run", file, "--out", path.join(home, "out"), "-q"], { home, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/\.png$/);
  });

  it("a .txt is one prompt per line (no header); a re-run -q prints the paths already made; the summary tells this run from the total", async () => {
    const home = newHome();
    const file = path.join(home, "prompts.txt");
    fs.writeFileSync(file, "a red kite\n\n# a comment\na blue kite\n");
    const out = path.join(home, "out");
    const first = await run(["batch", "run", file, ...AS, "--out", out, "-q"], { home, timeoutMs: 60_000 });
    expect(first.exitCode, first.stderr).toBe(0);
    const paths = first.stdout.trim().split("\n");
    expect(paths).toHaveLength(2);
    const prompts = (await run(["history", "--json", "--no-refresh"], { home })).json<{ prompt?: string }[]>().map((j) => j.prompt);
    expect(prompts.sort()).toEqual(["a blue kite", "a red kite"]);

    const again = await run(["batch", "run", file, ...AS, "--out", out, "-q"], { home, timeoutMs: 60_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout.trim().split("\n").sort()).toEqual([...paths].sort());
    const human = await run(["batch", "run", file, ...AS, "--out", out], { home, timeoutMs: 60_000 });
    expect(human.stderr).toMatch(/2\/2 done \(0 this run, 2 before\)/);
    expect(human.stderr).toMatch(/0 credits debited this run \(2 in all\)/);
  });

  it("a .txt with a template of two columns is refused, saying why", async () => {
    const home = newHome();
    const file = path.join(home, "p.txt");
    fs.writeFileSync(file, "a\n");
    const r = await run(["batch", "run", file, "--as", "asset --type image --model {model} --prompt {prompt}"], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("one value per line");
  });

  it("the summary counts the credits refunded for failed jobs", async () => {
    const home = newHome();
    const file = path.join(home, "fail.jsonl");
    fs.writeFileSync(file, `${JSON.stringify({ kind: "asset", type: "image", model: "imgA-4", prompt: "a kite", simulate: "fail" })}\n`);
    const r = await run(["batch", "run", file, "--out", path.join(home, "out")], { home, timeoutMs: 60_000 });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/1 credit debited, 1 refunded \(failed jobs\)/);
  });
});
