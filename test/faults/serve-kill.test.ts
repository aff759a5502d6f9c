/**
 * `mediagen serve` SIGKILLed in the middle of a burst of paid requests. Afterwards the books must
 * balance: every balance equals its ledger, every debit belongs to an asset that exists (answered or
 * not), and once the instance is used again every job the dead server held ends — completed, or
 * failed and refunded exactly once — without waiting out its lease.
 */
import { afterEach, expect, test } from "vitest";
import type { LocalInstance } from "../../src/features/local.js";
import { openLocalInstance } from "../../src/features/local.js";
import { DEFAULT_LEASE_MS } from "../../src/local/jobs.js";
import { assertBuilt, childEnv, createKey, runCli, startServe } from "../http/serve-child.js";
import { tempHome, waitFor } from "../helpers/local.js";
import { defaultDriver } from "../../src/local/db/open.js";
import { instancePaths } from "../../src/local/storage.js";

const open: LocalInstance[] = [];

/** The jobs table as the dead server left it, read without opening an instance (which would start taking them). */
function inspectJobs(home: string): Record<string, unknown>[] {
  const db = defaultDriver.connect(instancePaths(home).dbPath);
  try {
    return db.prepare("SELECT id, status, lease_owner FROM jobs").all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}
afterEach(async () => {
  for (const i of open.splice(0)) await i.close();
});

test("serve killed mid-burst: the ledger reconciles and its jobs finish promptly", async () => {
  assertBuilt();
  const home = tempHome();
  const env = childEnv(home);
  const key = await createKey(env, "PRO", 100);
  // The answers spread over 2 s (a latency fault rule: each start waits 0 to 2 s before it is
  // handled), so the kill after a quarter of them lands mid-burst; unspread, a fast server could
  // answer all of them before the kill, and then nothing would be cut off (with 300 ms, a loaded
  // machine answered all 32 before the kill landed).
  const rule = await runCli(["local", "faults", "add", "assetStart", "latency", "--ms", "0-2s"], env);
  expect(rule.code, rule.stderr).toBe(0);
  const serve = await startServe(env);

  // Each accepted start is rendered once the instance is used again: 32 keeps the burst (a quarter
  // answered before the kill, the rest cut off) at half the renders of 60.
  const BURST = 32;
  let answered = 0;
  const killed = new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (answered < BURST / 4) return;
      clearInterval(check);
      void serve.stop("SIGKILL").then(() => resolve());
    }, 1);
  });
  const results = await Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      try {
        const res = await fetch(`${serve.baseUrl}/asset/start`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ type: "image", model: "imgA-4-fast", prompt: `burst ${i}` }),
        });
        const body = (await res.json()) as { asset_ids?: string[] };
        answered++;
        return { status: res.status, ids: body.asset_ids ?? [] };
      } catch {
        return { status: 0, ids: [] as string[] }; // cut off by the kill
      }
    }),
  );
  await killed;
  const accepted = results.filter((r) => r.status === 201).flatMap((r) => r.ids);
  expect(accepted.length).toBeGreaterThanOrEqual(BURST / 4);
  expect(results.some((r) => r.status === 0)).toBe(true); // the kill did land mid-burst

  // The books balance straight after the crash, before anything ran again.
  const verify = await runCli(["local", "ledger", "verify", "--json"], env);
  expect(verify.code, verify.stderr).toBe(0);

  // The instance in use again (as `serve` restarted would): the dead server's jobs are taken at once,
  // not after their lease runs out. What is timed is the taking; the renders then take what the
  // machine gives them.
  const dead = new Set(
    (inspectJobs(home).filter((j) => j.status === "running") as { lease_owner: string | null }[]).map((j) => j.lease_owner).filter((o): o is string => o !== null),
  );
  const inst = openLocalInstance({ home, worker: "inline" });
  open.push(inst);
  const t0 = Date.now();
  const jobs = () => inst.db.prepare("SELECT status, lease_owner FROM jobs WHERE kind = 'asset'").all() as { status: string; lease_owner: string | null }[];
  await waitFor(() => jobs().every((j) => j.lease_owner === null || !dead.has(j.lease_owner)), DEFAULT_LEASE_MS / 2);
  expect(Date.now() - t0).toBeLessThan(DEFAULT_LEASE_MS / 2);
  const assets = await waitFor(() => {
    const rows = inst.db.prepare("SELECT id, status, cost_milli FROM assets").all() as { id: string; status: string; cost_milli: number }[];
    return rows.every((r) => r.status === "completed" || r.status === "failed") ? rows : undefined;
  }, 120_000);

  // Every answered id exists; every asset, answered or not, has exactly one debit; failed ones one refund.
  const ids = new Set(assets.map((a) => a.id));
  for (const id of accepted) expect(ids.has(id)).toBe(true);
  const ledger = inst.db.prepare("SELECT kind, ref, amount_milli FROM ledger WHERE kind <> 'grant'").all() as { kind: string; ref: string; amount_milli: number }[];
  for (const a of assets) {
    expect(ledger.filter((l) => l.kind === "debit" && l.ref === a.id).map((l) => l.amount_milli)).toEqual([-a.cost_milli]);
    expect(ledger.filter((l) => l.kind === "refund" && l.ref === a.id)).toHaveLength(a.status === "failed" ? 1 : 0);
  }
  expect(ledger.filter((l) => l.kind === "debit")).toHaveLength(assets.length);
  expect(inst.verifyLedger().every((c) => c.ok)).toBe(true);
  const [space] = inst.listSpaces().filter((s) => !s.is_default);
  const spent = assets.filter((a) => a.status === "completed").reduce((n, a) => n + a.cost_milli, 0);
  expect(Math.round(space!.credits * 1000)).toBe(100_000 - spent);
});
