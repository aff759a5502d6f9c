/**
 * The generation job on one instance: the steps each method goes through (in order, each reported
 * 0 → 100), the status while queued, crashes retried then given up (refunded once), a step that
 * cannot be done failing at once with its code, and terminal states final.
 */
import { afterEach, describe, expect, it } from "vitest";
import { toMilli } from "../../src/contract/credits.js";
import { buildTimeline, type StepName } from "../../src/features/generation/emulator/build.js";
import { generationKind, readGeneration } from "../../src/features/generation/emulator/job.js";
import { validateStart } from "../../src/features/generation/emulator/request.js";
import { startLookups } from "../../src/features/generation/emulator/local.js";
import { readVideo } from "../../src/features/video/emulator/public/record.js";
import type { RequestContext } from "../../src/local/types.js";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";

const open: TestInstance[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});
function instance(worker: "inline" | "none" = "inline"): TestInstance {
  const t = openTestInstance({ worker });
  open.push(t);
  return t;
}

function ctxOf(t: TestInstance): RequestContext {
  const space = t.db.prepare("SELECT * FROM spaces WHERE is_default = 1").get() as RequestContext["space"];
  return { instance: t, space, simulate: undefined, urls: t.fileUrls(), allowLocalFiles: true, allowPrivateNetwork: true };
}

/** Runs the build for a request and returns the steps reported, collapsed to their first report. */
async function stepsOf(t: TestInstance, body: Record<string, unknown>): Promise<{ steps: StepName[]; reports: [StepName, number][] }> {
  const ctx = ctxOf(t);
  const spec = validateStart(body, startLookups(ctx));
  if (spec.estimated_ms === null) spec.estimated_ms = 0;
  const reports: [StepName, number][] = [];
  await buildTimeline({
    db: t.db,
    mediaDir: t.mediaDir,
    spaceId: ctx.space.id,
    videoId: "0123456789abcdef01234567",
    spec,
    signal: new AbortController().signal,
    progress: (step, pct) => reports.push([step, pct]),
  });
  const steps = reports.map(([s]) => s).filter((s, i, all) => all.indexOf(s) === i);
  return { steps, reports };
}

describe("the steps of each method", () => {
  it("prompt: the writer runs; b-roll is searched and placed; each step goes 0 → 100 in order", async () => {
    const t = instance("none");
    const { steps, reports } = await stepsOf(t, { prompt: "why cats purr", duration: 10, avatar_id: "lk_maya_kitchen" });
    expect(steps).toEqual(["MEDIA_UPLOAD", "SCRIPT_GENERATION", "VOICE_GENERATION", "TRANSCRIPTION", "SEARCH_MEDIA", "PLACE_BROLL", "ASSEMBLY"]);
    for (const s of steps) {
      const mine = reports.filter(([x]) => x === s).map(([, p]) => p);
      expect(mine[0], s).toBe(0);
      expect(mine.at(-1), s).toBe(100);
      expect(
        [...mine].sort((a, b) => a - b),
        s,
      ).toEqual(mine);
    }
  });

  it("script without b-roll: no writer, no search; a plan with media and animate_image: animation and display", async () => {
    const t = instance("none");
    expect((await stepsOf(t, { script: "Hello. Bye.", voice_id: "vc_emma", enable: { broll: false } })).steps).toEqual([
      "MEDIA_UPLOAD",
      "VOICE_GENERATION",
      "TRANSCRIPTION",
      "ASSEMBLY",
    ]);
    const still = `${t.mediaDir}/../still.png`;
    const { renderImage } = await import("../../src/media/image.js");
    await renderImage({ out: still, width: 64, height: 64, prompt: "still" });
    const plan = [{ voice_id: "vc_emma", sequences: [{ text: "Look.", media: { url: still, show: "full" } }] }];
    expect((await stepsOf(t, { sequence_plan: plan, animate_image: true })).steps).toEqual([
      "MEDIA_UPLOAD",
      "VOICE_GENERATION",
      "TRANSCRIPTION",
      "ANIMATE_IMAGES",
      "DISPLAY_BROLL",
      "ASSEMBLY",
    ]);
  });
});

describe("the job through the queue", () => {
  it("is pending at QUEUE 0 until a worker takes it, then completes with its video done", async () => {
    const t = instance("none");
    // A one-sentence script: the queue is the subject here (the prompt's steps are checked above).
    const started = await t.api.generationStart({ script: "Hi there.", voice_id: "vc_emma", enable: { broll: false } });
    expect(await t.api.generationStatus({ job_id: started.job_id })).toEqual({ job_id: started.job_id, status: "pending", progress_step: 0, current_step: "QUEUE" });
    const row = readGeneration(t, started.job_id)!;
    expect(readVideo(t.db, row.video_id)).toMatchObject({ status: "generating", origin: "generation", generation_id: started.job_id, timeline: null });
    await t.runUntilIdle(30_000);
    const s = await t.api.generationStatus({ job_id: started.job_id });
    expect(s).toMatchObject({ status: "completed", current_step: null, progress_step: 100, result: { video_id: row.video_id } });
    expect(readVideo(t.db, row.video_id)!.status).toBe("done");
  });

  it("a crash is retried; out of attempts it is given up: GENERATION_FAILED, refunded exactly once, video failed", async () => {
    const t = instance("none");
    const spaceId = ctxOf(t).space.id;
    const started = await t.api.generationStart({ prompt: "cats", duration: 10 });
    const job = t.jobs.list({ kind: "generation" })[0]!;
    t.db.prepare("UPDATE jobs SET max_attempts = 2 WHERE id = ?").run(job.id);
    let runs = 0;
    const real = generationKind.run;
    generationKind.run = async () => {
      runs++;
      throw new Error("boom");
    };
    try {
      // The retry waits out its backoff (1 s): run what is due until the job is settled.
      await waitFor(
        async () => {
          await t.runUntilIdle(30_000);
          return t.jobs.get(job.id)!.status === "failed";
        },
        10_000,
        200,
      );
    } finally {
      generationKind.run = real;
    }
    expect(runs).toBe(2);
    const s = await t.api.generationStatus({ job_id: started.job_id });
    expect(s).toMatchObject({ status: "failed", current_step: "QUEUE", error: { code: "GENERATION_FAILED", message: "Generation failed: boom" } });
    const rows = t.ledger.rows(spaceId).filter((r) => r.ref === started.job_id);
    expect(rows.map((r) => r.kind)).toEqual(["debit", "refund"]);
    expect(t.ledger.balance(spaceId)).toBe(toMilli(1000));
    expect(readVideo(t.db, readGeneration(t, started.job_id)!.video_id)!.status).toBe("failed");
    // Terminal states are final: giving up again changes nothing and refunds nothing.
    generationKind.giveUp(t, job, "again");
    expect(t.ledger.rows(spaceId).filter((r) => r.ref === started.job_id)).toHaveLength(2);
    expect(() => t.db.prepare("UPDATE generations SET status = 'completed' WHERE id = ?").run(started.job_id)).toThrow(/never changes state/);
  });

  it("a look whose picture cannot be made fails at once with AVATAR_PROCESSING_FAILED (no retry)", async () => {
    const t = instance("inline");
    const started = await t.api.generationStart({ prompt: "cats", duration: 10, avatar_id: "lk_maya_kitchen" });
    // The look stops being ready between start and the job: the avatar step cannot be done.
    const { catalogAvatar } = await import("../../src/features/avatar/emulator/public/catalog.js");
    const look = catalogAvatar("av_maya")!.looks[0]!;
    const id = look.id;
    (look as { id: string }).id = "lk_gone";
    try {
      const s = await waitFor(
        async () => {
          const x = await t.api.generationStatus({ job_id: started.job_id });
          return x.status === "failed" || x.status === "completed" ? x : undefined;
        },
        30_000,
        50,
      );
      expect(s).toMatchObject({ status: "failed", current_step: "MEDIA_UPLOAD", error: { code: "AVATAR_PROCESSING_FAILED" } });
    } finally {
      (look as { id: string }).id = id;
    }
    expect(t.jobs.list({ kind: "generation" })[0]).toMatchObject({ status: "done", attempts: 1 });
  });
});
