/**
 * 8 processes start assets at once against one instance whose space can afford fewer than they ask
 * for: no "database is locked", no overspend (exactly the affordable number succeed, the rest get
 * 402), and nothing lost (every success has its row, its debit and its job, and renders).
 */
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { lastJson, requireBuilt, runTogether, startFixture } from "./fixtures/processes.js";

const PROCESSES = 8;
const STARTS_EACH = 4;
// Half the starts are affordable: as many 402s as successes, and only 8 renders to wait for.
const AFFORDABLE = 8; // imgA-4-fast costs 0.1

let t: TestInstance;
beforeAll(() => {
  requireBuilt();
  t = openTestInstance({ worker: "none", rateLimit: { limit: 10_000, windowMs: 60_000 } });
});
afterAll(() => t.close());

test(`${PROCESSES} processes × ${STARTS_EACH} asset starts against credits for ${AFFORDABLE}`, async () => {
  const { space, api_key } = t.createSpace({ name: "contended", plan: "PRO", credits: AFFORDABLE / 10 });
  const go = path.join(t.home, "go");
  const procs = Array.from({ length: PROCESSES }, () => startFixture("asset-start.mjs", [t.home, api_key, String(STARTS_EACH), go]));
  await runTogether(procs, go);

  const results = procs.map((p) => lastJson<{ ok: number; short: number; ids: string[] }>(p));
  const ids = results.flatMap((r) => r.ids);
  expect(results.reduce((s, r) => s + r.ok + r.short, 0)).toBe(PROCESSES * STARTS_EACH);
  expect(ids).toHaveLength(AFFORDABLE);
  expect(new Set(ids).size).toBe(AFFORDABLE);
  expect(t.ledger.balance(space.id)).toBe(0);
  expect(t.verifyLedger().find((c) => c.space_id === space.id)).toMatchObject({ ok: true });

  const rows = t.db.prepare("SELECT id, status FROM assets WHERE space_id = ?").all(space.id) as { id: string; status: string }[];
  expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
  const debits = t.ledger.rows(space.id).filter((r) => r.kind === "debit");
  expect(debits.map((d) => d.ref).sort()).toEqual([...ids].sort());
  expect(debits.every((d) => d.amount_milli === -100)).toBe(true);
  const jobs = t.db.prepare("SELECT ref FROM jobs WHERE kind = 'asset' AND space_id = ?").all(space.id) as { ref: string }[];
  expect(jobs.map((j) => j.ref).sort()).toEqual([...ids].sort());

  await t.runUntilIdle(60_000);
  const done = t.db.prepare("SELECT status, COUNT(*) AS n FROM assets WHERE space_id = ? GROUP BY status").all(space.id);
  expect(done).toEqual([{ status: "completed", n: AFFORDABLE }]);
  expect(t.ledger.balance(space.id)).toBe(0);
}, 90_000);
