/**
 * An export on the fallback tools a fresh machine gets (npm's static ffmpeg 4.1, which has no xfade,
 * and the WASM espeak-ng): transitions fade through black, the file is verified like any other, and
 * the export says which ffmpeg rendered it. Forced with MEDIAGEN_MEDIA_FALLBACK=1; each test file runs
 * in its own process, so the tool cache is this file's.
 */
import path from "node:path";
import { beforeAll, expect, it } from "vitest";
import { readExport } from "../../src/features/export/emulator/record.js";
import { clearToolsCache, getTools, probe, renderImage } from "../../src/media/index.js";
import { openTestInstance, tempHome, waitFor } from "../helpers/local.js";

beforeAll(async () => {
  for (const k of ["MEDIAGEN_FFMPEG", "MEDIAGEN_FFPROBE", "MEDIAGEN_ESPEAK"]) delete process.env[k];
  process.env.MEDIAGEN_MEDIA_FALLBACK = "1";
  clearToolsCache();
  const tools = await getTools();
  expect([tools.source, tools.hasXfade]).toEqual(["npm", false]);
});

it("a video with transitions, media and music exports on ffmpeg 4.1: faded through black, verified, and recorded as the npm fallback", async () => {
  const files = tempHome();
  await renderImage({ out: path.join(files, "still.png"), width: 120, height: 80, prompt: "still" });
  // Polls are frequent and the render takes seconds: no 429 wait in the way (the rate limit is tested elsewhere).
  const t = openTestInstance({ rateLimit: { limit: 100_000, windowMs: 60_000 } });
  const plan = [
    {
      voice_id: "vc_emma",
      look_id: "lk_maya_kitchen",
      sequences: [{ text: "Hello from the fallback." }, { text: "Here is a picture.", media: { url: path.join(files, "still.png"), show: "half" as const } }],
    },
  ];
  const gen = await t.api.generationStart({ sequence_plan: plan, enable: { music: true, transitions: true } });
  const video = await waitFor(
    async () => {
      const x = await t.api.generationStatus({ job_id: gen.job_id });
      if (x.status === "failed") throw new Error(JSON.stringify(x.error));
      return x.status === "completed" ? x.result!.video_id : undefined;
    },
    60_000,
    100,
  );
  const started = await t.api.exportStart({ video_id: video, format: "custom", width: 180, height: 320 });
  const s = await waitFor(
    async () => {
      const x = await t.api.exportStatus({ job_id: started.job_id });
      return x.status === "completed" || x.status === "failed" ? x : undefined;
    },
    120_000,
    100,
  );
  expect(s.status, JSON.stringify(s.error)).toBe("completed");
  const row = readExport(t, started.job_id)!;
  expect(row.ffmpeg).toMatch(/^ffmpeg \S+ \(npm fallback: .+\)$/);
  expect(row.xfade).toBe(0);
  const p = await probe(path.join(t.mediaDir, row.video_path!));
  expect([p.width, p.height, p.videoCodec, p.audioCodec]).toEqual([180, 320, "h264", "aac"]);
});
