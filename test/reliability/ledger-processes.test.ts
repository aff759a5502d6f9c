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

test("8 processes × 200 debits against 1000 credits: never negative, always the sum of its rows, one refund", async () => {
  const { space } = t.createSpace({ name: "contended", plan: "PRO", credits: 1000 });
  expect(t.ledger.debit(space.id, 500, "shared-job")).toBe(true);
  const go = path.join(t.home, "go");
  const procs = Array.from({ length: 8 }, (_, i) => startFixture("ledger-debit.mjs", [t.home, space.id, "200", `p${i}`, go]));
  await runTogether(procs, go);

  const results = procs.map((p) => lastJson<{ ok: number; short: number; refunded: number }>(p));
  const ok = results.reduce((s, r) => s + r.ok, 0);
  const short = results.reduce((s, r) => s + r.short, 0);
  expect(ok + short).toBe(1600);
  expect(results.reduce((s, r) => s + r.refunded, 0)).toBe(1);
  // 1000 credits less the 0.5 debit plus the 0.5 refund fund 999 or 1000 one-credit debits, never more.
  expect(ok).toBeGreaterThanOrEqual(999);
  expect(ok).toBeLessThanOrEqual(1000);

  const balance = t.ledger.balance(space.id);
  expect(balance).toBe(1_000_000 - ok * 1000);
  expect(balance).toBeGreaterThanOrEqual(0);
  expect(t.verifyLedger().find((c) => c.space_id === space.id)).toMatchObject({ ok: true });
  const rows = t.ledger(space.id);
  expect(rows).toHaveLength(1 + 1 + ok + 1);
  expect(rows.every((r) => r.balance_after >= 0)).toBe(true);
  // balance_after of each row follows from the previous one: the rows tell one consistent story
  let running = 0;
  for (const r of rows) {
    running = Math.round((running + r.amount) * 1000) / 1000;
    expect(r.balance_after).toBe(running);
  }
});
