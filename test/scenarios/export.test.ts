/**
 * Video export end to end, on both targets: every start code with its status, code and field
 * (nothing debited or written when refused), the price of each option as estimated and debited,
 * status progression (steps in order, progress that only grows) to a completed export whose MP4 is
 * playable (ffprobe: size, H.264 + AAC, duration within a frame) with links valid 7 days from
 * completion, simulated failures refunded once with their webhook, and the plan (two speech
 * blocks, a silent 1500 ms sequence, media in all four show modes) in four formats at their exact
 * sizes (every format's size is checked in test/unit/export-render.test.ts).
 * Renders are kept short (plans of a few seconds) so the suite stays fast.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toMilli } from "../../src/contract/credits.js";
import { exportCredits } from "../../src/contract/pricing.js";
import type { Engine } from "../../src/engine/engine.js";
import { EXPORT_STEPS, ExportJob, ExportStartResponse } from "../../src/features/export/contract.js";
import { avatarOnScreenMs } from "../../src/features/export/emulator/request.js";
import { GenerationStartResponse, GenerationStatusResponse } from "../../src/features/generation/contract.js";
import { readVideo, timelineOf } from "../../src/features/video/emulator/public/record.js";
import type { VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";
import { renderImage, renderVideo } from "../../src/media/index.js";
import { goodPlan } from "../unit/generation-fixtures.js";
import { apiError, forBothTargets, type TargetHarness } from "./harness.js";
import { startFixtureServer, type FixtureServer } from "../helpers/fixture-server.js";
import { probeOutput } from "../helpers/fixture-ffmpeg.js";

// ---- fixtures: media files and an HTTP server (media URLs + webhooks) ------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-exp-"));
const file = (name: string) => path.join(dir, name);
let origin = "";
const src = (name: string) => `${origin}/media/${name}`;
let fixtures: FixtureServer;

beforeAll(async () => {
  await Promise.all([
    renderImage({ out: file("a.png"), width: 320, height: 240, prompt: "fixture A" }),
    renderImage({ out: file("c.png"), width: 240, height: 320, prompt: "fixture C" }),
    renderVideo({ out: file("b.mp4"), width: 320, height: 180, durationSeconds: 2, prompt: "fixture clip", audio: false }),
  ]);
  fixtures = await startFixtureServer(dir);
  origin = fixtures.origin;
}, 60_000);

afterAll(async () => {
  await fixtures.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// ---- helpers ----------------------------------------------------------------------------------------

interface Space {
  engine: Engine;
  id: string;
  balance: () => number;
}

function space(t: TargetHarness, opts: { plan?: string; credits?: number } = {}): Space {
  const key = t.newKey(opts);
  const id = t.instance.spaceForKey(key)!.id;
  return { engine: t.engineFor(key), id, balance: () => t.instance.ledger.balance(id) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Generates a video and returns its id once the job ends (done, or failed when simulated). */
async function video(t: TargetHarness, sp: Space, body: Record<string, unknown>, simulate?: string): Promise<string> {
  const started = GenerationStartResponse.parse(await sp.engine.generationStart(body, simulate ? { simulate } : {}));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = GenerationStatusResponse.parse(await sp.engine.generationStatus({ job_id: started.job_id }));
    if (s.status === "completed") return s.result!.video_id!;
    if (s.status === "failed") {
      if (!simulate) throw new Error(`generation failed: ${JSON.stringify(s.error)}`);
      return (t.instance.db.prepare("SELECT video_id FROM generations WHERE id = ?").get(started.job_id) as { video_id: string }).video_id;
    }
    if (Date.now() > deadline) throw new Error("generation did not finish");
    await sleep(25);
  }
}

/** Polls an export until it ends; every status read (parsed with the contract) is kept in `seen`. */
async function finish(engine: Engine, jobId: string, seen: ExportJob[] = [], timeoutMs = 60_000): Promise<ExportJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = ExportJob.parse(await engine.exportStatus({ job_id: jobId }));
    seen.push(s);
    if (s.status === "completed" || s.status === "failed") return s;
    if (Date.now() > deadline) throw new Error(`export ${jobId} still ${s.status} ${s.current_step} ${s.progress}% after ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function startExport(sp: Space, body: Record<string, unknown>, simulate?: string) {
  return ExportStartResponse.parse(await sp.engine.exportStart(body, simulate ? { simulate } : {}));
}

function timelineOfVideo(t: TargetHarness, videoId: string): VideoTimeline {
  return timelineOf(readVideo(t.instance.db, videoId)!)!;
}

/** The bytes behind a result URL: a file in process, a signed http link when served. */
async function fetchMedia(t: TargetHarness, url: string): Promise<Buffer> {
  if (t.target === "local") return fs.readFileSync(fileURLToPath(url));
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Saves a result video and probes it. */
async function probeResult(t: TargetHarness, url: string, name: string) {
  const bytes = await fetchMedia(t, url);
  const out = file(`${t.target}-${name}.mp4`);
  fs.writeFileSync(out, bytes);
  return probeOutput(out);
}

function exportRows(t: TargetHarness, spaceId: string): number {
  return (t.instance.db.prepare("SELECT COUNT(*) AS n FROM exports WHERE space_id = ?").get(spaceId) as { n: number }).n;
}

function ledgerOf(t: TargetHarness, spaceId: string, ref: string): [string, number][] {
  return t.instance.ledger
    .rows(spaceId)
    .filter((r) => r.ref === ref)
    .map((r) => [r.kind, r.amount_milli]);
}

async function waitForHook(pathName: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const h = fixtures.hooks.filter((x) => x.path === pathName);
    if (h.length) return h;
    if (Date.now() > deadline) throw new Error(`no webhook at ${pathName}`);
    await sleep(50);
  }
}

const FRAME_S = 1 / 30;
// One short sentence: every export below checks its format, steps and prices as well on it as on a
// paragraph, and the renders of 1080x1920 stay short.
const SCRIPT = "Hello, a local test.";

// ---- the suite --------------------------------------------------------------------------------------

forBothTargets(
  "video export",
  (t) => {
    it("refuses every bad request with its status, code and field, and writes or debits nothing", async () => {
      const a = space(t);
      const b = space(t);
      const done = await video(t, a, { script: SCRIPT, voice_id: "vc_emma", avatar_id: "lk_maya_kitchen" });
      const failed = await video(t, a, { script: SCRIPT, voice_id: "vc_emma" }, "fail");
      const generating = "eeeeeeeeeeeeeeeeeeeeeeee";
      const now = new Date().toISOString();
      t.instance.db
        .prepare("INSERT INTO videos (id, space_id, status, origin, created_at, updated_at) VALUES (?, ?, 'generating', 'generation', ?, ?)")
        .run(generating, a.id, now, now);

      const cases: [Engine, Record<string, unknown>, number, string, string | undefined][] = [
        [a.engine, {}, 400, "MISSING_VIDEO_ID", "video_id"],
        [a.engine, { video_id: "" }, 400, "MISSING_VIDEO_ID", "video_id"],
        [a.engine, { video_id: null }, 400, "MISSING_VIDEO_ID", "video_id"],
        [a.engine, { video_id: 42 }, 400, "INVALID_VALUE", "video_id"],
        [a.engine, { video_id: done, format: "cinema" }, 400, "INVALID_FORMAT", "format"],
        [a.engine, { video_id: done, format: "square", width: 720 }, 400, "INVALID_FORMAT", "width"],
        [a.engine, { video_id: done, height: 720 }, 400, "INVALID_FORMAT", "height"],
        [a.engine, { video_id: done, format: "custom", width: 5001 }, 400, "INVALID_FORMAT", "width"],
        [a.engine, { video_id: done, format: "custom", width: 720, height: 0 }, 400, "INVALID_FORMAT", "height"],
        [a.engine, { video_id: done, format: "custom", width: 720.5 }, 400, "INVALID_FORMAT", "width"],
        [a.engine, { video_id: done, format: "custom", width: "720" }, 400, "INVALID_FORMAT", "width"],
        [a.engine, { video_id: done, avatar_model: "hyper" }, 400, "INVALID_AVATAR_MODEL", "avatar_model"],
        [a.engine, { video_id: done, avatar_model: 3 }, 400, "INVALID_AVATAR_MODEL", "avatar_model"],
        [a.engine, { video_id: done, webhook_url: "ftp://example.com/hook" }, 400, "INVALID_VALUE", "webhook_url"],
        [a.engine, { video_id: "000000000000000000000000" }, 404, "VIDEO_NOT_FOUND", undefined],
        [b.engine, { video_id: done }, 403, "UNAUTHORIZED_VIDEO", undefined],
        [a.engine, { video_id: failed }, 400, "VIDEO_NOT_READY", undefined],
        [a.engine, { video_id: generating }, 400, "VIDEO_NOT_READY", undefined],
        // lk_maya_kitchen offers standard, premium, omni-flash, ora-lite, ora-standard: not ultra.
        [a.engine, { video_id: done, avatar_model: "ultra" }, 400, "INCOMPATIBLE_AVATAR_MODEL", "avatar_model"],
      ];
      const before = a.balance();
      for (const [engine, body, status, code, field] of cases) {
        const e = await apiError(engine.exportStart(body as never));
        expect([e.status, e.code, e.field], JSON.stringify(body)).toEqual([status, code, field]);
        expect((e.body as { code?: string }).code).toBe(code);
      }
      expect(a.balance()).toBe(before);
      expect(exportRows(t, a.id) + exportRows(t, b.id)).toBe(0);

      const bad = await apiError(a.engine.exportStart({ video_id: done }, { simulate: "explode" }));
      expect([bad.status, bad.code, bad.field]).toEqual([400, "invalid_value", "X-Local-Simulate"]);
    });

    it("402 insufficient_credits with the amounts, before anything is written", async () => {
      // 6 credits: 5 for the generation, 1 left for the export.
      const sp = space(t, { credits: 6 });
      const mine = await video(t, sp, { script: SCRIPT, voice_id: "vc_emma", avatar_id: "lk_zoe_podcast" });
      expect(sp.balance()).toBe(toMilli(1));
      const e = await apiError(sp.engine.exportStart({ video_id: mine, format: "custom", width: 1922, height: 1080 }));
      expect(e.status).toBe(402);
      expect(e.code).toBe("insufficient_credits");
      expect(e.body).toEqual({
        error: "Insufficient credits: 2.5 required, 1 available",
        details: [{ code: "insufficient_credits", message: "Insufficient credits: 2.5 required, 1 available" }],
        required: 2.5,
        available: 1,
      });
      expect(sp.balance()).toBe(toMilli(1));
      expect(exportRows(t, sp.id)).toBe(0);
    });

    it("a first export: pending → render-audio → avatar → render, progress only grows, completed with a playable MP4; free", async () => {
      const sp = space(t, { credits: 100 });
      const id = await video(t, sp, { script: SCRIPT, voice_id: "vc_emma", avatar_id: "lk_maya_kitchen" });
      const tl = timelineOfVideo(t, id);
      const before = sp.balance();
      const hook = `/hook/${t.target}/done`;
      const started = await startExport(sp, { video_id: id, webhook_url: `${origin}${hook}` });
      expect(started).toEqual({ job_id: expect.stringMatching(/^exp_[0-9a-f]{24}$/), status: "pending", estimated_credits: 0 });
      const seen: ExportJob[] = [];
      const done = await finish(sp.engine, started.job_id, seen);
      expect(done).toEqual({
        job_id: started.job_id,
        status: "completed",
        progress: 100,
        current_step: "render",
        result: { video_url: expect.any(String), thumbnail_url: expect.any(String), cost: 0, created_at: expect.stringMatching(/Z$/) },
      });
      // Every read is a valid state; status, step and progress never go back; 100 only when completed.
      const statusOrder = ["pending", "processing", "completed"];
      for (let i = 1; i < seen.length; i++) {
        const [p, s] = [seen[i - 1]!, seen[i]!];
        expect(statusOrder.indexOf(s.status)).toBeGreaterThanOrEqual(statusOrder.indexOf(p.status));
        // A job without a step yet (null) sorts before every step (-1).
        const stepIndex = (step: unknown) => (EXPORT_STEPS as readonly unknown[]).indexOf(step);
        expect(stepIndex(s.current_step)).toBeGreaterThanOrEqual(stepIndex(p.current_step));
        expect(s.progress).toBeGreaterThanOrEqual(p.progress!);
      }
      for (const s of seen) {
        if (s.status !== "completed") {
          expect(s.progress).toBeLessThan(100);
          expect(s.result).toBeUndefined();
        }
        if (s.status === "pending") expect([s.current_step, s.progress]).toEqual(["render-audio", 0]);
      }
      expect(seen.some((s) => s.status === "processing")).toBe(true);
      expect(sp.balance()).toBe(before);
      expect(ledgerOf(t, sp.id, started.job_id)).toEqual([]);

      const p = await probeResult(t, done.result!.video_url!, "first");
      expect([p.width, p.height, p.videoCodec, p.audioCodec, p.streams]).toEqual([1080, 1920, "h264", "aac", 2]);
      expect(Math.abs(p.durationSeconds - tl.duration_ms / 1000)).toBeLessThanOrEqual(FRAME_S + 1e-6);
      expect(p.videoFrames).toBe(Math.round((tl.duration_ms * 30) / 1000));
      const thumb = await fetchMedia(t, done.result!.thumbnail_url!);
      expect(thumb.subarray(0, 3).toString("hex")).toBe("ffd8ff");

      if (t.target === "hosted") {
        // Signed links expire 7 days after completion.
        const exp = Number(new URL(done.result!.video_url!).searchParams.get("exp"));
        expect(Math.abs(exp - (Date.parse(done.result!.created_at!) / 1000 + 7 * 24 * 3600))).toBeLessThanOrEqual(2);
      }

      const [h] = await waitForHook(hook);
      expect(h!.body).toEqual({
        task: "video_export",
        job_id: started.job_id,
        status: "completed",
        result: { video_url: expect.any(String), thumbnail_url: expect.any(String), cost: 0, created_at: done.result!.created_at },
      });
      // The webhook's links (signed when the export was accepted) serve the same file.
      const hooked = h!.body.result as { video_url: string };
      expect((await fetchMedia(t, hooked.video_url)).equals(await fetchMedia(t, done.result!.video_url!))).toBe(true);
    });

    it("prices: custom sizes over 1920 wide or 1080 tall add 2.5 per 30 s, premium models their rate per second of avatar; the estimate is debited", async () => {
      const sp = space(t, { credits: 100 });
      const id = await video(t, sp, { script: SCRIPT, voice_id: "vc_emma", avatar_id: "lk_zoe_podcast" });
      const tl = timelineOfVideo(t, id);
      const seconds = tl.duration_ms / 1000;
      const avatarS = avatarOnScreenMs(tl) / 1000;
      expect(avatarS).toBe(seconds);
      const cases: [Record<string, unknown>, number][] = [
        [{ format: "vertical" }, 0],
        [{ format: "custom", width: 720, height: 720 }, 0],
        [{ format: "custom", width: 1922, height: 1080 }, 2.5],
        [{ format: "custom" }, 2.5], // 1080x1920 by default: taller than 1080
        [{ avatar_model: "premium" }, 0.1 * Math.ceil(avatarS)],
        [{ avatar_model: "ultra" }, 0.2 * Math.ceil(avatarS)],
        [{ avatar_model: "omni-flash" }, 0],
      ];
      for (const [opts, price] of cases) {
        expect(
          exportCredits({
            firstExport: false,
            format: String(opts.format ?? "vertical"),
            width: Number(opts.width ?? 1080),
            height: Number(opts.height ?? 1920),
            durationSeconds: seconds,
            avatarModel: opts.avatar_model as string | undefined,
            avatarSeconds: avatarS,
          }),
        ).toBeCloseTo(price, 3);
        const before = sp.balance();
        const s = await startExport(sp, { video_id: id, ...opts }, "fail");
        expect(s.estimated_credits, JSON.stringify(opts)).toBeCloseTo(price, 3);
        await finish(sp.engine, s.job_id);
        // Debited at start, refunded once by the (simulated) failure; nothing at all when free.
        const milli = toMilli(s.estimated_credits!);
        expect(ledgerOf(t, sp.id, s.job_id)).toEqual(
          price > 0
            ? [
                ["debit", -milli],
                ["refund", milli],
              ]
            : [],
        );
        expect(sp.balance()).toBe(before);
      }

      // A completed export is charged its estimate, once: a wide custom size with the ultra model (odd
      // sides are rounded up to even: H.264 in 4:2:0 needs even sizes).
      const before = sp.balance();
      const s = await startExport(sp, { video_id: id, format: "custom", width: 1921, height: 359, avatar_model: "ultra" });
      const expected = 2.5 + 0.2 * Math.ceil(avatarS);
      expect(s.estimated_credits).toBeCloseTo(expected, 3);
      const done = await finish(sp.engine, s.job_id);
      expect(done.status, JSON.stringify(done.error)).toBe("completed");
      expect(done.result!.cost).toBe(s.estimated_credits);
      expect(ledgerOf(t, sp.id, s.job_id)).toEqual([["debit", -toMilli(s.estimated_credits!)]]);
      expect(before - sp.balance()).toBe(toMilli(s.estimated_credits!));
      const p = await probeResult(t, done.result!.video_url!, "wide");
      expect([p.width, p.height]).toEqual([1922, 360]);
    });

    it("a simulated failure ends failed with its code (EXPORT_FAILED by default), refunded exactly once, with a failure webhook", async () => {
      const sp = space(t, { credits: 50 });
      const id = await video(t, sp, { script: SCRIPT, voice_id: "vc_emma", avatar_id: "lk_zoe_podcast" });
      const before = sp.balance();
      const hook = `/hook/${t.target}/sim`;
      const s = await startExport(sp, { video_id: id, format: "custom", width: 1922, height: 1080, webhook_url: `${origin}${hook}` }, "fail");
      expect(s.estimated_credits).toBe(2.5);
      const done = await finish(sp.engine, s.job_id);
      expect(done).toMatchObject({ status: "failed", error: { code: "EXPORT_FAILED", message: expect.stringMatching(/simulated/i) } });
      expect(done.result).toBeUndefined();
      expect(EXPORT_STEPS).toContain(done.current_step);
      expect(sp.balance()).toBe(before);
      expect(ledgerOf(t, sp.id, s.job_id)).toEqual([
        ["debit", -2500],
        ["refund", 2500],
      ]);
      const [h] = await waitForHook(hook);
      expect(h!.body).toEqual({ task: "video_export", job_id: s.job_id, status: "failed", error: { code: "EXPORT_FAILED", message: expect.any(String) } });
      // Reading it again changes nothing: the refund happened once.
      await finish(sp.engine, s.job_id);
      expect(ledgerOf(t, sp.id, s.job_id)).toHaveLength(2);

      for (const code of ["ENCODING_FAILED", "FORMAT_CONVERSION_FAILED", "STORAGE_FAILED"]) {
        const c = await startExport(sp, { video_id: id }, `fail:${code}`);
        expect((await finish(sp.engine, c.job_id)).error?.code).toBe(code);
      }
      expect(sp.balance()).toBe(before);
    });

    it("status: JOB_NOT_FOUND (404), UNAUTHORIZED_JOB (403) for another space's export", async () => {
      const a = space(t);
      const b = space(t);
      const id = await video(t, a, { script: "Hi there.", voice_id: "vc_emma" });
      const s = await startExport(a, { video_id: id }, "fail");
      const nf = await apiError(a.engine.exportStatus({ job_id: "exp_000000000000000000000000" }));
      expect([nf.status, nf.code]).toEqual([404, "JOB_NOT_FOUND"]);
      const gen = await apiError(a.engine.exportStatus({ job_id: "run_000000000000000000000000" }));
      expect([gen.status, gen.code]).toEqual([404, "JOB_NOT_FOUND"]);
      const other = await apiError(b.engine.exportStatus({ job_id: s.job_id }));
      expect([other.status, other.code]).toEqual([403, "UNAUTHORIZED_JOB"]);
    });

    it("the issue's plan (two speech blocks, a silent 1500 ms sequence, media in all four show modes) in portrait, landscape and square formats at their exact sizes, and the plan's duration", async () => {
      const sp = space(t, { credits: 100 });
      const plan = goodPlan();
      // Short words keep the renders short; the shape is the issue's.
      plan[0]!.sequences[0]!.text = "Hi!";
      plan[0]!.sequences[1]!.text = "Look.";
      plan[2]!.sequences[0]!.text = "Bye.";
      plan[0]!.sequences[0]!.media!.url = src("a.png");
      plan[0]!.sequences[1]!.media!.url = src("b.mp4");
      plan[1]!.sequences[0]!.media!.url = src("c.png");
      plan[2]!.sequences[0]!.media = { url: src("a.png"), show: "hide" };
      const id = await video(t, sp, { sequence_plan: plan, avatar_id: "lk_lena_studio", enable: { music: true } });
      const tl = timelineOfVideo(t, id);
      expect(tl.blocks.map((x) => x.sequences.map((q) => q.media?.show))).toEqual([["full", "half"], ["background"], ["hide"]]);
      expect(tl.blocks[1]!.end_ms - tl.blocks[1]!.start_ms).toBe(1500);
      // One renderer serves both targets, and every format is rendered at its exact size (in two
      // frames) by test/unit/export-render.test.ts: here the whole plan goes through a portrait and a
      // square format on one target and a landscape one on the other. A custom size is exported to
      // completion on both targets by the pricing test above (1921×359, rounded to 1922×360).
      const formats: [Record<string, unknown>, number, number][] =
        t.target === "local"
          ? [
              [{ format: "vertical" }, 1080, 1920],
              [{ format: "square" }, 1080, 1080],
            ]
          : [[{ format: "horizontal" }, 1920, 1080]];
      const before = sp.balance();
      // Started together: the instance renders two at a time.
      const jobs = [];
      for (const [opts] of formats) jobs.push(await startExport(sp, { video_id: id, ...opts }));
      let charged = 0;
      for (const [i, [opts, w, h]] of formats.entries()) {
        const done = await finish(sp.engine, jobs[i]!.job_id, [], 120_000);
        expect(done.status, `${JSON.stringify(opts)} ${JSON.stringify(done.error)}`).toBe("completed");
        expect(done.result!.cost).toBe(jobs[i]!.estimated_credits);
        charged += toMilli(jobs[i]!.estimated_credits!);
        const p = await probeResult(t, done.result!.video_url!, `fmt-${i}`);
        expect([p.width, p.height, p.videoCodec, p.audioCodec], JSON.stringify(opts)).toEqual([w, h, "h264", "aac"]);
        expect(Math.abs(p.durationSeconds - tl.duration_ms / 1000), JSON.stringify(opts)).toBeLessThanOrEqual(FRAME_S + 1e-6);
      }
      expect(before - sp.balance()).toBe(charged);
    });
    // Polls are close together and a render takes seconds: the rate limit (tested elsewhere) is lifted,
    // so no 429 moves the harness's clock past the render's lease.
  },
  { rateLimit: { limit: 100_000, windowMs: 60_000 } },
);
