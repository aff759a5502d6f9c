/**
 * A generation whose worker is SIGKILLed mid-run is finished, or failed and refunded, exactly once:
 * the job's lease expires, a surviving worker (two race for it) runs it again, or gives it up when
 * it has no attempts left. Real processes over the built dist/ and the real generation job kind.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { toMilli } from "../../src/contract/credits.js";
import { readGeneration } from "../../src/features/generation/emulator/job.js";
import { readVideo } from "../../src/features/video/emulator/public/record.js";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";
import { requireBuilt, startFixture } from "./fixtures/processes.js";

// 2 s, as export-sigkill: the attempt that takes over runs for seconds on a busy machine, and one starved
// for 800 ms lost its lease mid-run (and, out of attempts, was given up).
const LEASE_MS = "2000";
const open: TestInstance[] = [];
beforeAll(requireBuilt);
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

async function killMidRun(maxAttempts: number) {
  const t = openTestInstance({ worker: "none" });
  open.push(t);
  const spaceId = t.spaceForKey(t.key)!.id;
  const started = await t.api.generationStart({ script: "Hello there. This video survives its worker.", voice_id: "vc_emma", webhook_url: "http://127.0.0.1:9/hook" });
  const job = t.jobs.list({ kind: "generation" })[0]!;
  t.db.prepare("UPDATE jobs SET max_attempts = ? WHERE id = ?").run(maxAttempts, job.id);
  const marker = path.join(t.home, "marker.log");
  const lines = () =>
    fs.existsSync(marker)
      ? fs
          .readFileSync(marker, "utf8")
          .split("\n")
          .filter((l) => l.length > 0)
      : [];

  const doomed = startFixture("generation-worker.mjs", [t.home, job.id, LEASE_MS, marker, "hang"]);
  await waitFor(() => lines().some((l) => l.startsWith("run ")), 15_000);
  await waitFor(() => readGeneration(t, started.job_id)!.status === "processing", 5_000);
  expect(await t.api.generationStatus({ job_id: started.job_id })).toMatchObject({ status: "processing", current_step: "VOICE_GENERATION", progress_step: 40 });
  doomed.child.kill("SIGKILL");
  expect((await doomed.exited).signal).toBe("SIGKILL");

  const survivors = [0, 1].map(() => startFixture("generation-worker.mjs", [t.home, job.id, LEASE_MS, marker, "finish"]));
  const exits = await Promise.all(survivors.map((s) => s.exited));
  for (const [i, e] of exits.entries()) expect(e.code, survivors[i]!.stderr()).toBe(0);
  const ledger = t.ledger
    .rows(spaceId)
    .filter((r) => r.ref === started.job_id)
    .map((r) => [r.kind, r.amount_milli]);
  const hooks = t.webhookDeliveries(spaceId).filter((d) => d.task === "video_generate");
  return { t, started, job: t.jobs.get(job.id)!, lines: lines(), ledger, hooks, spaceId };
}

describe("a generation worker SIGKILLed mid-run", () => {
  test("the job is run again once its lease expires and completes exactly once: video done, charged once", async () => {
    const r = await killMidRun(2);
    expect(r.job).toMatchObject({ status: "done", attempts: 2 });
    expect(r.lines.filter((l) => l.startsWith("run"))).toHaveLength(2);
    expect(r.lines.some((l) => l.startsWith("giveUp"))).toBe(false);
    const s = await r.t.api.generationStatus({ job_id: r.started.job_id });
    expect(s).toMatchObject({ status: "completed", current_step: null, progress_step: 100 });
    expect(readVideo(r.t.db, s.result!.video_id!)!.status).toBe("done");
    expect(r.ledger).toEqual([["debit", -toMilli(r.started.estimated_credits!)]]);
    expect(r.hooks.map((h) => (h.payload as { status: string }).status)).toEqual(["completed"]);
  });

  test("with no attempts left it is given up exactly once: failed, refunded once, one failure webhook", async () => {
    const r = await killMidRun(1);
    expect(r.job).toMatchObject({ status: "failed", attempts: 1 });
    expect(r.lines.filter((l) => l.startsWith("run"))).toHaveLength(1);
    expect(r.lines.filter((l) => l.startsWith("giveUp"))).toHaveLength(1);
    const s = await r.t.api.generationStatus({ job_id: r.started.job_id });
    expect(s).toMatchObject({
      status: "failed",
      current_step: "VOICE_GENERATION",
      error: { code: "GENERATION_FAILED", message: expect.stringMatching(/lease expired/) },
    });
    expect(readVideo(r.t.db, readGeneration(r.t, r.started.job_id)!.video_id)!.status).toBe("failed");
    const debit = toMilli(r.started.estimated_credits!);
    expect(r.ledger).toEqual([
      ["debit", -debit],
      ["refund", debit],
    ]);
    expect(r.t.ledger.balance(r.spaceId)).toBe(toMilli(1000));
    expect(r.hooks).toHaveLength(1);
    expect(r.hooks[0]!.payload).toMatchObject({ task: "video_generate", job_id: r.started.job_id, status: "failed", error: { code: "GENERATION_FAILED" } });
  });
});
