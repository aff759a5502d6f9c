/**
 * `mediagen script` through the built CLI: the script alone on stdout (so it pipes), the cost as talk
 * on stderr, --json the service's object, stdin for the prompt or the body, exit codes 2, 5 and 1.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { localKey, newHome, run } from "./helpers.js";

interface ScriptResult {
  script: string;
  cost: number;
  extractedImages: string[];
}

describe("mediagen script", () => {
  let home: string;
  beforeAll(() => {
    home = newHome();
  });

  it("prints the script alone on stdout and the cost on stderr", async () => {
    const r = await run(["script", "--prompt", "Write a script about night trains in Europe.", "--duration", "20"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("Script: 0.1 credits\n");
    expect(r.stdout).toMatch(/^(Let's talk about|Here is a quick look at|Today, we are taking a closer look at) night trains in Europe\./);
    expect(r.stdout).toMatch(/Thanks for watching\.\n$/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no ANSI escape (ESC) may reach a pipe.
    expect(r.stdout).not.toMatch(/credit|\u001b\[/);
  });

  it("--json prints exactly the service's object and nothing on stderr", async () => {
    const r = await run(["script", "--prompt", "Night trains.", "--duration", "61", "--web-search", "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const res = r.json<ScriptResult>();
    expect(Object.keys(res).sort()).toEqual(["cost", "extractedImages", "script"]);
    expect(res.cost).toBe(0.3);
    expect(r.stderr).toBe("");
  });

  it("-q prints the script and no talk", async () => {
    const r = await run(["script", "--prompt", "Night trains.", "--duration", "10", "-q"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim().length).toBeGreaterThan(20);
  });

  it("reads the prompt from stdin with --prompt -, and a body from --body with flags overriding it", async () => {
    const piped = await run(["script", "--prompt", "-", "--duration", "10", "--json"], { home, input: "Write a script about tea gardens in Darjeeling.\n" });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.json<ScriptResult>().script).toMatch(/tea gardens in Darjeeling/);

    const file = path.join(home, "request.json");
    fs.writeFileSync(file, JSON.stringify({ prompt: "Write a script about ferries.", duration: 600, urls: ["http://127.0.0.1:1/a", "http://127.0.0.1:1/b"] }));
    const body = await run(["script", "--body", file, "--duration", "60", "--json"], { home });
    expect(body.exitCode, body.stderr).toBe(0);
    // 60 s (the flag) + 2 URLs (from the body; unreachable pages are left out but priced).
    expect(body.json<ScriptResult>().cost).toBe(0.3);
    expect(body.json<ScriptResult>().script).toMatch(/ferries/);

    const stdinBody = await run(["script", "--body", "-", "--url", "http://127.0.0.1:1/c", "--json"], { home, input: '{"prompt":"Write a script about canals."}' });
    expect(stdinBody.json<ScriptResult>().cost).toBe(0.2);
  });

  it.each([
    ["no --prompt (no terminal: never a prompt)", ["script"], undefined, "missing_field", "prompt"],
    ["a duration that is not a number", ["script", "--prompt", "x", "--duration", "soon"], undefined, "invalid_value", "--duration"],
    ["--prompt - and --body - together", ["script", "--prompt", "-", "--body", "-"], "{}", "usage_error", "--prompt"],
    ["a malformed --simulate", ["script", "--prompt", "x", "--simulate", "explode"], undefined, "invalid_value", "--simulate"],
    ["the service's 400 (duration out of range)", ["script", "--prompt", "x", "--duration", "5"], undefined, "INVALID_VALUE", "duration"],
    ["the service's 400 (an ftp URL)", ["script", "--prompt", "x", "--url", "ftp://example.com/a"], undefined, "INVALID_VALUE", "urls[0]"],
  ])("%s → exit 2", async (_name, args, input, code, field) => {
    const r = await run([...args, "--json"], { home, ...(input !== undefined ? { input } : {}) });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.errorLine()).toMatchObject({ code, field });
  });

  it("402 INSUFFICIENT_CREDITS → exit 5; a simulated failure → exit 1 and refunded", async () => {
    const { api_key, space_id } = await localKey("PRO", 0.1, home);
    const env = { MEDIAGEN_API_KEY: api_key };
    const poor = await run(["script", "--prompt", "x", "--duration", "61", "--json"], { home, env });
    expect(poor.exitCode, poor.stderr).toBe(5);
    expect(poor.stdout).toBe("");
    expect(poor.errorLine()).toMatchObject({ status: 402, code: "INSUFFICIENT_CREDITS" });

    const failed = await run(["script", "--prompt", "x", "--simulate", "fail"], { home, env });
    expect(failed.exitCode, failed.stderr).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toMatch(/code SCRIPT_GENERATION_FAILED/);
    const ledger = await run(["local", "ledger", space_id, "--json"], { home });
    const moves = ledger.json<{ kind: string; amount: number }[]>().filter((m) => m.kind !== "grant");
    expect(moves.map((m) => [m.kind, m.amount])).toEqual([
      ["debit", -0.1],
      ["refund", 0.1],
    ]);
  });

  it("--help lists the flags with examples", async () => {
    const r = await run(["script", "--help"], { home });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/--prompt <text>[\s\S]*--duration <seconds>[\s\S]*--url <url>[\s\S]*--web-search[\s\S]*--body <file>[\s\S]*--simulate <mode>/);
    expect(r.stdout).toMatch(/Examples:\n\s+\$ mediagen script --prompt/);
  });
});
