// The export renderer against the reference render (../shared/bench/reference-render): the same 59 s
// 1080x1920 plan (six sequences, five crossfades, subtitles, ducked music), rendered by the reference's
// hand-built ffmpeg graph and by renderExport, alternately, median of BENCH_PAIRS (3) pairs.
// Ours is timed like the reference: from the start of TTS to a verified MP4 (cold TTS and audio caches),
// capability probing excluded. Peak RSS is the whole process tree (node or python + every ffmpeg),
// sampled from /proc. Prints one JSON line. Needs a build (`npx tsc -p .`), ffmpeg, espeak-ng, python3.
// Env: REFERENCE_RENDER_DIR (the kit), BENCH_INPUTS (reuse inputs), BENCH_PAIRS, BENCH_ONLY=ours|reference,
// BENCH_KEEP=1 (keep work dirs), BENCH_THREADS (x264 threads), BENCH_AAC_CODER (fast|twoloop),
// BENCH_CHUNK_BUDGET (render-run memory budget).
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { getTools, synthesize, readWavInfo } from "../dist/media/index.js";
import { renderExport, exportCaps } from "../dist/media/export/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const kit = process.env.REFERENCE_RENDER_DIR ?? path.resolve(here, "../../shared/bench/reference-render");
const skip = (why) => {
  console.log(JSON.stringify({ case: "export vs reference", skipped: why }));
  process.exit(0);
};
if (!fs.existsSync(path.join(kit, "render-reference.sh"))) skip(`reference kit not found at ${kit} (set REFERENCE_RENDER_DIR)`);
for (const t of ["ffmpeg", "ffprobe", "espeak-ng", "python3"]) {
  try {
    execFileSync("sh", ["-c", `command -v ${t}`], { stdio: "ignore" });
  } catch {
    skip(`'${t}' not on PATH`);
  }
}

const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const only = process.env.BENCH_ONLY;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-export-bench-"));
// BENCH_INPUTS=DIR reuses inputs made earlier by make-inputs.sh (they are deterministic).
const refDir = process.env.BENCH_INPUTS ?? path.join(dir, "ref");
if (!fs.existsSync(path.join(refDir, "plan-meta.json"))) {
  process.stderr.write(`export bench: making the reference inputs in ${refDir}\n`);
  execFileSync(path.join(kit, "make-inputs.sh"), [refDir], { stdio: ["ignore", "ignore", "inherit"] });
}
const plan = JSON.parse(fs.readFileSync(path.join(refDir, "plan.json"), "utf8"));
const meta = JSON.parse(fs.readFileSync(path.join(refDir, "plan-meta.json"), "utf8"));
const local = (url) => decodeURIComponent(new URL(url).pathname);

// Capability probing is once per process in a real exporter: done here, outside the timings.
const tools = await getTools();
await exportCaps(tools);
const ffmpegLine = execFileSync(tools.ffmpeg, ["-version"], { encoding: "utf8" }).split("\n")[0];

/** Peak RSS (MB) of a process tree (the root and all its descendants), sampled every 100 ms. */
function rssSampler(rootPid) {
  let peak = 0;
  // /proc/PID/task/TID/children lists direct children; cheaper than scanning every process.
  const children = (pid) => {
    const out = [];
    try {
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
        const text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
        if (text) out.push(...text.split(/\s+/).map(Number));
      }
    } catch {
      // exited meanwhile
    }
    return out;
  };
  const sample = () => {
    let kb = 0;
    const all = [rootPid];
    for (let i = 0; i < all.length; i++) all.push(...children(all[i]));
    for (const pid of all) {
      try {
        const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
        if (m) kb += Number(m[1]);
      } catch {
        // exited meanwhile
      }
    }
    peak = Math.max(peak, kb / 1024);
  };
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    sample();
    return Math.round(peak);
  };
}

/** One reference run: its own wall_s (TTS → verified MP4) and the tree's peak RSS. */
function runReference(i) {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(kit, "render-reference.sh"), [refDir, path.join(dir, `ref-${i}.mp4`)], { stdio: ["ignore", "pipe", "pipe"] });
    const stop = rssSampler(child.pid);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      const rss = stop();
      if (code !== 0) return reject(new Error(`render-reference.sh exited ${code}: ${err.slice(-2000)}`));
      const line = out.trim().split("\n").pop();
      resolve({ ...JSON.parse(line), peak_rss_mb: rss });
    });
  });
}

/** Builds the RenderSpec the export feature would: one sentence per sequence, times on the frame grid. */
async function buildSpec(work, cacheDir) {
  const fps = meta.fps;
  const flat = plan.sequence_plan.flatMap((block) => block.sequences.map((s) => ({ s, look: s.look_id ?? block.look_id })));
  // espeak-ng's defaults, as the reference: voice en, 175 wpm, pitch 50. All sentences at once: the
  // reference speaks them one after the other.
  const wavs = await Promise.all(
    flat.map(async ({ s }, i) => {
      const out = path.join(work, `tts-${i + 1}.wav`);
      await synthesize({ text: s.text, out, voice: "en", rate: 175, pitch: 50, cacheDir, tools });
      return { out, ms: readWavInfo(out).durationMs };
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
    const lookUrl = meta.looks[look] ?? plan.avatar_url;
    const m = s.media;
    return {
      text: s.text,
      start_ms: start,
      end_ms: end,
      look_image_path: local(lookUrl),
      media: m ? { kind: /\.(mp4|mov|webm|m4v)$/i.test(m.url) ? "video" : "image", path: local(m.url), show: m.show ?? "hide" } : undefined,
      sentences: [{ text: s.text, start_ms: start, end_ms: end, audio_path: wavs[i].out }],
    };
  });
  return {
    width: meta.width,
    height: meta.height,
    fps,
    duration_ms: ms(prevFrame),
    options: { subtitles: meta.subtitles, music: meta.music, transitions: meta.transitions_s > 0 },
    music_path: meta.music ? local(meta.music_url) : undefined,
    blocks: [{ start_ms: 0, end_ms: ms(prevFrame), sequences }],
  };
}

async function runOurs(i) {
  const work = fs.mkdtempSync(path.join(dir, `ours-${i}-`));
  const cacheDir = path.join(work, "cache"); // cold: a new cache every run
  const stop = rssSampler(process.pid);
  const t0 = performance.now();
  const spec = await buildSpec(work, cacheDir);
  const tts = performance.now() - t0;
  const r = await renderExport(spec, {
    outPath: path.join(work, "out.mp4"),
    cacheDir,
    tools,
    threads: process.env.BENCH_THREADS ? Number(process.env.BENCH_THREADS) : undefined,
    aacCoder: process.env.BENCH_AAC_CODER,
    chunkBudget: process.env.BENCH_CHUNK_BUDGET ? Number(process.env.BENCH_CHUNK_BUDGET) : undefined,
  });
  const wall = (performance.now() - t0) / 1000;
  const rss = stop();
  if (process.env.BENCH_KEEP !== "1") fs.rmSync(work, { recursive: true, force: true });
  return {
    runs: r.runs,
    wall_s: Math.round(wall * 100) / 100,
    tts_s: Math.round(tts / 10) / 100,
    timings: Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, Math.round(v / 10) / 100])),
    peak_rss_mb: rss,
    xfade: r.usedXfade,
    frames: r.frames,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

const loadBefore = load();
const ours = [];
const refs = [];
for (let i = 0; i < PAIRS; i++) {
  if (only !== "ours") {
    refs.push(await runReference(i));
    process.stderr.write(`export bench: reference #${i + 1} ${refs.at(-1).wall_s} s\n`);
  }
  if (only !== "reference") {
    ours.push(await runOurs(i));
    process.stderr.write(`export bench: ours #${i + 1} ${ours.at(-1).wall_s} s ${JSON.stringify(ours.at(-1).timings)}\n`);
  }
}
const oursS = ours.length ? median(ours.map((r) => r.wall_s)) : null;
const refS = refs.length ? median(refs.map((r) => r.wall_s)) : null;
console.log(
  JSON.stringify({
    case: "export 59 s 1080x1920 vs reference",
    ours_s: oursS,
    reference_s: refS,
    ratio: oursS && refS ? Math.round((oursS / refS) * 1000) / 1000 : null,
    peak_rss_mb: ours.length ? Math.max(...ours.map((r) => r.peak_rss_mb)) : null,
    reference_peak_rss_mb: refs.length ? Math.max(...refs.map((r) => r.peak_rss_mb)) : null,
    ffmpeg: ffmpegLine,
    xfade: ours[0]?.xfade ?? refs[0]?.xfade,
    pairs: PAIRS,
    ours_runs: ours.map((r) => r.wall_s),
    reference_runs: refs.map((r) => r.wall_s),
    ours_steps: ours.map((r) => ({ runs: r.runs, tts: r.tts_s, ...r.timings })),
    load_before: loadBefore,
    load_after: load(),
    cpus: os.cpus().length,
  }),
);
if (process.env.BENCH_KEEP !== "1") fs.rmSync(dir, { recursive: true, force: true });
