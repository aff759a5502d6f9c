/**
 * `mediagen generate`, `generation status`, `duplicate` and `local videos` through the built binary
 * on a fresh local instance (a detached worker does the jobs), with the done-when: a script
 * piped in ends as a `done` video whose spoken time is what the TTS produced, charged the estimate;
 * a plan with every feature is accepted, and each broken variant gets its code and field path.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generationCredits } from "../../src/contract/pricing.js";
import { estimateSpeechMs } from "../../src/features/generation/text.js";
import { spokenMs, sequencesOf, type VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";
import { renderImage, renderVideo } from "../../src/media/index.js";
import { readWavInfo } from "../../src/media/wav.js";
import { goodPlan } from "../unit/generation-fixtures.js";
import { localKey, newHome, run } from "./helpers.js";

interface Status {
  job_id: string;
  status: string;
  current_step: string | null;
  progress_step: number;
  result?: { video_id: string; duration: number; cost: number; thumbnail_url: string };
  error?: { code: string };
}
interface VideoJson {
  video_id: string;
  status: string;
  origin: string;
  parent_video_id: string | null;
  timeline: VideoTimeline;
}

let home: string;
let files: string;
const SCRIPT =
  "Meet the smarter way to brew coffee at home. Our grinder remembers your favourite setting, so every cup tastes the same.\n\n" +
  "It is quiet, fast, and easy to clean. Try it for thirty days, and if you do not love it, send it back.";

beforeAll(async () => {
  home = newHome();
  files = path.join(home, "files");
  fs.mkdirSync(files);
  await Promise.all([
    renderImage({ out: path.join(files, "a.png"), width: 320, height: 240, prompt: "A" }),
    renderImage({ out: path.join(files, "c.png"), width: 240, height: 320, prompt: "C" }),
    renderVideo({ out: path.join(files, "b.mp4"), width: 320, height: 180, durationSeconds: 2, prompt: "clip", audio: false }),
  ]);
}, 60_000);

const defaultSpace = async () =>
  (await run(["local", "spaces", "list", "--json"], { home })).json<{ id: string; is_default: boolean; credits: number }[]>().find((s) => s.is_default)!;
const ledger = async (spaceId: string) => (await run(["local", "ledger", spaceId, "--json"], { home })).json<{ kind: string; amount: number; ref: string }[]>();
const show = async (videoId: string) => (await run(["local", "videos", "show", videoId, "--json"], { home })).json<VideoJson>();

describe("the issue's done-when", () => {
  it("script | generate --script - --voice --avatar --watch --json: a done video, spoken time as the TTS made it, charged the estimate", async () => {
    const r = await run(["generate", "--script", "-", "--voice", "vc_emma", "--avatar", "lk_maya_kitchen", "--watch", "--json"], {
      home,
      input: SCRIPT,
      timeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const s = r.json<Status>();
    expect(s).toMatchObject({ status: "completed", current_step: null, progress_step: 100 });
    // Progress went to stderr as NDJSON; stdout is the one final object.
    expect(r.stderr).toMatch(/"state":"done"/);

    const v = await show(s.result!.video_id);
    expect(v).toMatchObject({ video_id: s.result!.video_id, status: "done", origin: "generation" });
    const t = v.timeline;
    const media = path.join(home, "local", "media");
    const tts = sequencesOf(t)
      .flatMap((x) => x.sequence.sentences)
      .reduce((n, x) => n + readWavInfo(path.join(media, x.audio_path!))!.durationMs, 0);
    expect(Math.abs(spokenMs(t) - tts) / tts).toBeLessThan(0.1);
    expect(t.blocks[0]).toMatchObject({ voice_id: "vc_emma", look_id: "lk_maya_kitchen" });

    const space = await defaultSpace();
    const rows = (await ledger(space.id)).filter((e) => e.ref === s.job_id);
    const estimate = generationCredits(estimateSpeechMs(SCRIPT) / 1000);
    expect(rows.map((e) => [e.kind, e.amount])).toEqual([["debit", -estimate]]);
    expect(s.result!.cost).toBe(estimate);
  });

  it("a plan with two speech blocks, a silent 1500 ms block, per-sequence looks and media in all four show modes is accepted", async () => {
    const plan = goodPlan();
    plan[0]!.sequences[0]!.media!.url = "a.png"; // relative to the plan file
    plan[0]!.sequences[1]!.media!.url = "b.mp4";
    plan[1]!.sequences[0]!.media!.url = path.join(files, "c.png");
    plan[2]!.sequences[0]!.media = { url: "file://" + path.join(files, "a.png"), show: "hide" } as never;
    const planFile = path.join(files, "plan.json");
    fs.writeFileSync(planFile, JSON.stringify(plan));
    const r = await run(["generate", "--plan", planFile, "--watch", "--json"], { home, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const v = await show(r.json<Status>().result!.video_id);
    const seqs = sequencesOf(v.timeline).map((x) => x.sequence);
    expect(seqs.map((x) => [x.look_id, x.media?.show])).toEqual([
      ["lk_maya_office", "full"],
      ["lk_maya_kitchen", "half"],
      [null, "background"],
      ["lk_james_car", "hide"],
    ]);
    expect(seqs[2]!.end_ms - seqs[2]!.start_ms).toBe(1500);
  });

  it("each broken variant gets its code and field path (exit 2); the plan rules stop it before sending", async () => {
    const variants: [string, (p: ReturnType<typeof goodPlan>) => void, string, string][] = [
      ["silent-with-voice", (p) => void (p[1]!.voice_id = "vc_emma"), "INVALID_PLAN", "sequence_plan[1].voice_id"],
      ["silent-no-duration", (p) => void delete p[1]!.sequences[0]!.duration_ms, "INVALID_PLAN", "sequence_plan[1].sequences[0].duration_ms"],
      ["media-no-id-no-url", (p) => void (p[0]!.sequences[0]!.media = { show: "full" } as never), "INVALID_PLAN", "sequence_plan[0].sequences[0].media"],
      ["unknown-look", (p) => void (p[0]!.sequences[0]!.look_id = "lk_nobody"), "PLAN_RESOLUTION_FAILED", "sequence_plan[0].sequences[0].look_id"],
    ];
    const before = (await defaultSpace()).credits;
    for (const [name, breakIt, code, field] of variants) {
      const p = goodPlan();
      p[0]!.sequences[0]!.media!.url = path.join(files, "a.png");
      p[0]!.sequences[1]!.media!.url = path.join(files, "b.mp4");
      p[1]!.sequences[0]!.media!.url = path.join(files, "c.png");
      p[2]!.sequences[0]!.media = { url: path.join(files, "a.png"), show: "hide" } as never;
      breakIt(p);
      const f = path.join(files, `${name}.json`);
      fs.writeFileSync(f, JSON.stringify(p));
      const r = await run(["generate", "--plan", f, "--json"], { home });
      expect(r.exitCode, `${name}: ${r.stderr}`).toBe(2);
      expect(r.errorLine(), name).toMatchObject({ code, field });
      expect(r.stdout).toBe("");
    }
    expect((await defaultSpace()).credits).toBe(before);
  });
});

describe("mediagen generate, generation status, duplicate", () => {
  it("prints the job id; status reads it; --simulate fail --watch exits 7 refunded; errors exit by status", async () => {
    const started = await run(["generate", "--prompt", "why cats purr", "--duration", "10", "-q"], { home });
    expect(started.exitCode, started.stderr).toBe(0);
    const jobId = started.stdout.trim();
    expect(jobId).toMatch(/^run_[0-9a-f]{24}$/);
    const watched = await run(["generation", "status", jobId, "--watch", "--json"], { home, timeoutMs: 60_000 });
    expect(watched.exitCode, watched.stderr).toBe(0);
    expect(watched.json<Status>().status).toBe("completed");
    const human = await run(["generation", "status", jobId], { home });
    expect(human.stdout).toMatch(/status\s+completed/);
    expect(human.stdout).toMatch(/video\s+[0-9a-f]{24}/);

    const before = (await defaultSpace()).credits;
    const failed = await run(["generate", "--prompt", "cats", "--duration", "10", "--simulate", "fail", "--watch", "--json"], { home, timeoutMs: 60_000 });
    expect(failed.exitCode).toBe(7);
    expect(failed.json<Status>()).toMatchObject({ status: "failed", error: { code: "GENERATION_FAILED" } });
    expect((await defaultSpace()).credits).toBe(before);

    const missing = await run(["generate", "--prompt", "cats", "--json"], { home });
    expect([missing.exitCode, missing.errorLine()?.code, missing.errorLine()?.field]).toEqual([2, "MISSING_FIELD", "duration"]);
    const unknown = await run(["generation", "status", "run_000000000000000000000000"], { home });
    expect(unknown.exitCode).toBe(4);
    const poor = await localKey("PRO", 1, home);
    const broke = await run(["generate", "--prompt", "cats", "--duration", "10", "--json"], { home, env: { MEDIAGEN_API_KEY: poor.api_key } });
    expect([broke.exitCode, broke.errorLine()?.code]).toEqual([5, "INSUFFICIENT_CREDITS"]);
    const other = await run(["generation", "status", jobId], { home, env: { MEDIAGEN_API_KEY: poor.api_key } });
    expect(other.exitCode).toBe(3);
  });

  it("duplicate with a new voice and look; local videos show and list", async () => {
    const g = await run(["generate", "--script", "Hello there. This is a short one.", "--voice", "vc_emma", "--avatar", "lk_lena_studio", "--watch", "--json"], {
      home,
      timeoutMs: 60_000,
    });
    const videoId = g.json<Status>().result!.video_id;
    const d = await run(["duplicate", videoId, "--voice", "vc_noah", "--look", "lk_zoe_beach", "--json"], { home });
    expect(d.exitCode, d.stderr).toBe(0);
    const dup = d.json<{ video_id: string; status: string; changes_applied: object }>();
    expect(dup).toMatchObject({ status: "done", changes_applied: { voice_changed: true, avatar_changed: true } });
    const v = await show(dup.video_id);
    expect(v).toMatchObject({ origin: "duplicate", parent_video_id: videoId });
    expect(v.timeline.blocks[0]).toMatchObject({ voice_id: "vc_noah", look_id: "lk_zoe_beach" });

    const q = await run(["duplicate", videoId, "-q"], { home });
    expect(q.stdout.trim()).toMatch(/^[0-9a-f]{24}$/);
    expect((await run(["duplicate", "000000000000000000000000"], { home })).exitCode).toBe(4);
    expect((await run(["duplicate", videoId, "--voice", "vc_nope", "--json"], { home })).errorLine()).toMatchObject({ code: "INVALID_VOICE_ID", field: "voice_id" });
    // Names where ids are asked, with the resolver generate uses (issue 38).
    const named = await run(["duplicate", videoId, "--voice", "George", "--avatar", "Zoe beach"], { home });
    expect(named.exitCode, named.stderr).toBe(0);
    expect(named.stderr).toContain("Voice: George (vc_george)");
    expect(named.stderr).toContain("Look: Zoe at the beach (lk_zoe_beach)");
    const namedId = /^video\s+([0-9a-f]{24})$/m.exec(named.stdout)![1]!;
    expect((await show(namedId)).timeline.blocks[0]).toMatchObject({ voice_id: "vc_george", look_id: "lk_zoe_beach" });
    const near = await run(["duplicate", videoId, "--voice", "Georg", "--json"], { home });
    expect(near.errorLine()).toMatchObject({ code: "INVALID_VOICE_ID", field: "voice_id" });
    expect(near.stderr).toContain("Did you mean George (vc_george)?");
    const lookMiss = await run(["duplicate", videoId, "--look", "Zoe beech", "--json"], { home });
    expect(lookMiss.errorLine()).toMatchObject({ code: "unknown_name", field: "--look" });
    expect(lookMiss.stderr).toContain("did you mean Zoe at the beach (lk_zoe_beach)?");

    const text = await run(["local", "videos", "show", videoId], { home });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/^video [0-9a-f]{24} {2}done {2}\(generation run_/);
    expect(text.stdout).toMatch(/format\s+vertical 1080×1920 @ 30 fps/);
    expect(text.stdout).toMatch(/block 1 {2}0\.000–\d+\.\d{3} {2}voice vc_emma \(en-us\+f3\) {2}look lk_lena_studio/);
    expect(text.stdout).toContain('"Hello there."');
    const list = (await run(["local", "videos", "list", "--json"], { home })).json<{ video_id: string; status: string }[]>();
    expect(list.map((x) => x.video_id)).toEqual(expect.arrayContaining([videoId, dup.video_id]));
    expect((await run(["local", "videos", "show", "nope"], { home })).exitCode).toBe(4);
  });
});
