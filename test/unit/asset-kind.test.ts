/**
 * The asset job on a real instance: every way a generation can end, and the refund happening
 * exactly once whichever path (failure commit, give-up, a repeated give-up) gets there.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/engine/local/clock.js";
import { assetKind, failAsset } from "../../src/engine/local/kinds/asset.js";
import type { JobRow } from "../../src/engine/local/types.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

let t: TestInstance | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const status = (t: TestInstance, id: string) =>
  t.db.prepare("SELECT status, error_code FROM assets WHERE id = ?").get(id) as { status: string; error_code: string | null };
const ledgerFor = (t: TestInstance, id: string) =>
  t.db.prepare("SELECT kind, amount_milli FROM ledger WHERE ref = ? ORDER BY id").all(id) as { kind: string; amount_milli: number }[];
const jobOf = (t: TestInstance, id: string) => t.db.prepare("SELECT * FROM jobs WHERE kind = 'asset' AND ref = ?").get(id) as JobRow;

describe("asset job", () => {
  it("a give-up fails and refunds once; repeating it, or failing after, changes nothing", async () => {
    t = openTestInstance({ worker: "none" });
    const spaceId = t.spaceForKey(t.key)!.id;
    const before = t.ledger.balance(spaceId);
    const { asset_ids } = await t.api.assetStart({ type: "video", model: "vidA-3", prompt: "x" });
    const id = asset_ids[0]!;
    expect(t.ledger.balance(spaceId)).toBe(before - 32_000);
    const job = jobOf(t, id);
    t.tx(() => assetKind.giveUp(t!, job, "the worker running this job stopped responding"));
    expect(status(t, id)).toEqual({ status: "failed", error_code: "generation_failed" });
    t.tx(() => assetKind.giveUp(t!, job, "again"));
    t.tx(() => failAsset(t!, id, { code: "render_failed", message: "late" }));
    expect(status(t, id)).toEqual({ status: "failed", error_code: "generation_failed" });
    expect(ledgerFor(t, id)).toEqual([
      { kind: "debit", amount_milli: -32_000 },
      { kind: "refund", amount_milli: 32_000 },
    ]);
    expect(t.ledger.balance(spaceId)).toBe(before);
    expect((await t.api.assetStatus({ assetId: id })).error?.message).toMatch(/stopped responding/);
  });

  it("a completed asset never turns failed and is never refunded", async () => {
    t = openTestInstance();
    const { asset_ids } = await t.api.assetStart({ type: "image", model: "imgA-4-fast", prompt: "x" });
    const id = asset_ids[0]!;
    await t.runUntilIdle(20_000);
    expect(status(t, id).status).toBe("completed");
    t.tx(() => failAsset(t!, id, { code: "render_failed", message: "late" }));
    t.tx(() => assetKind.giveUp(t!, jobOf(t!, id), "late"));
    expect(status(t, id).status).toBe("completed");
    expect(ledgerFor(t, id).map((r) => r.kind)).toEqual(["debit"]);
    expect(() => t!.db.prepare("UPDATE assets SET status = 'generating' WHERE id = ?").run(id)).toThrow(/never changes/);
  });

  it("a reference that cannot be decoded ends render_failed, refunded, with no file left", async () => {
    t = openTestInstance();
    const bogus = path.join(t.home, "broken.png");
    fs.writeFileSync(bogus, "definitely not a PNG");
    const spaceId = t.spaceForKey(t.key)!.id;
    const before = t.ledger.balance(spaceId);
    const { asset_ids } = await t.api.assetStart({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: bogus }] });
    await t.runUntilIdle(20_000);
    const a = await t.api.assetStatus({ assetId: asset_ids[0]! });
    expect(a).toMatchObject({ status: "failed", error: { code: "render_failed", message: expect.stringMatching(/^Rendering failed/) } });
    expect(t.ledger.balance(spaceId)).toBe(before);
    expect(fs.existsSync(path.join(t.mediaDir, "assets", a.asset_id))).toBe(false);
  });

  it("a library reference whose file vanished before the render ends reference_unavailable", async () => {
    t = openTestInstance();
    const first = await t.api.assetStart({ type: "image", model: "imgA-4-fast", prompt: "source" });
    await t.runUntilIdle(20_000);
    await t.stopWorker(0);
    const second = await t.api.assetStart({ type: "image", model: "imgA-4", prompt: "x", references: [{ asset_id: first.asset_ids[0]! }] });
    fs.rmSync(path.join(t.mediaDir, "assets", first.asset_ids[0]!), { recursive: true });
    await t.runUntilIdle(20_000);
    expect(await t.api.assetStatus({ assetId: second.asset_ids[0]! })).toMatchObject({ status: "failed", error: { code: "reference_unavailable" } });
  });

  it("a crash that is not the generation's fault is retried, then given up with one refund", async () => {
    const clock = new ManualClock(Date.now());
    t = openTestInstance({ worker: "none", clock });
    const spaceId = t.spaceForKey(t.key)!.id;
    const before = t.ledger.balance(spaceId);
    const { asset_ids } = await t.api.assetStart({ type: "image", model: "imgA-4-fast", prompt: "x" });
    const id = asset_ids[0]!;
    // Unreadable render parameters make `run` throw something that is not a media error.
    t.db.prepare("UPDATE assets SET params = '{' WHERE id = ?").run(id);
    for (let i = 0; i < 3; i++) {
      await t.runUntilIdle(10_000);
      clock.advance(120_000);
    }
    const job = jobOf(t, id);
    expect([job.status, job.attempts]).toEqual(["failed", 3]);
    expect(status(t, id)).toEqual({ status: "failed", error_code: "generation_failed" });
    expect(ledgerFor(t, id).map((r) => r.kind)).toEqual(["debit", "refund"]);
    expect(t.ledger.balance(spaceId)).toBe(before);
  });
});
