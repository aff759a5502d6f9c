// One render of the reference plan (../shared/bench/reference-render) by the export renderer, as its
// own process so preview.bench.mjs can take its CPU time (user+sys of the process and every ffmpeg
// and espeak-ng it waited for) like the reference's. Not a bench by itself (no .bench suffix).
//   node bench/preview-render.mjs <full|preview> <inputs dir> <out.mp4> [dist dir]
// full: 1080x1920, x264 veryfast CRF 23 (the export); preview: half the width and height, ultrafast
// (plan preview's draft). The dist dir (default ../dist) lets the bench render with another build,
// e.g. main's, for the SSIM against today's output. Prints one JSON line: wall_s, frames, timings.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const [mode, refDir, out, distArg] = process.argv.slice(2);
if (!["full", "preview"].includes(mode) || !refDir || !out) {
  process.stderr.write("usage: node bench/preview-render.mjs <full|preview> <inputs dir> <out.mp4> [dist dir]\n");
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(distArg ?? path.join(here, "../dist"));
const media = await import(pathToFileURL(path.join(dist, "media/index.js")).href);
const exp = await import(pathToFileURL(path.join(dist, "media/export/index.js")).href);
const plan = JSON.parse(fs.readFileSync(path.join(refDir, "plan.json"), "utf8"));
const meta = JSON.parse(fs.readFileSync(path.join(refDir, "plan-meta.json"), "utf8"));
const local = (url) => decodeURIComponent(new URL(url).pathname);

// Capability probing is once per process in a real exporter: outside the timing.
const tools = await media.getTools();
await exp.exportCaps(tools);

/** The RenderSpec the export feature would build: one sentence per sequence, times on the frame grid. */
async function buildSpec(work, cacheDir) {
  const fps = meta.fps;
  const flat = plan.sequence_plan.flatMap((block) => block.sequences.map((s) => ({ s, look: s.look_id ?? block.look_id })));
  const wavs = await Promise.all(
    flat.map(async ({ s }, i) => {
      const file = path.join(work, `tts-${i + 1}.wav`);
      await media.synthesize({ text: s.text, out: file, voice: "en", rate: 175, pitch: 50, cacheDir, tools });
      return { file, ms: media.readWavInfo(file).durationMs };
    }),
  );
  const ms = (frame) => Math.round((frame * 1000) / fps);
  let cum = 0;
  let prevFrame = 0;
  const sequences = flat.map(({ s, look }, i) => {
    cum += wavs[i].ms;
    const endFrame = Math.round((cum * fps) / 1000);
    const start = ms(prevFrame);
    const end = ms(endFrame);
    prevFrame = endFrame;
    const m = s.media;
    return {
      text: s.text,
      start_ms: start,
      end_ms: end,
      look_image_path: local(meta.looks[look] ?? plan.avatar_url),
      media: m ? { kind: /\.(mp4|mov|webm|m4v)$/i.test(m.url) ? "video" : "image", path: local(m.url), show: m.show ?? "hide" } : undefined,
      sentences: [{ text: s.text, start_ms: start, end_ms: end, audio_path: wavs[i].file }],
    };
  });
  const half = (n) => Math.max(2, 2 * Math.round(n / 4));
  return {
    width: mode === "preview" ? half(meta.width) : meta.width,
    height: mode === "preview" ? half(meta.height) : meta.height,
    fps,
    duration_ms: ms(prevFrame),
    options: { subtitles: meta.subtitles, music: meta.music, transitions: meta.transitions_s > 0 },
    music_path: meta.music ? local(meta.music_url) : undefined,
    blocks: [{ start_ms: 0, end_ms: ms(prevFrame), sequences }],
  };
}

const work = fs.mkdtempSync(path.join(path.dirname(path.resolve(out)), `work-${mode}-`));
const cacheDir = path.join(work, "cache"); // cold, like the reference
const t0 = performance.now();
const spec = await buildSpec(work, cacheDir);
const r = await exp.renderExport(spec, { outPath: out, cacheDir, tools, ...(mode === "preview" ? { draft: true } : {}) });
const wall = (performance.now() - t0) / 1000;
if (!process.env.MEDIAGEN_MEDIA_KEEP) fs.rmSync(work, { recursive: true, force: true });
const round = (x) => Math.round(x * 100) / 100;
console.log(
  JSON.stringify({
    mode,
    wall_s: round(wall),
    frames: r.frames,
    width: r.width,
    height: r.height,
    timings: Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, round(v / 1000)])),
  }),
);
