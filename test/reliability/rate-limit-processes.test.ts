import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { lastJson, requireBuilt, runTogether, startFixture } from "./fixtures/processes.js";

let t: TestInstance;
beforeAll(() => {
  requireBuilt();
  t = openTestInstance({ worker: "none" });
});
afterAll(() => t.close());

test("two processes share one window: exactly 100 of 160 requests pass", async () => {
  // A fixed instant in the middle of a minute, so the window cannot roll over during the test.
  const now = String(Date.UTC(2025, 0, 1, 10, 0, 30));
  const go = path.join(t.home, "go");
  const procs = [0, 1].map(() => startFixture("rate-limit-client.mjs", [t.home, t.key, "80", now, go]));
  await runTogether(procs, go);
  const results = procs.map((p) => lastJson<{ ok: number; limited: number }>(p));
  expect(results.reduce((s, r) => s + r.ok, 0)).toBe(100);
  expect(results.reduce((s, r) => s + r.limited, 0)).toBe(60);
  for (const r of results) expect(r.ok + r.limited).toBe(80);
  const row = t.ratesDb.prepare("SELECT count FROM rate_windows WHERE window_start = ?").get(Date.UTC(2025, 0, 1, 10, 0, 0)) as {
    count: number;
  };
  expect(row.count).toBe(100);
});
