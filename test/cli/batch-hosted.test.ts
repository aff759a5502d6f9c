/**
 * `mediagen batch run` on the hosted target, played by `mediagen serve` over real HTTP (rate limit
 * 20 per 1 s window): the pacing reads the X-RateLimit-* headers off the wire and meets no 429; and
 * after a crash between a start's answer and the record of its job id, where the service cannot be
 * asked whether the start landed, the line is `unknown` (exit 7) and is sent again only with
 * --retry-unknown.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, childEnv, createKey, startServe, type ServeChild } from "../http/serve-child.js";
import { killInStartWindow, newHome, run, runBin } from "./helpers.js";

let serve: ServeChild;
let servedHome: string;
let key: string;

beforeAll(async () => {
  assertBuilt();
  servedHome = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  serve = await startServe(childEnv(servedHome, { MEDIAGEN_LOCAL_RATE_LIMIT: "20", MEDIAGEN_LOCAL_RATE_WINDOW_MS: "1000" }));
  key = await createKey(childEnv(servedHome), "PRO", 100);
});

afterAll(async () => {
  await serve?.stop("SIGTERM");
  fs.rmSync(servedHome, { recursive: true, force: true });
});

function batchFile(dir: string, n: number): string {
  const file = path.join(dir, "shots.jsonl");
  fs.writeFileSync(
    file,
    Array.from({ length: n }, (_, i) => JSON.stringify({ kind: "asset", type: "image", model: "imgA-4-fast", prompt: `shot ${i + 1}` })).join("\n") + "\n",
  );
  return file;
}

const events = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("batch run on the hosted target", () => {
  it("paces by the X-RateLimit headers over HTTP: 12 lines, --parallel 8, no 429, every file saved", async () => {
    const home = newHome();
    const file = batchFile(home, 12);
    const out = path.join(home, "out");
    const r = await run(["--target", "hosted", "--base-url", serve.baseUrl, "batch", "run", file, "--out", out, "--parallel", "8", "--json"], {
      home,
      env: { MEDIAGEN_API_KEY: key },
      timeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const summary = events(r.stdout).find((e) => e.event === "summary")!;
    expect(summary).toMatchObject({ lines: 12, done: 12, rate_limited: 0 });
    // The limit was binding: more requests than one window allows (a start and a poll per line at the least).
    expect(summary.requests as number).toBeGreaterThan(20);
    expect(r.stderr).not.toMatch(/rate limited/i);
    const files = fs.readdirSync(out).filter((f) => f.endsWith(".png"));
    expect(files).toHaveLength(12);
  });

  it("a crash in the start window leaves the line unknown (exit 7); --retry-unknown sends it again", async () => {
    const home = newHome();
    const file = batchFile(home, 3);
    const out = path.join(home, "out");
    const hosted = ["--target", "hosted", "--base-url", serve.baseUrl];
    const crashed = await runBin([...hosted, "batch", "run", file, "--out", out, "--parallel", "1"], {
      home,
      env: { MEDIAGEN_API_KEY: key, ...killInStartWindow(2) },
      timeoutMs: 60_000,
    });
    expect(crashed.signal).toBe("SIGKILL");

    const again = await run([...hosted, "batch", "run", file, "--out", out, "--json"], { home, env: { MEDIAGEN_API_KEY: key }, timeoutMs: 60_000 });
    expect(again.exitCode, again.stderr).toBe(7);
    const lines = events(again.stdout).filter((e) => e.event === "line");
    expect(lines.find((e) => e.line === 2)).toMatchObject({ status: "unknown", code: "unknown_outcome" });
    expect(String(lines.find((e) => e.line === 2)!.message)).toMatch(/cannot be asked whether it landed.*--retry-unknown/);
    expect(lines.filter((e) => e.status === "done" || e.status === "skipped_done")).toHaveLength(2);

    // Still unknown on a plain re-run: nothing is sent for it.
    const still = await run([...hosted, "batch", "run", file, "--out", out, "--json"], { home, env: { MEDIAGEN_API_KEY: key } });
    expect(still.exitCode).toBe(7);
    expect(events(still.stdout).find((e) => e.event === "summary")).toMatchObject({ requests: 0, unknown: 1 });

    const retried = await run([...hosted, "batch", "run", file, "--out", out, "--retry-unknown", "--json"], { home, env: { MEDIAGEN_API_KEY: key }, timeoutMs: 60_000 });
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(events(retried.stdout).find((e) => e.event === "summary")).toMatchObject({ done: 3 });
  });
});
