/**
 * Waits that say what they wait for (issue 26): the first catalog list of a new home (the catalog's
 * pictures are drawn), each rate-limit wait of a command (not only the first), the pauses a batch
 * makes for the rate-limit window; and a request timeout the user sets bounds 429 waits too (exit 6).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyHome } from "../helpers/cli.js";
import { newHome, run } from "./helpers.js";
import { startStub, type Stub } from "./stub-service.js";

describe("the first catalog list of a new home", () => {
  it("says on stderr that the catalog's pictures are being drawn, once; stdout stays data", async () => {
    const home = emptyHome();
    const first = await run(["avatar", "list", "--json"], { home });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain('"event":"waiting"');
    expect(first.stderr).toMatch(/drawing \d+ pictures of the avatar catalog \(once, on the first use of this home\)/);
    expect(Array.isArray(first.json())).toBe(true);
    const again = await run(["avatar", "list"], { home });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).not.toContain("drawing");
  });
});

// The waits below each run on their own home or stub and mostly wait for a window to pass: they wait
// at the same time. (The catalog test above runs alone: the notice it checks goes to the command
// running in the process, and a second command running beside it would take it.)
describe.concurrent("rate-limit waits", () => {
  describe("rate-limit waits, local target", () => {
    it("each wait of a command is said, not only the first", async () => {
      const home = newHome();
      // Whole-second windows: X-RateLimit-Reset is in whole seconds, so with 1.5 s windows the third read
      // could wait under a second (not said, by design); 3 s leaves room for a slow machine between reads.
      const env = { MEDIAGEN_LOCAL_RATE_LIMIT: "1", MEDIAGEN_LOCAL_RATE_WINDOW_MS: "3000" };
      // Three reads under one request per window: the second and the third each wait for a window.
      const r = await run(["asset", "status", "aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb", "cccccccccccccccccccccccc"], { home, env, timeoutMs: 30_000 });
      expect(r.stdout).not.toMatch(/rate/);
      expect(r.stderr.match(/rate limited by the service; retrying in \d+ s/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    });

    it("--request-timeout 2s: a window that resets later is not waited for: exit 6, saying why", async () => {
      const home = newHome();
      // An hour's window: windows start at multiples of their length, and a minute's could end between the two commands.
      const env = { MEDIAGEN_LOCAL_RATE_LIMIT: "1", MEDIAGEN_LOCAL_RATE_WINDOW_MS: "3600000" };
      expect((await run(["folder", "list"], { home, env })).exitCode).toBe(0);
      const r = await run(["folder", "list", "--request-timeout", "2s", "--json"], { home, env });
      expect(r.exitCode, r.stderr).toBe(6);
      expect(r.errorLine()).toMatchObject({ status: 429 });
      expect(r.stderr).toMatch(/past the request timeout \(2 s, --request-timeout\)/);
      const viaEnv = await run(["folder", "list"], { home, env: { ...env, MEDIAGEN_REQUEST_TIMEOUT: "2" } });
      expect(viaEnv.exitCode, viaEnv.stderr).toBe(6);
    });
  });

  describe("rate-limit waits, hosted target", () => {
    let stub: Stub;
    beforeAll(async () => {
      stub = await startStub();
    });
    afterAll(() => stub.close());

    it("--request-timeout 2s bounds a 429 whose window resets 30 s later: exit 6 at once", async () => {
      const home = newHome();
      const r = await run(["asset", "status", "rate-1", "--target", "hosted", "--base-url", stub.root, "--request-timeout", "2s"], {
        home,
        env: { MEDIAGEN_API_KEY: "sk_test_key" },
        timeoutMs: 15_000,
      });
      expect(r.exitCode, r.stderr).toBe(6);
      expect(r.stderr).toMatch(/resets in \d+(\.\d)? s, past the request timeout \(2 s/);
      expect(stub.requests.filter((q) => q.includes("rate-1"))).toHaveLength(1);
    });
  });

  describe("batch pauses for the rate-limit window", () => {
    it("says how long it waits and why on stderr", async () => {
      const home = newHome();
      const file = path.join(home, "b.jsonl");
      const line = (i: number) => JSON.stringify({ kind: "asset", type: "image", model: "imgA-4-fast", prompt: `shot ${i}` });
      // Two lines: the second line's requests outlast the first window the batch has a whole of, so at
      // least one pause starts early in a 2 s window and lasts over a second (a pause under one is not said).
      fs.writeFileSync(file, [1, 2].map(line).join("\n") + "\n");
      const env = { MEDIAGEN_LOCAL_RATE_LIMIT: "2", MEDIAGEN_LOCAL_RATE_WINDOW_MS: "2000" };
      const r = await run(["batch", "run", file, "--out", path.join(home, "out"), "--parallel", "1"], { home, env, timeoutMs: 60_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/waiting \d+ s for the service's rate-limit window \(2 requests per window, all used\)/);
    }, 60_000);
  });
});
