// Times our renderers against the bare ffmpeg command that makes a comparable file (lavfi colour
// source + drawtext, same size, duration and codec settings): median of 5 alternating runs each.
// Needs a build (`npx tsc -p .`). Prints one JSON line per case: {case, ours_ms, bare_ms, ratio}.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { getTools, renderImage, renderVideo } from "../dist/media/index.js";
import { escapeFilterValue as esc } from "../dist/media/filtergraph.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-"));
const tools = await getTools();
const PROMPT = "A lighthouse on a rocky coast at dusk, waves crashing, warm light in the windows, drone shot slowly circling";

const textFile = path.join(dir, "prompt.txt");
fs.writeFileSync(textFile, PROMPT);
const drawtext = `drawtext=fontfile=${esc(tools.fontFile)}:textfile=${esc(textFile)}:expansion=none:fontsize=40:fontcolor=white:x=40:y=40:box=1:boxcolor=black@0.5`;
const ff = (args) => execFileSync(tools.ffmpeg, ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...args], { stdio: "ignore" });

const cases = [
  {
    name: "image 1024x1024",
    ours: async (i) => renderImage({ out: path.join(dir, `ours-${i}.png`), width: 1024, height: 1024, prompt: PROMPT, label: "bench" }),
    bare: async (i) =>
      ff([
        "-f",
        "lavfi",
        "-i",
        "color=c=0x224466:s=1024x1024:r=1:d=1",
        "-vf",
        drawtext,
        "-frames:v",
        "1",
        "-c:v",
        "png",
        "-f",
        "image2",
        "-update",
        "1",
        path.join(dir, `bare-${i}.png`),
      ]),
  },
  ...["veryfast", "ultrafast"].map((preset) => ({
    name: `video 1280x720 5s audio ${preset}`,
    ours: async (i) =>
      renderVideo({
        out: path.join(dir, `ours-${i}.mp4`),
        thumbnailOut: path.join(dir, `ours-${i}.jpg`),
        width: 1280,
        height: 720,
        durationSeconds: 5,
        prompt: PROMPT,
        label: "bench",
        audio: true,
        preset,
      }),
    bare: async (i) =>
      ff([
        "-f",
        "lavfi",
        "-i",
        "color=c=0x224466:s=1280x720:r=24:d=5",
        "-f",
        "lavfi",
        "-i",
        "anullsrc=r=48000:cl=stereo",
        "-filter_complex",
        `[0:v]${drawtext},format=yuv420p[v]`,
        "-map",
        "[v]",
        "-map",
        "1:a",
        "-c:v",
        "libx264",
        "-preset",
        preset,
        "-crf",
        "23",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        "-b:a",
        "128k",
        "-t",
        "5",
        "-movflags",
        "+faststart",
        "-f",
        "mp4",
        path.join(dir, `bare-${i}.mp4`),
      ]),
  })),
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  for (const c of cases) {
    await c.ours(-1); // warm-up: first-run costs (tool detection, page cache) are not the steady state
    await c.bare(-1);
    const ours = [];
    const bare = [];
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      await c.ours(i);
      ours.push(performance.now() - t);
      t = performance.now();
      await c.bare(i);
      bare.push(performance.now() - t);
    }
    const o = median(ours);
    const b = median(bare);
    console.log(JSON.stringify({ case: c.name, ours_ms: Math.round(o), bare_ms: Math.round(b), ratio: Math.round((o / b) * 100) / 100 }));
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
