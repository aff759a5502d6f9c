/**
 * A whole generation on the fallback tools a fresh machine gets (npm's static ffmpeg 4.1 and ffprobe,
 * the WASM espeak-ng): media in all kinds, supplied speech, music, thumbnail. Forced with
 * MEDIAGEN_MEDIA_FALLBACK=1; each test file runs in its own process, so the tool cache is this file's.
 */
import path from "node:path";
import { beforeAll, expect, it } from "vitest";
import { clearToolsCache, getTools, renderImage, synthesize } from "../../src/media/index.js";
import { readWavInfo } from "../../src/media/wav.js";
import { readGeneration } from "../../src/features/generation/emulator/job.js";
import { readVideo, timelineOf } from "../../src/features/video/emulator/public/record.js";
import { sequencesOf } from "../../src/features/video/emulator/public/timeline.js";
import { openTestInstance, tempHome, waitFor } from "../helpers/local.js";

beforeAll(async () => {
  for (const k of ["MEDIAGEN_FFMPEG", "MEDIAGEN_FFPROBE", "MEDIAGEN_ESPEAK"]) delete process.env[k];
  process.env.MEDIAGEN_MEDIA_FALLBACK = "1";
  clearToolsCache();
  const tools = await getTools();
  expect([tools.source, tools.tts.kind]).toEqual(["npm", "wasm"]);
});

it("a plan with supplied speech, a still and music makes a done video with its thumbnail", async () => {
  const files = tempHome();
  await renderImage({ out: path.join(files, "still.png"), width: 120, height: 80, prompt: "still" });
  await synthesize({ text: "Supplied words.", out: path.join(files, "said.wav") });
  const t = openTestInstance();
  const plan = [
    {
      voice_id: "vc_emma",
      look_id: "lk_maya_kitchen",
      sequences: [{ text: "Hello from the fallback tools.", media: { url: path.join(files, "still.png"), show: "full" as const } }],
    },
    { audio_url: path.join(files, "said.wav"), sequences: [{ text: "Supplied words." }] },
    { sequences: [{ text: null, duration_ms: 400 }] },
  ];
  const started = await t.api.generationStart({ sequence_plan: plan, enable: { music: true } });
  const s = await waitFor(
    async () => {
      const x = await t.api.generationStatus({ job_id: started.job_id });
      return x.status === "completed" || x.status === "failed" ? x : undefined;
    },
    60_000,
    100,
  );
  expect(s.status, JSON.stringify(s.error)).toBe("completed");
  const tl = timelineOf(readVideo(t.db, readGeneration(t, started.job_id)!.video_id)!)!;
  expect(readWavInfo(path.join(t.mediaDir, tl.voice_path))!.durationMs).toBeCloseTo(tl.duration_ms, 0);
  expect(sequencesOf(tl).map((x) => x.sequence.media?.kind ?? null)).toEqual(["image", null, null]);
  expect(tl.music_path).toBe("music/default-v1.wav");
  await t.close();
}, 120_000);
