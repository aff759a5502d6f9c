/**
 * `mediagen export`, `export status` and `generate --export` on a fresh local instance (a detached
 * worker renders), with the done-when through the built binary: one command from a script to
 * hello.mp4, which ffprobe shows as 1080x1920 H.264 + AAC with the speech's duration, and whose frame
 * shows the look with a subtitle over it. Also: the progress on stderr (a bar on a terminal, one line
 * per change elsewhere), --download to a file or a directory, --json/-q outputs, and the exit codes.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";
import { getTools, probe } from "../../src/media/index.js";
import { readWavInfo } from "../../src/media/wav.js";
import { newHome, run, runBin } from "./helpers.js";
import { fixtureTools } from "../helpers/fixture-ffmpeg.js";

interface ExportStatus {
  job_id: string;
  status: string;
  progress: number;
  current_step: string;
  result?: { video_url: string; thumbnail_url: string; cost: number; created_at: string };
  error?: { code: string; message: string };
}

let home: string;
let work: string;
let ffmpeg: string;
// The issue's own example (two sentences): the frame at 1 s is in the second, under its subtitle.
const TEXT = "Hello! This is a local test.";

beforeAll(async () => {
  home = newHome();
  work = path.join(home, "work");
  fs.mkdirSync(work);
  // Frames are read with the instruments' ffmpeg (the export itself is rendered with the tools under test).
  ffmpeg = fixtureTools(await getTools()).ffmpeg;
});

const show = async (videoId: string) => (await run(["local", "videos", "show", videoId, "--json"], { home })).json<{ timeline: VideoTimeline }>();
const credits = async () =>
  (await run(["local", "spaces", "list", "--json"], { home })).json<{ is_default: boolean; credits: number }[]>().find((s) => s.is_default)!.credits;

/** A frame of a video (or a picture scaled to cover) as 8-bit gray pixels. */
function gray(input: string, w: number, h: number, at?: number): Buffer {
  const seek = at !== undefined ? ["-ss", String(at)] : [];
  return execFileSync(
    ffmpeg,
    [
      "-hide_banner",
      "-loglevel",
      "error",
      ...seek,
      "-i",
      input,
      "-frames:v",
      "1",
      "-vf",
      `scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h}`,
      "-f",
      "rawvideo",
      "-pix_fmt",
      "gray",
      "-",
    ],
    { maxBuffer: w * h * 2 },
  );
}

/** Share of the pixels in rows [y0, y1) where two gray images differ by more than 60 levels. */
function changed(a: Buffer, b: Buffer, w: number, y0: number, y1: number): number {
  let n = 0;
  for (let i = y0 * w; i < y1 * w; i++) if (Math.abs(a[i]! - b[i]!) > 60) n++;
  return n / ((y1 - y0) * w);
}

function stddev(a: Buffer): number {
  const mean = a.reduce((n, x) => n + x, 0) / a.length;
  return Math.sqrt(a.reduce((n, x) => n + (x - mean) ** 2, 0) / a.length);
}

async function generateVideo(): Promise<string> {
  const g = await run(["generate", "--script", "Hi there.", "--voice", "vc_emma", "--avatar", "lk_zoe_podcast", "--watch", "--json"], {
    home,
    timeoutMs: 60_000,
  });
  expect(g.exitCode, g.stderr).toBe(0);
  return g.json<{ result: { video_id: string } }>().result.video_id;
}
/** One video for the export tests (each export is a job of its own; the video is only read). */
let video: Promise<string> | undefined;
const makeVideo = (): Promise<string> => (video ??= generateVideo());

describe("the issue's done-when", () => {
  it("generate --script … --voice --avatar --watch --export --download hello.mp4: a 1080x1920 H.264+AAC file with the speech's duration, the look and a subtitle", async () => {
    const r = await runBin(["generate", "--script", TEXT, "--voice", "vc_emma", "--avatar", "lk_maya_kitchen", "--watch", "--export", "--download", "hello.mp4"], {
      home,
      cwd: work,
      timeoutMs: 120_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = path.join(work, "hello.mp4");
    expect(r.stdout.trim()).toBe(out);
    // Progress went to stderr, one line per change: the generation, then the export's steps in order.
    expect(r.stderr).toMatch(/Started generation run_/);
    expect(r.stderr).toMatch(/Started export exp_[0-9a-f]{24}: 0 credits/);
    const steps = [...r.stderr.matchAll(/^export exp_\w+: (render-audio|avatar|render) (\d+)%/gm)].map((m) => [m[1]!, Number(m[2])] as const);
    expect(steps.length).toBeGreaterThan(0);
    const order = ["render-audio", "avatar", "render"];
    for (let i = 1; i < steps.length; i++) {
      expect(order.indexOf(steps[i]![0])).toBeGreaterThanOrEqual(order.indexOf(steps[i - 1]![0]));
      expect(steps[i]![1]).toBeGreaterThanOrEqual(steps[i - 1]![1]);
    }
    expect(r.stderr).toMatch(/export exp_\w+: completed/);

    const p = await probe(out);
    expect([p.width, p.height, p.videoCodec, p.audioCodec, p.streams]).toEqual([1080, 1920, "h264", "aac", 2]);
    // The speech's duration: the sentences' TTS, laid on the 30 fps grid.
    const videoId = /Video ([0-9a-f]{24}) is done/.exec(r.stderr)![1]!;
    const tl = (await show(videoId)).timeline;
    const media = path.join(home, "local", "media");
    const speech = tl.blocks.flatMap((b) => b.sequences.flatMap((s) => s.sentences)).reduce((n, s) => n + readWavInfo(path.join(media, s.audio_path!))!.durationMs, 0);
    expect(Math.abs(p.durationSeconds - tl.duration_ms / 1000)).toBeLessThanOrEqual(1 / 30 + 1e-6);
    expect(Math.abs(p.durationSeconds * 1000 - speech)).toBeLessThanOrEqual(50);

    // A frame at 1 s: the look's picture fills it (the frame matches the look above the subtitles),
    // with a subtitle in the lower part (white text where the look has none).
    const W = 540;
    const H = 960;
    const frame = gray(out, W, H, 1.0);
    const look = gray(path.join(media, tl.blocks[0]!.sequences[0]!.look_image_path!), W, H);
    expect(stddev(frame)).toBeGreaterThan(20); // not a blank frame
    expect(changed(frame, look, W, 0, Math.round(H * 0.7))).toBeLessThan(0.002);
    expect(changed(frame, look, W, Math.round(H * 0.72), Math.round(H * 0.95))).toBeGreaterThan(0.01);
  });
});

describe("generate --export", () => {
  it("--json: stdout is the export's final object; a failed generation exits 7 and exports nothing", async () => {
    // A small custom format: the export is made in the video's own format, at no cost.
    const r = await run(["generate", "--script", "Hi there.", "--voice", "vc_emma", "--format", "custom", "--width", "180", "--height", "320", "--export", "--json"], {
      home,
      timeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<ExportStatus>()).toMatchObject({ job_id: expect.stringMatching(/^exp_/), status: "completed", progress: 100, result: { cost: 0 } });
    // Both waits reported on stderr as NDJSON.
    expect(r.stderr).toMatch(/"label":"generation run_\w+","state":"done"/);
    expect(r.stderr).toMatch(/"label":"export exp_\w+","state":"done"/);

    const failed = await run(["generate", "--script", "Hi there.", "--voice", "vc_emma", "--simulate", "fail", "--export", "--json"], { home, timeoutMs: 60_000 });
    expect(failed.exitCode).toBe(7);
    expect(failed.json<{ job_id: string; status: string }>()).toMatchObject({ job_id: expect.stringMatching(/^run_/), status: "failed" });
    expect(failed.stderr).not.toMatch(/export exp_/);

    // A bad --download is refused before anything is debited.
    const before = await credits();
    const taken = path.join(work, "taken.mp4");
    fs.writeFileSync(taken, "already here");
    const bad = await run(["generate", "--script", "Hi there.", "--voice", "vc_emma", "--download", taken, "--json"], { home });
    expect([bad.exitCode, bad.errorLine()?.code]).toEqual([2, "file_exists"]);
    expect(await credits()).toBe(before);
  });
});

describe("mediagen export, export status", () => {
  it("starts (job id, or the object with --json), follows with --watch, saves with --download to a directory or a file", async () => {
    const videoId = await makeVideo();
    const started = await run(["export", videoId, "--format", "square", "--json"], { home });
    expect(started.exitCode, started.stderr).toBe(0);
    const job = started.json<{ job_id: string; status: string; estimated_credits: number }>();
    expect(job).toEqual({ job_id: expect.stringMatching(/^exp_[0-9a-f]{24}$/), status: "pending", estimated_credits: 0 });

    const dir = path.join(work, "saved");
    const watched = await run(["export", "status", job.job_id, "--download", dir, "--json"], { home, timeoutMs: 60_000 });
    expect(watched.exitCode, watched.stderr).toBe(0);
    expect(watched.json<ExportStatus>()).toMatchObject({ job_id: job.job_id, status: "completed", progress: 100, result: { cost: 0 } });
    // --json: progress lines are NDJSON, and the saved file is reported on stderr.
    const saved = path.join(dir, `${job.job_id}.mp4`);
    expect(watched.stderr).toContain(JSON.stringify({ id: job.job_id, saved }));
    expect(watched.stderr).toMatch(/"label":"export exp_\w+","state":"done","message":"completed"/);
    const p = await probe(saved);
    expect([p.width, p.height]).toEqual([1080, 1080]);

    // `export start` is the same command; --width/--height alone mean custom; -q prints the saved path.
    const file = path.join(work, "small.mp4");
    const q = await run(["export", "start", videoId, "--width", "360", "--height", "360", "--download", file, "-q"], { home, timeoutMs: 60_000 });
    expect(q.exitCode, q.stderr).toBe(0);
    expect(q.stdout.trim()).toBe(file);
    expect([(await probe(file)).width, (await probe(file)).height]).toEqual([360, 360]);

    // The file is there now: a second download refuses before anything is started, unless --force.
    const again = await run(["export", videoId, "--width", "180", "--height", "320", "--download", file, "--json"], { home });
    expect([again.exitCode, again.errorLine()?.code]).toEqual([2, "file_exists"]);
    expect(again.stderr).not.toMatch(/Started export/);
    const forced = await run(["export", videoId, "--width", "180", "--height", "320", "--download", file, "--force", "-q"], { home, timeoutMs: 60_000 });
    expect(forced.exitCode, forced.stderr).toBe(0);

    // Human output: the status as key/value lines.
    const human = await run(["export", "status", job.job_id], { home });
    expect(human.stdout).toMatch(/status\s+completed/);
    expect(human.stdout).toMatch(/video\s+file:\/\/.*\/video\.mp4/);
  });

  it("exit codes: usage 2, not found 4, failed 7 (refunded), and the service's codes with --json", async () => {
    const videoId = await makeVideo();
    expect((await run(["export"], { home })).exitCode).toBe(2);
    const mixed = await run(["export", videoId, "--format", "square", "--width", "720", "--json"], { home });
    expect([mixed.exitCode, mixed.errorLine()?.field]).toEqual([2, "--width"]);
    expect((await run(["export", videoId, "--format", "cinema"], { home })).exitCode).toBe(2);
    expect((await run(["export", videoId, "--width", "wide"], { home })).exitCode).toBe(2);
    const nf = await run(["export", "000000000000000000000000", "--json"], { home });
    expect([nf.exitCode, nf.errorLine()?.code]).toEqual([4, "VIDEO_NOT_FOUND"]);
    const model = await run(["export", videoId, "--avatar-model", "hyper", "--json"], { home });
    expect([model.exitCode, model.errorLine()?.code, model.errorLine()?.field]).toEqual([2, "INVALID_AVATAR_MODEL", "avatar_model"]);
    expect((await run(["export", "status", "exp_000000000000000000000000"], { home })).exitCode).toBe(4);

    const before = await credits();
    const failed = await run(["export", videoId, "--format", "custom", "--width", "1922", "--height", "360", "--simulate", "fail:ENCODING_FAILED", "--watch", "--json"], {
      home,
      timeoutMs: 60_000,
    });
    expect(failed.exitCode).toBe(7);
    expect(failed.json<ExportStatus>()).toMatchObject({ status: "failed", error: { code: "ENCODING_FAILED" } });
    expect(await credits()).toBe(before);
    expect((await run(["export", videoId, "--simulate", "boom"], { home })).exitCode).toBe(2);
    expect((await run(["generate", "--script", "Hi.", "--voice", "vc_emma", "--avatar-model", "premium"], { home })).exitCode).toBe(2);
  });
});
