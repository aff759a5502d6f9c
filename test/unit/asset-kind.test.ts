/**
 * The asset job on a real instance: every way a generation can end, and the refund happening
 * exactly once whichever path (failure commit, give-up, a repeated give-up) gets there.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/local/clock.js";
import { assetKind, failAsset } from "../../src/features/asset/emulator/job.js";
import type { JobRow } from "../../src/local/types.js";
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
    // What a worker that died mid-render left behind goes with the failure.
    const dir = path.join(t.mediaDir, "assets", id);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, ".partial.tmp.mp4"), "half a render");
    t.tx(() => assetKind.giveUp(t!, job, "the worker running this job stopped responding"));
    expect(status(t, id)).toEqual({ status: "failed", error_code: "generation_failed" });
    expect(fs.existsSync(dir)).toBe(false);
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
    expect(fs.existsSync(path.join(t.mediaDir, "assets", a.asset_id!))).toBe(false);
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

  it("a run that fails leaves the files alone; only the commit that fails the asset removes them", async () => {
    t = openTestInstance({ worker: "none" });
    const bogus = path.join(t.home, "broken.png");
    fs.writeFileSync(bogus, "definitely not a PNG");
    const start = () => t!.api.assetStart({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: bogus }] });
    const outOf = (id: string) => path.join(t!.mediaDir, (t!.db.prepare("SELECT file_path FROM assets WHERE id = ?").get(id) as { file_path: string }).file_path);
    const ctx = { instance: t, signal: new AbortController().signal, heartbeat: () => undefined };

    // This run's lease expired and the job's new holder has meanwhile written the asset's file.
    const late = (await start()).asset_ids[0]!;
    const file = outOf(late);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "the new holder's render");
    const { commit } = await assetKind.run(jobOf(t, late), ctx);
    expect(fs.readFileSync(file, "utf8")).toBe("the new holder's render");
    // The new holder completed it first: the stale commit changes nothing and deletes nothing.
    t.db.prepare("UPDATE assets SET status = 'completed', finished_at = 'now' WHERE id = ?").run(late);
    t.tx(commit);
    expect(status(t, late).status).toBe("completed");
    expect(fs.readFileSync(file, "utf8")).toBe("the new holder's render");

    // The commit that does fail the asset removes what was left of it.
    const doomed = (await start()).asset_ids[0]!;
    fs.mkdirSync(path.dirname(outOf(doomed)), { recursive: true });
    fs.writeFileSync(outOf(doomed), "leftover");
    const second = await assetKind.run(jobOf(t, doomed), ctx);
    expect(fs.existsSync(outOf(doomed))).toBe(true);
    t.tx(second.commit);
    expect(status(t, doomed)).toEqual({ status: "failed", error_code: "render_failed" });
    expect(fs.existsSync(path.dirname(outOf(doomed)))).toBe(false);
  });

  it("aborting a run stops a reference fetch at once (the signal reaches the fetch)", async () => {
    t = openTestInstance({ worker: "none" });
    let arrived!: () => void;
    const requested = new Promise<void>((r) => (arrived = r));
    const sockets = new Set<import("node:net").Socket>();
    const server = http.createServer(() => arrived()); // never answers
    server.on("connection", (s) => sockets.add(s));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow.png`;
      const { asset_ids } = await t.api.assetStart({ type: "image", model: "imgA-4", prompt: "x", references: [{ url }] });
      const ctrl = new AbortController();
      const run = assetKind.run(jobOf(t, asset_ids[0]!), { instance: t, signal: ctrl.signal, heartbeat: () => undefined });
      const outcome = run.then(
        () => "resolved",
        () => "rejected",
      );
      await requested;
      const t0 = Date.now();
      ctrl.abort(new Error("lease lost"));
      const timeout = new Promise((r) => setTimeout(() => r("still waiting"), 3_000));
      expect(await Promise.race([outcome, timeout])).toBe("rejected");
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(status(t, asset_ids[0]!).status).toBe("generating");
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
