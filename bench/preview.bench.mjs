// The two targets of issue 23 on the reference plan (../shared/bench/reference-render, 59 s 1080x1920):
//   preview (plan preview's draft: a quarter of the area, ultrafast): wall <= 0.15x the plan's length,
//           CPU <= 0.2x the full export's CPU;
//   full export (1080x1920, veryfast CRF 23): CPU <= 0.85x the reference's, peak RSS <= 600 MB, SSIM
//           against today's output (BENCH_BASELINE_DIST: the dist/ of a build from before the change;
//           unset, no SSIM is taken) >= 0.98.
// Reference, full and preview alternate in one run, median of BENCH_PAIRS (3). Each render is its own
// process under `bash -c '…; times'`: CPU is user+sys of that process and every child it waited for
// (ffmpeg, espeak-ng, python), so it is robust to other load on the machine; wall is printed too, with
// the load average before and after. `node bench/run.mjs preview` (after `npm run build`).
// Env: REFERENCE_RENDER_DIR, BENCH_INPUTS (reuse inputs), BENCH_PAIRS, BENCH_BASELINE_DIST ("" skips SSIM).
import { spawn, spawnSync, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const kit = process.env.REFERENCE_RENDER_DIR ?? path.resolve(here, "../../shared/bench/reference-render");
const skip = (why) => {
  console.log(JSON.stringify({ case: "preview and export targets", skipped: why }));
  process.exit(0);
};
if (!fs.existsSync(path.join(kit, "render-reference.sh"))) skip(`reference kit not found at ${kit} (set REFERENCE_RENDER_DIR)`);
for (const t of ["ffmpeg", "ffprobe", "espeak-ng", "python3", "bash"]) {
  try {
    execFileSync("sh", ["-c", `command -v ${t}`], { stdio: "ignore" });
  } catch {
    skip(`'${t}' not on PATH`);
  }
}

const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-preview-bench-"));
const refDir = process.env.BENCH_INPUTS ?? path.join(dir, "ref");
if (!fs.existsSync(path.join(refDir, "plan-meta.json"))) {
  process.stderr.write(`preview bench: making the reference inputs in ${refDir}\n`);
  execFileSync(path.join(kit, "make-inputs.sh"), [refDir], { stdio: ["ignore", "ignore", "inherit"] });
}
const meta = JSON.parse(fs.readFileSync(path.join(refDir, "plan-meta.json"), "utf8"));
const baselineDist = process.env.BENCH_BASELINE_DIST ? path.resolve(process.env.BENCH_BASELINE_DIST) : "";
const ffmpegLine = execFileSync("ffmpeg", ["-version"], { encoding: "utf8" }).split("\n")[0];

/** Peak RSS (MB) of a process tree, sampled every 100 ms from /proc. */
function rssSampler(rootPid) {
  let peak = 0;
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
    for (const pid of all.slice(1)) {
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
    return Math.round(peak);
  };
}

/** `bash`'s `times` line "XmY.YYYs XmY.YYYs" (children user, sys) in seconds. */
function childTimes(line) {
  const s = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return s.length === 2 ? s[0] + s[1] : NaN;
}

/** Runs argv under bash, returns its last JSON line, CPU (user+sys of everything it waited for), wall and peak RSS. */
function timed(argv) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn("bash", ["-c", '"$@" 1>&3; times', "timed", ...argv], { stdio: ["ignore", "pipe", "pipe", "pipe"] });
    const stop = rssSampler(child.pid);
    let times = "";
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (times += d));
    child.stdio[3].on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      const rss = stop();
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      if (code !== 0) return reject(new Error(`${argv.join(" ")} exited ${code}: ${err.slice(-2000)}`));
      const lines = times.trim().split("\n");
      const json = JSON.parse(out.trim().split("\n").pop());
      resolve({ ...json, cpu_s: Math.round(childTimes(lines.at(-1)) * 100) / 100, process_wall_s: Math.round(wall * 100) / 100, peak_rss_mb: rss });
    });
  });
}

const node = process.execPath;
const renderer = path.join(here, "preview-render.mjs");
const reference = (i) => timed([path.join(kit, "render-reference.sh"), refDir, path.join(dir, `ref-${i}.mp4`)]);
const full = (i) => timed([node, renderer, "full", refDir, path.join(dir, `full-${i}.mp4`)]);
const preview = (i) => timed([node, renderer, "preview", refDir, path.join(dir, `preview-${i}.mp4`)]);

/** SSIM (All) of a against b, from ffmpeg's ssim filter. */
function ssimOf(a, b) {
  const res = spawnSyncText("ffmpeg", ["-hide_banner", "-nostdin", "-i", a, "-i", b, "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"]);
  const m = /SSIM .*All:([\d.]+)/.exec(res);
  return m ? Number(m[1]) : null;
}
function spawnSyncText(cmd, args) {
  // ffmpeg prints the SSIM summary on stderr.
  return spawnSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] }).stderr ?? "";
}

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
const ratio = (a, b) => (a !== null && b ? Math.round((a / b) * 1000) / 1000 : null);

const loadBefore = load();
const runs = { reference: [], full: [], preview: [] };
for (let i = 0; i < PAIRS; i++) {
  for (const [name, fn] of [
    ["reference", reference],
    ["full", full],
    ["preview", preview],
  ]) {
    const r = await fn(i);
    runs[name].push(r);
    process.stderr.write(`preview bench: ${name} #${i + 1} cpu ${r.cpu_s} s, wall ${r.wall_s} s, rss ${r.peak_rss_mb} MB\n`);
  }
}

// SSIM of today's full export (this build) against the same render by the baseline build.
let baseline = null;
if (baselineDist && fs.existsSync(path.join(baselineDist, "media/export/index.js"))) {
  const b = await timed([node, renderer, "full", refDir, path.join(dir, "baseline.mp4"), baselineDist]);
  baseline = { dist: baselineDist, cpu_s: b.cpu_s, wall_s: b.wall_s, ssim: ssimOf(path.join(dir, "full-0.mp4"), path.join(dir, "baseline.mp4")) };
}

const med = (name, key) => median(runs[name].map((r) => r[key]));
const video_s = meta.total_speech_s;
const refCpu = med("reference", "cpu_s");
const fullCpu = med("full", "cpu_s");
const previewWall = med("preview", "wall_s");
const previewCpu = med("preview", "cpu_s");
console.log(
  JSON.stringify({
    case: "preview and full export of the 59 s 1080x1920 reference plan",
    video_s,
    preview: {
      wall_s: previewWall,
      wall_x_duration: ratio(previewWall, video_s),
      target_wall_x_duration: 0.15,
      cpu_s: previewCpu,
      cpu_x_full: ratio(previewCpu, fullCpu),
      target_cpu_x_full: 0.2,
      size: `${runs.preview[0].width}x${runs.preview[0].height}`,
    },
    full: {
      cpu_s: fullCpu,
      cpu_x_reference: ratio(fullCpu, refCpu),
      target_cpu_x_reference: 0.85,
      wall_s: med("full", "wall_s"),
      wall_x_reference: ratio(med("full", "wall_s"), med("reference", "wall_s")),
      peak_rss_mb: Math.max(...runs.full.map((r) => r.peak_rss_mb)),
      target_peak_rss_mb: 600,
      ssim_vs_baseline: baseline?.ssim ?? null,
      target_ssim: 0.98,
      baseline_cpu_s: baseline?.cpu_s ?? null,
    },
    reference: { cpu_s: refCpu, wall_s: med("reference", "wall_s"), peak_rss_mb: Math.max(...runs.reference.map((r) => r.peak_rss_mb)) },
    runs: Object.fromEntries(
      Object.entries(runs).map(([k, v]) => [k, v.map((r) => ({ cpu_s: r.cpu_s, wall_s: r.wall_s, rss: r.peak_rss_mb, ...(r.timings ? { steps: r.timings } : {}) }))]),
    ),
    ffmpeg: ffmpegLine,
    pairs: PAIRS,
    load_before: loadBefore,
    load_after: load(),
    cpus: os.cpus().length,
  }),
);
if (process.env.BENCH_KEEP !== "1") fs.rmSync(dir, { recursive: true, force: true });
