/**
 * The export job on one instance: progress that only grows (a retry never shows less), is capped at
 * 99 until the export completes and is written at most every 250 ms; the timeline mapped onto the
 * renderer's spec; every failure path ending with its code and refunded once (a missing input, an
 * unreadable media file, a file that cannot be published, a crash retried then given up); and a
 * supplied avatar video rendered alone (full screen) and beside media (a still of it).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { toMilli } from "../../src/contract/credits.js";
import { progressWriter, PROGRESS_WRITE_MS } from "../../src/features/export/emulator/public/job.js";
import { exportDir, readExport } from "../../src/features/export/emulator/record.js";
import { renderSpecOf } from "../../src/features/export/emulator/public/render-spec.js";
import { readVideo, timelineOf } from "../../src/features/video/emulator/public/record.js";
import type { VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";
import { renderImage, renderVideo } from "../../src/media/index.js";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";
import { probeOutput } from "../helpers/fixture-ffmpeg.js";

let shared: TestInstance | undefined;
afterEach(async () => {
  // Every test starts with the worker stopped: its export waits until the test lets it run. A job a
  // test left queued (the progress tests never run theirs) is closed, so no later test's worker runs it.
  await shared?.stopWorker(1_000);
  shared?.db.prepare("UPDATE jobs SET status = 'failed', last_error = 'left by an earlier test' WHERE status = 'queued'").run();
});
afterAll(async () => {
  await shared?.close();
});

/**
 * The file's instance, whose worker runs only while a test lets it. One for every test: each test's
 * export is its own job, ledger rows and folder, and each checks only those.
 */
function instance(): TestInstance {
  // Polls are frequent: no 429 wait in the way (the rate limit is tested elsewhere).
  shared ??= openTestInstance({ worker: "none", rateLimit: { limit: 100_000, windowMs: 60_000 } });
  return shared;
}

/** The default video, made once and shared by the tests that only export it (never change it). */
let defaultVideo: Promise<string> | undefined;
const sharedVideo = (t: TestInstance): Promise<string> => (defaultVideo ??= makeVideo(t));

async function makeVideo(
  t: TestInstance,
  body: Record<string, unknown> = { script: "Hi there. Bye now.", voice_id: "vc_emma", avatar_id: "lk_zoe_podcast" },
): Promise<string> {
  await t.startWorker();
  const gen = await t.api.generationStart(body);
  const id = await waitFor(
    async () => {
      const s = await t.api.generationStatus({ job_id: gen.job_id });
      if (s.status === "failed") throw new Error(JSON.stringify(s.error));
      return s.status === "completed" ? s.result!.video_id : undefined;
    },
    30_000,
    25,
  );
  await t.stopWorker(1_000);
  return id;
}

async function runExport(t: TestInstance, jobId: string, timeoutMs = 30_000) {
  await t.startWorker();
  return waitFor(
    async () => {
      const s = await t.api.exportStatus({ job_id: jobId });
      return s.status === "completed" || s.status === "failed" ? s : undefined;
    },
    timeoutMs,
    25,
  );
}

const spaceOf = (t: TestInstance) => t.spaceForKey(t.key)!.id;
const ledgerOf = (t: TestInstance, ref: string) =>
  t.ledger
    .rows(spaceOf(t))
    .filter((r) => r.ref === ref)
    .map((r) => [r.kind, r.amount_milli]);

describe("progress", () => {
  it("only grows, keeps the step of the furthest point, stays below 100 until completed, and is throttled", async () => {
    const t = instance();
    const video = await sharedVideo(t);
    const { job_id } = await t.api.exportStart({ video_id: video });
    let now = 0;
    const w = progressWriter(t, job_id, () => now);
    const state = () => {
      const r = readExport(t, job_id)!;
      return [r.status, r.current_step, r.progress];
    };
    expect(state()).toEqual(["pending", "render-audio", 0]);
    w.update("render-audio", 0);
    expect(state()).toEqual(["processing", "render-audio", 0]);
    w.update("avatar", 5);
    expect(state()).toEqual(["processing", "avatar", 5]);
    w.update("render", 10);
    now += 10;
    w.update("render", 40); // within 250 ms of the last write: held back
    expect(state()).toEqual(["processing", "render", 10]);
    now += PROGRESS_WRITE_MS;
    w.update("render", 41);
    expect(state()).toEqual(["processing", "render", 41]);
    now += PROGRESS_WRITE_MS;
    w.update("render", 100); // the renderer's 100 is not the job's: completion is
    expect(state()).toEqual(["processing", "render", 99]);

    // A second attempt starts over: the row keeps the furthest point until the new one passes it.
    const again = progressWriter(t, job_id, () => now);
    again.update("render-audio", 0);
    again.update("avatar", 5);
    expect(state()).toEqual(["processing", "render", 99]);
    w.stop();
    again.stop();
    expect(() => t.db.prepare("UPDATE exports SET progress = 3 WHERE id = ?").run(job_id)).toThrow(/never goes back/);
  });

  it("the last value held back is written by the timer, and nothing after stop or once the export ended", async () => {
    const t = instance();
    const video = await sharedVideo(t);
    const { job_id } = await t.api.exportStart({ video_id: video });
    const w = progressWriter(t, job_id);
    w.update("render", 10);
    w.update("render", 20);
    expect(readExport(t, job_id)!.progress).toBe(10);
    await waitFor(() => readExport(t, job_id)!.progress === 20, 2_000);
    t.db.prepare("UPDATE exports SET status = 'failed', error_code = 'EXPORT_FAILED' WHERE id = ?").run(job_id);
    await new Promise((r) => setTimeout(r, PROGRESS_WRITE_MS + 10));
    w.update("render", 60);
    w.flush();
    expect(readExport(t, job_id)!.progress).toBe(20);
    w.stop();
  });
});

describe("the timeline as the renderer's spec", () => {
  const t: VideoTimeline = {
    version: 1,
    format: "vertical",
    width: 1080,
    height: 1920,
    fps: 30,
    duration_ms: 3000,
    options: { subtitles: true, broll: false, music: true, transitions: false },
    music_path: "music/default-v1.wav",
    native_avatar: false,
    enhance_emotions: false,
    save_to_library: true,
    voice_path: "videos/v/voice.wav",
    thumbnail_path: "videos/v/thumbnail.jpg",
    blocks: [
      {
        voice_id: null,
        tts_voice: null,
        look_id: null,
        audio_path: "fetched/audio-1.wav",
        start_ms: 0,
        end_ms: 2000,
        sequences: [
          {
            text: "Hello.",
            start_ms: 0,
            end_ms: 1000,
            look_id: null,
            look_image_path: null,
            avatar_video_path: "fetched/talk.mp4",
            sentences: [{ text: "Hello.", start_ms: 0, end_ms: 1000, audio_path: null }],
          },
          {
            text: "Look.",
            start_ms: 1000,
            end_ms: 2000,
            look_id: null,
            look_image_path: null,
            avatar_video_path: "fetched/talk.mp4",
            media: { kind: "image", source: { url: "u" }, path: "fetched/a.png", show: "half", width: 320, height: 240, animate: true },
            sentences: [{ text: "Look.", start_ms: 1000, end_ms: 2000, audio_path: null }],
          },
        ],
      },
      {
        voice_id: "vc_emma",
        tts_voice: "en-us+f3",
        look_id: "lk_a",
        start_ms: 2000,
        end_ms: 3000,
        sequences: [
          {
            text: "Bye.",
            start_ms: 2000,
            end_ms: 3000,
            look_id: "lk_a",
            look_image_path: "catalog/v1/looks/lk_a.png",
            media: { kind: "video", source: { asset_id: "x" }, path: "assets/x/x.mp4", show: "background", trim_start: 1.5, width: 640, height: 360, duration_ms: 4000 },
            sentences: [{ text: "Bye.", start_ms: 2000, end_ms: 3000, audio_path: "speech/tts-1.wav" }],
          },
        ],
      },
    ],
  };

  it("resolves every path under the media dir and keeps the times, text and options", () => {
    const spec = renderSpecOf(t, { width: 720, height: 1280 }, "/m");
    expect(spec).toMatchObject({ width: 720, height: 1280, fps: 30, duration_ms: 3000, voice_path: "/m/videos/v/voice.wav", music_path: "/m/music/default-v1.wav" });
    expect(spec.options).toEqual({ subtitles: true, music: true, transitions: false });
    const [a, b] = spec.blocks;
    expect(a!.audio_path).toBe("/m/fetched/audio-1.wav");
    // Supplied speech has no file per sentence: the block's audio stands for it.
    expect(a!.sequences.flatMap((s) => s.sentences.map((x) => x.audio_path))).toEqual(["/m/fetched/audio-1.wav", "/m/fetched/audio-1.wav"]);
    // The avatar video alone plays full screen on the video's clock; beside media it plays in the look's place.
    expect(a!.sequences[0]).toMatchObject({ look_image_path: null, media: { kind: "video", path: "/m/fetched/talk.mp4", show: "full", trim_start: 0 } });
    expect(a!.sequences[1]).toMatchObject({
      look_image_path: null,
      look_video: { path: "/m/fetched/talk.mp4", start_s: 1 },
      media: { kind: "image", path: "/m/fetched/a.png", show: "half", width: 320, height: 240 },
    });
    expect(b!.sequences[0]).toMatchObject({
      text: "Bye.",
      look_image_path: "/m/catalog/v1/looks/lk_a.png",
      media: { kind: "video", path: "/m/assets/x/x.mp4", show: "background", trim_start: 1.5, width: 640, height: 360, duration_ms: 4000 },
      sentences: [{ text: "Bye.", start_ms: 2000, end_ms: 3000, audio_path: "/m/speech/tts-1.wav" }],
    });
  });
});

describe("failures end with their code, refunded once", () => {
  // custom wider than 1920: 2.5 credits, so the refund shows.
  const CHARGED = { format: "custom", width: 1922, height: 360 } as const;

  it("a missing input (the voice track) → EXPORT_FAILED naming the file, not its path", async () => {
    const t = instance();
    const video = await makeVideo(t);
    const tl = timelineOf(readVideo(t.db, video)!)!;
    fs.rmSync(path.join(t.mediaDir, tl.voice_path));
    const s = await t.api.exportStart({ video_id: video, ...CHARGED });
    const done = await runExport(t, s.job_id);
    expect(done).toMatchObject({ status: "failed", error: { code: "EXPORT_FAILED", message: expect.stringMatching(/voice track \(voice\.wav\)/) } });
    expect(done.error!.message).not.toContain(t.mediaDir);
    expect(ledgerOf(t, s.job_id)).toEqual([
      ["debit", -2500],
      ["refund", 2500],
    ]);
    expect(fs.readdirSync(path.join(t.mediaDir, exportDir(s.job_id)))).toEqual([]);
  });

  it("media that is not a picture → ENCODING_FAILED", async () => {
    const t = instance();
    const img = path.join(t.home, "a.png");
    await renderImage({ out: img, width: 320, height: 240, prompt: "A" });
    const video = await makeVideo(t, { sequence_plan: [{ voice_id: "vc_emma", sequences: [{ text: "Look at this.", media: { url: img, show: "full" } }] }] });
    const tl = timelineOf(readVideo(t.db, video)!)!;
    fs.writeFileSync(path.join(t.mediaDir, tl.blocks[0]!.sequences[0]!.media!.path), "not an image");
    const s = await t.api.exportStart({ video_id: video, ...CHARGED });
    const done = await runExport(t, s.job_id);
    expect(done).toMatchObject({ status: "failed", error: { code: "ENCODING_FAILED" } });
    expect(ledgerOf(t, s.job_id)).toEqual([
      ["debit", -2500],
      ["refund", 2500],
    ]);
  });

  it("a rendered file that cannot be published → STORAGE_FAILED, nothing published", async () => {
    const t = instance();
    const video = await sharedVideo(t);
    const s = await t.api.exportStart({ video_id: video, ...CHARGED });
    // Something in the way of the published name.
    fs.mkdirSync(path.join(t.mediaDir, exportDir(s.job_id), "video.mp4", "in-the-way"), { recursive: true });
    const done = await runExport(t, s.job_id);
    expect(done).toMatchObject({ status: "failed", error: { code: "STORAGE_FAILED", message: expect.stringMatching(/cannot publish/) } });
    expect(ledgerOf(t, s.job_id)).toEqual([
      ["debit", -2500],
      ["refund", 2500],
    ]);
    expect(fs.readdirSync(path.join(t.mediaDir, exportDir(s.job_id))).filter((n) => n.startsWith("attempt-"))).toEqual([]);

    // The thumbnail's name blocked: the video that did move is taken back.
    await t.stopWorker(1_000);
    const s2 = await t.api.exportStart({ video_id: video, ...CHARGED });
    fs.mkdirSync(path.join(t.mediaDir, exportDir(s2.job_id), "thumbnail.jpg", "in-the-way"), { recursive: true });
    expect((await runExport(t, s2.job_id)).error?.code).toBe("STORAGE_FAILED");
    expect(fs.readdirSync(path.join(t.mediaDir, exportDir(s2.job_id)))).toEqual(["thumbnail.jpg"]);
  });

  it("a crash is retried, then given up with EXPORT_FAILED, refunded once", async () => {
    const t = instance();
    const video = await makeVideo(t);
    const s = await t.api.exportStart({ video_id: video, ...CHARGED });
    // A timeline the job cannot read (blocks missing): the run throws.
    t.db.prepare("UPDATE videos SET timeline = json_remove(timeline, '$.blocks') WHERE id = ?").run(video);
    const job = t.jobs.list({ kind: "export", ref: s.job_id })[0]!;
    t.db.prepare("UPDATE jobs SET max_attempts = 2 WHERE id = ?").run(job.id);
    const done = await runExport(t, s.job_id);
    expect(done).toMatchObject({ status: "failed", error: { code: "EXPORT_FAILED", message: expect.stringMatching(/^Export failed: /) } });
    expect(t.jobs.get(job.id)).toMatchObject({ status: "failed", attempts: 2 });
    expect(ledgerOf(t, s.job_id)).toEqual([
      ["debit", -2500],
      ["refund", 2500],
    ]);
  });
});

describe("a supplied avatar video", () => {
  it("plays full screen where the avatar is alone, and stands in as a still beside half media", async () => {
    const t = instance();
    const talk = path.join(t.home, "talk.mp4");
    const img = path.join(t.home, "a.png");
    await Promise.all([
      renderVideo({ out: talk, width: 180, height: 320, durationSeconds: 3, prompt: "talking head", audio: true, speechText: "Hi, I am the avatar." }),
      renderImage({ out: img, width: 320, height: 240, prompt: "A" }),
    ]);
    const video = await makeVideo(t, {
      avatar_url: talk,
      sequence_plan: [{ voice_id: "vc_emma", sequences: [{ text: "Hello there." }, { text: "And this.", media: { url: img, show: "half" } }] }],
    });
    const seqs = timelineOf(readVideo(t.db, video)!)!.blocks[0]!.sequences;
    expect(seqs.map((s) => [s.look_image_path, !!s.avatar_video_path])).toEqual([
      [null, true],
      [null, true],
    ]);
    const s = await t.api.exportStart({ video_id: video, format: "custom", width: 180, height: 320 });
    const done = await runExport(t, s.job_id);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    const p = await probeOutput(path.join(t.mediaDir, readExport(t, s.job_id)!.video_path!));
    expect([p.width, p.height, p.videoCodec, p.audioCodec]).toEqual([180, 320, "h264", "aac"]);
    expect(toMilli(done.result!.cost!)).toBe(0);
  });
});
