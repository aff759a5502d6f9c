/**
 * Video generation and duplication end to end, on both targets: every start code with its status,
 * code and field (nothing debited when refused), the four input methods, status progression to a
 * `done` video with its timeline, the estimate debited, failures refunded once with their webhook,
 * automatic b-roll, and every duplicate case.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toMilli } from "../../src/contract/credits.js";
import type { Engine } from "../../src/engine/engine.js";
import { GENERATION_STEPS, GenerationStartResponse, GenerationStatusResponse } from "../../src/features/generation/contract.js";
import { VideoDuplicateResponse } from "../../src/features/video/contract.js";
import { estimateSpeechMs } from "../../src/features/generation/text.js";
import { readVideo, timelineOf } from "../../src/features/video/emulator/public/record.js";
import { sequencesOf, spokenMs, type VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";
import { getTools, renderImage, renderVideo, synthesize } from "../../src/media/index.js";
import { readWavInfo } from "../../src/media/wav.js";
import { goodPlan } from "../unit/generation-fixtures.js";
import { apiError, forBothTargets, type TargetHarness } from "./harness.js";
import { startFixtureServer, type FixtureServer } from "../helpers/fixture-server.js";

// ---- fixtures: media files and an HTTP server (media URLs + webhooks) ------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-gen-"));
const file = (name: string) => path.join(dir, name);
let origin = "";
const src = (name: string) => `${origin}/media/${name}`;
let fixtures: FixtureServer;

beforeAll(async () => {
  await Promise.all([
    renderImage({ out: file("a.png"), width: 320, height: 240, prompt: "fixture A" }),
    renderVideo({ out: file("b.mp4"), width: 320, height: 180, durationSeconds: 2, prompt: "fixture clip", audio: false }),
    synthesize({ text: "This is a supplied voice track, read by a person.", out: file("voice.wav") }),
    renderVideo({ out: file("talk.mp4"), width: 180, height: 320, durationSeconds: 3, prompt: "talking head", audio: true, speechText: "Hi, I am the avatar." }),
  ]);
  const { ffmpeg } = await getTools();
  execFileSync(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-i", file("a.png"), file("c.jpg")]);
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

const STEP_ORDER: readonly string[] = GENERATION_STEPS;

/** Polls until the job ends; every status read is kept in `seen`. */
async function finish(engine: Engine, jobId: string, seen: GenerationStatusResponse[] = [], timeoutMs = 30_000): Promise<GenerationStatusResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Every answer has the contract's shape.
    const s = GenerationStatusResponse.parse(await engine.generationStatus({ job_id: jobId }));
    seen.push(s);
    if (s.status === "completed" || s.status === "failed") return s;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${s.status} ${s.current_step} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function duplicate(engine: Engine, body: Record<string, unknown>) {
  return VideoDuplicateResponse.parse(await engine.videoDuplicate(body));
}

async function generate(sp: Space, body: Record<string, unknown>, simulate?: string) {
  const started = GenerationStartResponse.parse(await sp.engine.generationStart(body, simulate ? { simulate } : {}));
  const seen: GenerationStatusResponse[] = [];
  const done = await finish(sp.engine, started.job_id, seen);
  return { started, done, seen };
}

function timelineOfVideo(t: TargetHarness, videoId: string): VideoTimeline {
  const row = readVideo(t.instance.db, videoId)!;
  expect(row.status).toBe("done");
  return timelineOf(row)!;
}

async function waitForHook(pathName: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const h = fixtures.hooks.filter((x) => x.path === pathName);
    if (h.length) return h;
    if (Date.now() > deadline) throw new Error(`no webhook at ${pathName}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function libraryImage(sp: Space): Promise<string> {
  const a = await sp.engine.assetStart({ type: "image", model: "imgA-4-fast", prompt: "library still" });
  const id = a.asset_ids[0]!;
  for (;;) {
    const s = await sp.engine.assetStatus({ assetId: id });
    if (s.status === "completed") return id;
    if (s.status === "failed") throw new Error("library asset failed");
    await new Promise((r) => setTimeout(r, 50));
  }
}

function jobCount(t: TargetHarness, spaceId: string): number {
  return (t.instance.db.prepare("SELECT COUNT(*) AS n FROM generations WHERE space_id = ?").get(spaceId) as { n: number }).n;
}

const SCRIPT =
  "Meet the smarter way to brew coffee at home. Our grinder remembers your favourite setting, so every cup tastes the same.\n\n" +
  "It is quiet, fast, and easy to clean. Try it for thirty days. If you do not love it, send it back! Visit our website today.";

// ---- the suite --------------------------------------------------------------------------------------

forBothTargets(
  "video generation",
  (t) => {
    it("refuses every bad request with its status, code and field, and debits nothing", async () => {
      const sp = space(t, { credits: 1000 });
      const cases: [Record<string, unknown>, number, string, string | undefined][] = [
        [{}, 400, "MISSING_CONTENT", undefined],
        [{ prompt: "cats" }, 400, "MISSING_FIELD", "duration"],
        [{ script: "Hello." }, 400, "MISSING_VOICE", "voice_id"],
        [{ script: "Hello.", voice_id: "vc_marcus" }, 400, "INVALID_VOICE_ID", "voice_id"],
        [{ prompt: "cats", duration: 30, avatar_id: "av_maya" }, 400, "INVALID_AVATAR_ID", "avatar_id"],
        [{ prompt: "cats", duration: 30, format: "custom", width: 5001 }, 400, "INVALID_FORMAT", "width"],
        [{ prompt: "cats", duration: 30, format: "cinema" }, 400, "INVALID_FORMAT", "format"],
        [{ prompt: "cats", duration: 601 }, 400, "INVALID_VALUE", "duration"],
        [{ prompt: "cats", duration: 9 }, 400, "INVALID_VALUE", "duration"],
        [{ sequence_plan: [{ sequences: [{ text: "Hi.", duration_ms: 900 }] }] }, 400, "INVALID_PLAN", "sequence_plan[0].sequences[0].duration_ms"],
        [{ sequence_plan: [{ voice_id: "vc_nope", sequences: [{ text: "Hi." }] }] }, 400, "PLAN_RESOLUTION_FAILED", "sequence_plan[0].voice_id"],
      ];
      for (const [body, status, code, field] of cases) {
        const e = await apiError(sp.engine.generationStart(body));
        expect([e.status, e.code, e.field], JSON.stringify(body)).toEqual([status, code, field]);
        expect((e.body as { code?: string }).code).toBe(code);
      }
      expect(sp.balance()).toBe(toMilli(1000));
      expect(jobCount(t, sp.id)).toBe(0);

      const bad = await apiError(sp.engine.generationStart({ prompt: "cats", duration: 30 }, { simulate: "explode" }));
      expect([bad.status, bad.code, bad.field]).toEqual([400, "invalid_value", "X-Local-Simulate"]);
    });

    it("INSUFFICIENT_CREDITS (402) with the amounts, before anything is written", async () => {
      const sp = space(t, { credits: 7 });
      const e = await apiError(sp.engine.generationStart({ prompt: "cats", duration: 60 }));
      expect(e.status).toBe(402);
      expect(e.body).toEqual({ error: "Insufficient credits: 15 required, 7 available", code: "INSUFFICIENT_CREDITS", required: 15, available: 7 });
      expect(sp.balance()).toBe(toMilli(7));
      expect(jobCount(t, sp.id)).toBe(0);
    });

    it("local files are media on the local target only (over HTTP they are refused before anything else)", async () => {
      const sp = space(t);
      const body = { script: "Hello there.", voice_url: file("voice.wav") };
      if (t.target === "hosted") {
        const e = await apiError(sp.engine.generationStart(body));
        expect([e.status, e.code, e.field]).toEqual([400, "INVALID_VALUE", "voice_url"]);
        expect(e.message).toMatch(/local files are not accepted over HTTP/);
      } else {
        const { done } = await generate(sp, body);
        expect(done.status).toBe("completed");
      }
    });

    it("a script: status goes through its steps to completed with a done video; the estimate is debited, once", async () => {
      const sp = space(t, { credits: 100 });
      const { started, done, seen } = await generate(sp, {
        script: SCRIPT,
        voice_id: "vc_emma",
        avatar_id: "lk_maya_kitchen",
        webhook_url: `${origin}/hook/${t.target}/script`,
      });
      expect(started).toEqual({ job_id: expect.stringMatching(/^run_[0-9a-f]{24}$/), status: "pending", estimated_credits: 10 });
      expect(done).toEqual({
        job_id: started.job_id,
        status: "completed",
        progress_step: 100,
        current_step: null,
        result: {
          video_id: expect.stringMatching(/^[0-9a-f]{24}$/),
          thumbnail_url: expect.any(String),
          duration: expect.any(Number),
          cost: 10,
          created_at: expect.stringMatching(/Z$/),
        },
      });
      // Every status read is a valid state, in order; steps are upper-case names in the documented order.
      const order = seen.map((s) => (s.status === "completed" ? STEP_ORDER.length : STEP_ORDER.indexOf(s.current_step!)));
      expect(order.every((x) => x >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      for (const s of seen) {
        expect(s.progress_step).toBeGreaterThanOrEqual(0);
        expect(s.progress_step).toBeLessThanOrEqual(100);
        if (s.status !== "completed") expect(s.result).toBeUndefined();
      }
      expect(sp.balance()).toBe(toMilli(90));
      const ledger = t.instance.ledger.rows(sp.id).filter((r) => r.ref === started.job_id);
      expect(ledger.map((r) => [r.kind, r.amount_milli])).toEqual([["debit", -10_000]]);

      const tl = timelineOfVideo(t, done.result!.video_id!);
      expect(done.result!.duration).toBe(tl.duration_ms / 1000);
      expect(tl).toMatchObject({ version: 1, format: "vertical", width: 1080, height: 1920, fps: 30, native_avatar: false });
      expect(tl.blocks).toHaveLength(1);
      expect(tl.blocks[0]).toMatchObject({ voice_id: "vc_emma", tts_voice: "en-us+f3", look_id: "lk_maya_kitchen", start_ms: 0, end_ms: tl.duration_ms });
      const seqs = sequencesOf(tl).map((x) => x.sequence);
      expect(seqs.map((s) => s.text)).toEqual([
        "Meet the smarter way to brew coffee at home. Our grinder remembers your favourite setting, so every cup tastes the same.",
        "It is quiet, fast, and easy to clean. Try it for thirty days.",
        "If you do not love it, send it back! Visit our website today.",
      ]);
      expect(seqs.every((s) => s.look_id === "lk_maya_kitchen" && s.look_image_path === "catalog/v1/looks/lk_maya_kitchen.png")).toBe(true);
      // Spoken time is what the TTS produced (within half a frame per boundary), and close to the estimate.
      const media = t.instance.mediaDir;
      const tts = seqs.flatMap((s) => s.sentences).reduce((n, x) => n + readWavInfo(path.join(media, x.audio_path!))!.durationMs, 0);
      expect(Math.abs(spokenMs(tl) - tts)).toBeLessThanOrEqual(17);
      expect(Math.abs(tts - estimateSpeechMs(SCRIPT)) / tts).toBeLessThan(0.1);
      expect(readWavInfo(path.join(media, tl.voice_path))!.durationMs).toBeCloseTo(tl.duration_ms, 0);
      // The thumbnail is served where the result says.
      const thumb = done.result!.thumbnail_url;
      const bytes = t.target === "local" ? fs.readFileSync(fileURLToPath(thumb!)) : Buffer.from(await (await fetch(thumb!)).arrayBuffer());
      expect(bytes.subarray(0, 3).toString("hex")).toBe("ffd8ff");

      const [hook] = await waitForHook(`/hook/${t.target}/script`);
      expect(hook!.body).toEqual({
        task: "video_generate",
        job_id: started.job_id,
        status: "completed",
        result: { video_id: done.result!.video_id, thumbnail_url: expect.any(String), cost: 10, created_at: done.result!.created_at },
      });
    });

    it("a prompt: the local writer writes about it for about the requested duration", async () => {
      const sp = space(t);
      const { done } = await generate(sp, { prompt: "Why cats purr", duration: 20, avatar_id: "lk_james_car", format: "horizontal" });
      expect(done.status).toBe("completed");
      const tl = timelineOfVideo(t, done.result!.video_id!);
      expect([tl.format, tl.width, tl.height]).toEqual(["horizontal", 1920, 1080]);
      expect(tl.blocks[0]!.voice_id).toBe("vc_emma");
      expect(sequencesOf(tl)[0]!.sequence.text).toMatch(/^Let's talk about why cats purr\./);
      expect(tl.duration_ms).toBeGreaterThan(15_000);
      expect(tl.duration_ms).toBeLessThan(25_000);
    });

    it("a plan: blocks, a silent 1500 ms block, looks by precedence, media in the four show modes, stills animated", async () => {
      const sp = space(t, { credits: 100 });
      const asset = await libraryImage(sp);
      const before = sp.balance();
      const plan = goodPlan();
      plan[0]!.sequences[0]!.media!.url = src("a.png");
      plan[0]!.sequences[1]!.media!.url = src("b.mp4");
      plan[1]!.sequences[0]!.media!.url = src("c.jpg");
      plan[2]!.sequences[0]!.media = { asset_id: asset, show: "hide" };
      const { started, done } = await generate(sp, { sequence_plan: plan, avatar_id: "lk_lena_studio", animate_image: true, prompt: "ignored", script: "ignored" });
      expect(done.status, JSON.stringify(done.error)).toBe("completed");
      // Three stills animated (a.png, c.jpg, the library image): 5 credits each on top of the duration.
      expect(started.estimated_credits).toBe(20);
      expect(before - sp.balance()).toBe(toMilli(20));

      const tl = timelineOfVideo(t, done.result!.video_id!);
      expect(tl.blocks.map((b) => [b.voice_id, b.look_id, b.sequences.length])).toEqual([
        ["vc_emma", "lk_maya_kitchen", 2],
        [null, null, 1],
        ["vc_noah", null, 1],
      ]);
      const silent = tl.blocks[1]!.sequences[0]!;
      expect(silent).toMatchObject({ text: null, sentences: [] });
      expect(silent.end_ms - silent.start_ms).toBe(1500);
      const seqs = sequencesOf(tl).map((x) => x.sequence);
      // sequence look > block look > request avatar_id
      expect(seqs.map((s) => s.look_id)).toEqual(["lk_maya_office", "lk_maya_kitchen", "lk_lena_studio", "lk_james_car"]);
      expect(seqs.map((s) => [s.media?.show, s.media?.kind, s.media?.animate ?? false])).toEqual([
        ["full", "image", true],
        ["half", "video", false],
        ["background", "image", true],
        ["hide", "image", true],
      ]);
      expect(seqs[1]!.action).toBe("smiles");
      expect(seqs[1]!.media).toMatchObject({ source: { url: src("b.mp4") }, trim_start: 1, width: 320, height: 180, duration_ms: 2000 });
      expect(seqs[3]!.media).toMatchObject({ source: { asset_id: asset } });
      expect(seqs.every((s) => !s.media || fs.existsSync(path.join(t.instance.mediaDir, s.media.path)))).toBe(true);
      // No automatic b-roll: the plan has media.
      expect(seqs.some((s) => s.media && "broll_asset_id" in s.media.source)).toBe(false);
    });

    it("automatic b-roll from the library when no sequence has media; media_urls first; off with enable.broll false", async () => {
      const sp = space(t, { credits: 100 });
      const asset = await libraryImage(sp);
      const script = "One. Two. Three. Four. Five. Six.";
      const a = await generate(sp, { script, voice_id: "vc_noah", avatar_id: "lk_zoe_podcast" });
      const seqA = sequencesOf(timelineOfVideo(t, a.done.result!.video_id!)).map((x) => x.sequence);
      expect(seqA.map((s) => (s.media ? (s.media.source as { broll_asset_id?: string }).broll_asset_id : null))).toEqual([null, asset, null]);
      expect(seqA[1]!.media).toMatchObject({ kind: "image", show: "full" });

      const b = await generate(sp, { script, voice_id: "vc_noah", avatar_id: "lk_zoe_podcast", media_urls: [src("c.jpg")] });
      const seqB = sequencesOf(timelineOfVideo(t, b.done.result!.video_id!)).map((x) => x.sequence);
      expect(seqB[1]!.media?.source).toEqual({ url: src("c.jpg") });

      const c = await generate(sp, { script, voice_id: "vc_noah", avatar_id: "lk_zoe_podcast", enable: { broll: false } });
      expect(sequencesOf(timelineOfVideo(t, c.done.result!.video_id!)).some((x) => x.sequence.media)).toBe(false);
      const d = await generate(sp, { script, voice_id: "vc_noah", use_space_media: false });
      // No avatar at all: every sequence is a b-roll slot, but the library is off and nothing else was given.
      expect(sequencesOf(timelineOfVideo(t, d.done.result!.video_id!)).some((x) => x.sequence.media)).toBe(false);
    });

    it("media-based: a voice_url is the voice track, priced from its measured length; an avatar_url image shows", async () => {
      const sp = space(t);
      const { started, done } = await generate(sp, { voice_url: src("voice.wav"), avatar_url: src("a.png"), enable: { music: true } });
      expect(done.status, JSON.stringify(done.error)).toBe("completed");
      expect(started.estimated_credits).toBe(5);
      const tl = timelineOfVideo(t, done.result!.video_id!);
      const len = readWavInfo(file("voice.wav"))!.durationMs;
      expect(Math.abs(tl.duration_ms - len)).toBeLessThanOrEqual(17);
      expect(tl.blocks[0]).toMatchObject({ voice_id: null, tts_voice: null, audio_path: expect.stringMatching(/^fetched\/audio-.*\.wav$/) });
      expect(tl.blocks[0]!.sequences[0]).toMatchObject({ text: "", look_id: null, look_image_path: expect.stringMatching(/^fetched\//), sentences: [] });
      expect(tl.music_path).toBe("music/default-v1.wav");

      const missing = await apiError(sp.engine.generationStart({ voice_url: src("nope.wav") }));
      expect([missing.status, missing.code, missing.field]).toEqual([400, "INVALID_VALUE", "voice_url"]);
    });

    it("a plan block with audio_url skips voice generation: timed by characters over its audio; a new voice speaks it again", async () => {
      const sp = space(t);
      const plan = [
        { audio_url: src("voice.wav"), look_id: "lk_marco_car", sequences: [{ text: "This is a supplied voice track." }, { text: "Read by a person." }] },
        { sequences: [{ text: null, duration_ms: 500 }] },
      ];
      const { done } = await generate(sp, { sequence_plan: plan });
      expect(done.status, JSON.stringify(done.error)).toBe("completed");
      const tl = timelineOfVideo(t, done.result!.video_id!);
      const len = readWavInfo(file("voice.wav"))!.durationMs;
      const b = tl.blocks[0]!;
      expect(b).toMatchObject({ voice_id: null, tts_voice: null, audio_path: expect.stringMatching(/^fetched\/audio-/) });
      expect(Math.abs(b.end_ms - len)).toBeLessThanOrEqual(17);
      const sentences = b.sequences.flatMap((x) => x.sentences);
      expect(sentences.map((x) => x.audio_path)).toEqual([null, null]);
      // "This is a supplied voice track." has 31 characters, "Read by a person." 17: the first gets 31/48 of the audio.
      expect(Math.abs(sentences[0]!.end_ms - (len * 31) / 48)).toBeLessThanOrEqual(17);
      expect(tl.blocks[1]!.end_ms - tl.blocks[1]!.start_ms).toBe(500);

      const voiced = await duplicate(sp.engine, { video_id: done.result!.video_id, voice_id: "vc_noah" });
      expect(voiced.changes_applied!.voice_changed!).toBe(true);
      const v = timelineOfVideo(t, voiced.video_id);
      expect(v.blocks[0]).toMatchObject({ voice_id: "vc_noah", tts_voice: "en-us+m3" });
      expect(v.blocks[0]!.audio_path).toBeUndefined();
      expect(v.blocks[0]!.sequences.flatMap((x) => x.sentences).every((x) => x.audio_path?.startsWith("speech/"))).toBe(true);
      expect(v.blocks[1]!.end_ms - v.blocks[1]!.start_ms).toBe(500);
    });

    it("an avatar_url video speaks with its own sound; one without sound is refused on avatar_url", async () => {
      const sp = space(t);
      const { done } = await generate(sp, { avatar_url: src("talk.mp4") });
      expect(done.status, JSON.stringify(done.error)).toBe("completed");
      const tl = timelineOfVideo(t, done.result!.video_id!);
      expect(tl.blocks[0]!.sequences[0]).toMatchObject({ look_id: null, look_image_path: null, avatar_video_path: expect.stringMatching(/^fetched\/.*\.mp4$/) });
      expect(Math.abs(tl.duration_ms - 3000)).toBeLessThanOrEqual(100);
      expect(fs.existsSync(path.join(t.instance.mediaDir, tl.thumbnail_path))).toBe(true);
      // Its words are not known: a new voice cannot speak them, so the copy keeps the sound.
      const kept = await duplicate(sp.engine, { video_id: done.result!.video_id, voice_id: "vc_noah" });
      expect(kept.changes_applied).toEqual({ voice_changed: false, avatar_changed: false });
      expect(kept.message).toMatch(/voice was kept/);

      const silent = await apiError(sp.engine.generationStart({ avatar_url: src("b.mp4") }));
      expect([silent.status, silent.code, silent.field]).toEqual([400, "INVALID_VALUE", "avatar_url"]);
      expect(silent.message).toMatch(/no sound/);
    });

    it("native avatar: recorded on the timeline with its model; a new voice is recorded and its sound left to the export", async () => {
      const sp = space(t);
      const { done } = await generate(sp, {
        script: "Native avatars speak at export.",
        voice_id: "vc_emma",
        avatar_id: "lk_zoe_podcast",
        use_native_avatar: true,
        // The docs name no field for the model: a guessed name passes the open body and is not acted on.
        native_avatar_model: "premium",
      });
      const tl = timelineOfVideo(t, done.result!.video_id!);
      expect(tl).toMatchObject({ native_avatar: true, native_avatar_model: "omni-flash" });
      const voiced = await duplicate(sp.engine, { video_id: done.result!.video_id, voice_id: "vc_noah" });
      expect(voiced.changes_applied!.voice_changed!).toBe(true);
      const v = timelineOfVideo(t, voiced.video_id);
      expect(v.blocks[0]).toMatchObject({ voice_id: "vc_noah", tts_voice: "en-us+m3" });
      expect(v.duration_ms).toBe(tl.duration_ms);
    });

    it("a simulated failure ends failed with its code, refunded once, with a failure webhook", async () => {
      const sp = space(t, { credits: 50 });
      const { started, done } = await generate(sp, { prompt: "cats", duration: 30, webhook_url: `${origin}/hook/${t.target}/sim` }, "fail");
      expect(done).toMatchObject({ status: "failed", error: { code: "GENERATION_FAILED", message: expect.stringMatching(/simulated/i) } });
      expect(done.result).toBeUndefined();
      expect(sp.balance()).toBe(toMilli(50));
      const rows = t.instance.ledger.rows(sp.id).filter((r) => r.ref === started.job_id);
      expect(rows.map((r) => [r.kind, r.amount_milli])).toEqual([
        ["debit", -10_000],
        ["refund", 10_000],
      ]);
      const [hook] = await waitForHook(`/hook/${t.target}/sim`);
      expect(hook!.body).toEqual({ task: "video_generate", job_id: started.job_id, status: "failed", error: { code: "GENERATION_FAILED", message: expect.any(String) } });

      const coded = await generate(sp, { prompt: "cats", duration: 30 }, "fail:VOICE_GENERATION_FAILED");
      expect(coded.done.error?.code).toBe("VOICE_GENERATION_FAILED");
      expect(sp.balance()).toBe(toMilli(50));
    });

    it("media that cannot be fetched fails the job with MEDIA_PROCESSING_FAILED, refunded", async () => {
      const sp = space(t, { credits: 50 });
      const plan = [{ voice_id: "vc_emma", sequences: [{ text: "Look at this.", media: { url: src("gone.png"), show: "full" } }] }];
      const { done } = await generate(sp, { sequence_plan: plan, webhook_url: `${origin}/hook/${t.target}/gone` });
      expect(done).toMatchObject({ status: "failed", current_step: "MEDIA_UPLOAD", error: { code: "MEDIA_PROCESSING_FAILED" } });
      expect(sp.balance()).toBe(toMilli(50));
      expect((await waitForHook(`/hook/${t.target}/gone`))[0]!.body).toMatchObject({ status: "failed", error: { code: "MEDIA_PROCESSING_FAILED" } });
    });

    it("status: JOB_NOT_FOUND (404), UNAUTHORIZED_JOB (403) for another space's job", async () => {
      const a = space(t);
      const b = space(t);
      // Any finished job of a's serves: one short sentence.
      const { started } = await generate(a, { script: "Hi there.", voice_id: "vc_emma" });
      const nf = await apiError(a.engine.generationStatus({ job_id: "run_000000000000000000000000" }));
      expect([nf.status, nf.code]).toEqual([404, "JOB_NOT_FOUND"]);
      const other = await apiError(b.engine.generationStatus({ job_id: started.job_id }));
      expect([other.status, other.code]).toEqual([403, "UNAUTHORIZED_JOB"]);
    });

    it("duplicate: an exact copy, a new voice (speech and timing made again), a new look, both", async () => {
      const sp = space(t);
      // Two sentences: enough for speech and timing made again per sentence, four renders shorter.
      const { done } = await generate(sp, {
        script: "Meet the smarter way to brew coffee at home. Try it for thirty days.",
        voice_id: "vc_emma",
        avatar_id: "lk_maya_kitchen",
      });
      const id = done.result!.video_id;
      const orig = timelineOfVideo(t, id!);

      const copy = await duplicate(sp.engine, { video_id: id });
      expect(copy).toEqual({
        video_id: expect.stringMatching(/^[0-9a-f]{24}$/),
        status: "done",
        message: expect.stringMatching(/exact copy/),
        changes_applied: { voice_changed: false, avatar_changed: false },
      });
      const c = timelineOfVideo(t, copy.video_id);
      expect({ ...c, voice_path: "", thumbnail_path: "" }).toEqual({ ...orig, voice_path: "", thumbnail_path: "" });
      expect(c.voice_path).toBe(`videos/${copy.video_id}/voice.wav`);
      expect(fs.existsSync(path.join(t.instance.mediaDir, c.thumbnail_path))).toBe(true);
      expect(readVideo(t.instance.db, copy.video_id)).toMatchObject({ origin: "duplicate", parent_video_id: id });

      const voiced = await duplicate(sp.engine, { video_id: id, voice_id: "vc_noah" });
      expect(voiced.changes_applied).toEqual({ voice_changed: true, avatar_changed: false });
      const v = timelineOfVideo(t, voiced.video_id);
      expect(v.blocks[0]).toMatchObject({ voice_id: "vc_noah", tts_voice: "en-us+m3", look_id: "lk_maya_kitchen" });
      const sentences = (x: VideoTimeline) => sequencesOf(x).flatMap((s) => s.sequence.sentences);
      expect(sentences(v).map((s) => s.text)).toEqual(sentences(orig).map((s) => s.text));
      expect(sentences(v).every((s, i) => s.audio_path !== sentences(orig)[i]!.audio_path)).toBe(true);
      expect(v.duration_ms).not.toBe(orig.duration_ms);
      expect(readWavInfo(path.join(t.instance.mediaDir, v.voice_path))!.durationMs).toBeCloseTo(v.duration_ms, 0);

      const looked = await duplicate(sp.engine, { video_id: id, avatar_look_id: "lk_aisha_office" });
      expect(looked.changes_applied).toEqual({ voice_changed: false, avatar_changed: true });
      const l = timelineOfVideo(t, looked.video_id);
      expect(sequencesOf(l).every((s) => s.sequence.look_id === "lk_aisha_office" && s.sequence.look_image_path === "catalog/v1/looks/lk_aisha_office.png")).toBe(true);
      expect(l.duration_ms).toBe(orig.duration_ms);

      const both = await duplicate(sp.engine, { video_id: copy.video_id, voice_id: "vc_camille", avatar_look_id: "lk_diego_gym" });
      expect(both.changes_applied).toEqual({ voice_changed: true, avatar_changed: true });
      expect(timelineOfVideo(t, both.video_id).blocks[0]).toMatchObject({ voice_id: "vc_camille", look_id: "lk_diego_gym" });
    });

    it("duplicate refuses with every code of the spec", async () => {
      const a = space(t);
      const b = space(t);
      // Any done video of a's serves: one short sentence.
      const { done } = await generate(a, { script: "Hi there.", voice_id: "vc_emma" });
      const id = done.result!.video_id;
      const failed = await generate(a, { script: "Hi there.", voice_id: "vc_emma" }, "fail");
      const failedVideo = (t.instance.db.prepare("SELECT video_id FROM generations WHERE id = ?").get(failed.started.job_id) as { video_id: string }).video_id;
      const generating = "ffffffffffffffffffffffff";
      t.instance.db
        .prepare("INSERT INTO videos (id, space_id, status, origin, created_at, updated_at) VALUES (?, ?, 'generating', 'generation', ?, ?)")
        .run(generating, a.id, new Date().toISOString(), new Date().toISOString());

      const cases: [Engine, Record<string, unknown>, number, string, string | undefined][] = [
        [a.engine, {}, 400, "MISSING_VIDEO_ID", "video_id"],
        [a.engine, { video_id: "" }, 400, "MISSING_VIDEO_ID", "video_id"],
        [a.engine, { video_id: 42 }, 400, "INVALID_TYPE", "video_id"],
        [a.engine, { video_id: id, voice_id: true }, 400, "INVALID_TYPE", "voice_id"],
        [a.engine, { video_id: id, avatar_look_id: ["lk_maya_kitchen"] }, 400, "INVALID_TYPE", "avatar_look_id"],
        [a.engine, { video_id: id, voice_id: "vc_marcus" }, 400, "INVALID_VOICE_ID", "voice_id"],
        [a.engine, { video_id: id, avatar_look_id: "av_maya" }, 400, "INVALID_AVATAR_ID", "avatar_look_id"],
        [a.engine, { video_id: "000000000000000000000000" }, 404, "VIDEO_NOT_FOUND", undefined],
        [b.engine, { video_id: id }, 403, "UNAUTHORIZED_VIDEO", undefined],
        [a.engine, { video_id: failedVideo }, 400, "VIDEO_NOT_READY", undefined],
        [a.engine, { video_id: generating }, 400, "VIDEO_NOT_READY", undefined],
      ];
      for (const [engine, body, status, code, field] of cases) {
        const e = await apiError(engine.videoDuplicate(body as never));
        expect([e.status, e.code, e.field], JSON.stringify(body)).toEqual([status, code, field]);
      }
    });

    it("a refused duplicate has no side effect: no speech made, no folder left under media/videos/", async () => {
      const a = space(t);
      const { done } = await generate(a, { script: "Nothing new is said.", voice_id: "vc_emma" });
      const id = done.result!.video_id;
      const files = () => (fs.readdirSync(t.instance.mediaDir, { recursive: true }) as string[]).sort();
      const videos = () => fs.readdirSync(path.join(t.instance.mediaDir, "videos")).sort();
      const before = { files: files(), videos: videos() };
      // A new voice would be spoken again (TTS) before the copy is recorded: the door refuses first.
      for (const [body, code, field] of [
        [{ video_id: id, voice_id: "vc_noah", colour: "red" }, "INVALID_TYPE", "colour"],
        [{ video_id: id, voice_id: "vc_noah", avatar_look_id: 5 }, "INVALID_TYPE", "avatar_look_id"],
        [{ video_id: id, voice_id: null }, "INVALID_TYPE", "voice_id"],
      ] as const) {
        const e = await apiError(a.engine.videoDuplicate(body as never));
        expect([e.status, e.code, e.field], JSON.stringify(body)).toEqual([400, code, field]);
      }
      expect(videos()).toEqual(before.videos);
      expect(files()).toEqual(before.files);
    });
    // Polls are close together and a generation takes seconds (longer with the WASM espeak-ng of a
    // fresh machine): the rate limit (tested elsewhere) is lifted, so no 429 moves the harness's clock
    // past the job's lease.
  },
  { rateLimit: { limit: 100_000, windowMs: 60_000 } },
);
