// The reference plan (../shared/bench/reference-render) through mediagen end to end, against the
// reference's hand-built render: on a fresh local instance (cold TTS and mix caches) the two look
// images are registered as looks (avatar create from images, free), espeak-ng's default voice as a
// space voice (the reference speaks with it), plan.json is generated (its ids substituted, its music
// as music_url) and the video exported at 1080x1920. Timed like the reference: from the generation
// request (TTS first) to the export job's verified MP4; capability probing excluded (done once per
// process before timing). Alternates with render-reference.sh, median of BENCH_PAIRS (3) pairs; peak
// RSS of the process tree (node + every ffmpeg and espeak-ng) sampled from /proc, and the CPU time of
// each whole run (user + system of the tree, from bash's `times`): on a shared machine the wall times
// swing with the load, the CPU times much less. Each of our runs is its own node process (this script
// with --one), as the reference is. Prints one JSON line.
// Needs a build (`npx tsc -p .`), ffmpeg, ffprobe, espeak-ng, python3.
// Env: REFERENCE_RENDER_DIR (the kit), BENCH_INPUTS (reuse inputs), BENCH_PAIRS, BENCH_ONLY=ours|reference,
// BENCH_KEEP=1 (keep homes).
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { getTools, probe } from "../dist/media/index.js";
import { exportCaps } from "../dist/media/export/index.js";
import { openLocalInstance } from "../dist/features/local.js";
import { addSpaceVoice } from "../dist/features/voice/emulator/public/lookup.js";
import { readExport } from "../dist/features/export/emulator/record.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const kit = process.env.REFERENCE_RENDER_DIR ?? path.resolve(here, "../../shared/bench/reference-render");
const CASE = "export e2e (generate + export through mediagen) 59 s 1080x1920 vs reference";
const skip = (why) => {
  console.log(JSON.stringify({ case: CASE, skipped: why }));
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
// `--one <i> <inputs> <dir>`: one of our runs, in this process (the parent times the process tree).
const one = process.argv[2] === "--one" ? { i: Number(process.argv[3]), refDir: process.argv[4], dir: process.argv[5] } : undefined;
const dir = one?.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "mg-export-e2e-"));
const refDir = one?.refDir ?? process.env.BENCH_INPUTS ?? path.join(dir, "ref");
if (!fs.existsSync(path.join(refDir, "plan-meta.json"))) {
  process.stderr.write(`export e2e bench: making the reference inputs in ${refDir}\n`);
  execFileSync(path.join(kit, "make-inputs.sh"), [refDir], { stdio: ["ignore", "ignore", "inherit"] });
}
const plan = JSON.parse(fs.readFileSync(path.join(refDir, "plan.json"), "utf8"));
const meta = JSON.parse(fs.readFileSync(path.join(refDir, "plan-meta.json"), "utf8"));

// Capability probing is once per process in a real exporter: done here, outside the timings.
const tools = await getTools();
await exportCaps(tools);
const ffmpegLine = execFileSync(tools.ffmpeg, ["-version"], { encoding: "utf8" }).split("\n")[0];

/** Peak RSS (MB) of a process tree (the root and all its descendants), sampled every 100 ms. */
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

/** "1m2.345s" → seconds. */
const seconds = (t) => {
  const m = /^(\d+)m([\d.]+)s$/.exec(t);
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
};

/**
 * Runs a command under bash and returns its last stdout line (JSON), the CPU time of the whole tree
 * (bash's `times`: its children's user + system, which include everything they waited for) and the
 * tree's peak RSS.
 */
function timed(command, args, what) {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", '"$@"; rc=$?; times >&2; exit $rc', "bash", command, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const stop = rssSampler(child.pid);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      const rss = stop();
      if (code !== 0) return reject(new Error(`${what} exited ${code}: ${err.slice(-2000)}`));
      const times = err.trim().split("\n").slice(-1)[0].trim().split(/\s+/).map(seconds);
      const line = out.trim().split("\n").pop();
      resolve({ ...JSON.parse(line), cpu_s: Math.round((times[0] + times[1]) * 100) / 100, peak_rss_mb: rss });
    });
  });
}

const runReference = (i) => timed(path.join(kit, "render-reference.sh"), [refDir, path.join(dir, `ref-${i}.mp4`)], "render-reference.sh");
const runOursProcess = (i) => timed(process.execPath, [fileURLToPath(import.meta.url), "--one", String(i), refDir, dir], "our run");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(read, done) {
  for (;;) {
    const s = await read();
    if (done(s)) return s;
    await sleep(20);
  }
}

/** One run through mediagen on a fresh instance: looks, voice, then generate + export, timed. */
async function runOurs(i) {
  const home = fs.mkdtempSync(path.join(dir, `home-${i}-`));
  const instance = openLocalInstance({ home, worker: "inline", rateLimit: { limit: 1_000_000, windowMs: 60_000 } });
  try {
    const space = instance.createSpace({ plan: "PRO", credits: 1000 });
    const engine = instance.engine(space.api_key);
    // Set-up, not timed: the two look images as looks, espeak-ng's default voice as a space voice.
    const looks = Object.entries(meta.looks);
    const created = await engine.avatarCreate({ name: "Reference presenter", images: looks.map(([, url]) => url) });
    const avatar = await engine.avatarGet({ avatar_id: created.avatar_id });
    const lookId = Object.fromEntries(looks.map(([ref], k) => [ref, avatar.looks[k].id]));
    const voice = await addSpaceVoice(instance, space.space.id, { name: "espeak-ng default", language: "en", gender: "male", tts: "en" });
    const body = structuredClone(plan);
    for (const block of body.sequence_plan) {
      if (block.voice_id) block.voice_id = voice.id;
      if (block.look_id) block.look_id = lookId[block.look_id];
      for (const s of block.sequences) if (s.look_id) s.look_id = lookId[s.look_id];
    }
    if (meta.music) body.music_url = meta.music_url;

    const t0 = performance.now();
    const gen = await engine.generationStart(body);
    const g = await until(
      () => engine.generationStatus({ job_id: gen.job_id }),
      (s) => s.status === "completed" || s.status === "failed",
    );
    if (g.status !== "completed") throw new Error(`generation failed: ${JSON.stringify(g.error)}`);
    const tGen = performance.now();
    const exp = await engine.exportStart({ video_id: g.result.video_id, format: "vertical" });
    const e = await until(
      () => engine.exportStatus({ job_id: exp.job_id }),
      (s) => s.status === "completed" || s.status === "failed",
    );
    const wall = (performance.now() - t0) / 1000;
    if (e.status !== "completed") throw new Error(`export failed: ${JSON.stringify(e.error)}`);
    const row = readExport(instance, exp.job_id);
    const out = path.join(instance.mediaDir, row.video_path);
    const p = await probe(out);
    const frames = Math.round(meta.total_speech_s * meta.fps);
    const problems = [];
    if (p.width !== meta.width || p.height !== meta.height) problems.push(`size ${p.width}x${p.height}`);
    if (p.videoCodec !== "h264" || p.audioCodec !== "aac") problems.push(`codecs ${p.videoCodec}+${p.audioCodec}`);
    if (Math.abs(p.durationSeconds - meta.total_speech_s) > 0.1) problems.push(`duration ${p.durationSeconds} vs ${meta.total_speech_s}`);
    if (problems.length) throw new Error(`our output failed its check: ${problems.join("; ")}`);
    return {
      wall_s: Math.round(wall * 100) / 100,
      generate_s: Math.round((tGen - t0) / 10) / 100,
      export_s: Math.round((performance.now() - tGen) / 10) / 100,
      export_job_render_s: row.render_ms / 1000,
      xfade: row.xfade === 1,
      ffmpeg: row.ffmpeg,
      frames: p.videoFrames,
      expected_frames: frames,
      out_mb: Math.round(fs.statSync(out).size / 1e4) / 100,
    };
  } finally {
    await instance.close();
    if (process.env.BENCH_KEEP !== "1") fs.rmSync(home, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

if (one) {
  console.log(JSON.stringify(await runOurs(one.i)));
  process.exit(0);
}

const loadBefore = load();
const ours = [];
const refs = [];
for (let i = 0; i < PAIRS; i++) {
  if (only !== "ours") {
    refs.push(await runReference(i));
    process.stderr.write(`export e2e bench: reference #${i + 1} ${refs.at(-1).wall_s} s, cpu ${refs.at(-1).cpu_s} s\n`);
  }
  if (only !== "reference") {
    ours.push(await runOursProcess(i));
    const o = ours.at(-1);
    process.stderr.write(`export e2e bench: ours #${i + 1} ${o.wall_s} s, cpu ${o.cpu_s} s (generate ${o.generate_s} s, export ${o.export_s} s, ${o.peak_rss_mb} MB)\n`);
  }
}
const oursS = ours.length ? median(ours.map((r) => r.wall_s)) : null;
const refS = refs.length ? median(refs.map((r) => r.wall_s)) : null;
console.log(
  JSON.stringify({
    case: CASE,
    ours_s: oursS,
    reference_s: refS,
    ratio: oursS && refS ? Math.round((oursS / refS) * 1000) / 1000 : null,
    ours_cpu_s: ours.length ? median(ours.map((r) => r.cpu_s)) : null,
    reference_cpu_s: refs.length ? median(refs.map((r) => r.cpu_s)) : null,
    cpu_ratio: ours.length && refs.length ? Math.round((median(ours.map((r) => r.cpu_s)) / median(refs.map((r) => r.cpu_s))) * 1000) / 1000 : null,
    peak_rss_mb: ours.length ? Math.max(...ours.map((r) => r.peak_rss_mb)) : null,
    reference_peak_rss_mb: refs.length ? Math.max(...refs.map((r) => r.peak_rss_mb)) : null,
    ffmpeg: ffmpegLine,
    used: ours[0]?.ffmpeg,
    xfade: ours[0]?.xfade ?? refs[0]?.xfade,
    pairs: PAIRS,
    ours_runs: ours.map((r) => r.wall_s),
    reference_runs: refs.map((r) => r.wall_s),
    ours_cpu_runs: ours.map((r) => r.cpu_s),
    reference_cpu_runs: refs.map((r) => r.cpu_s),
    ours_steps: ours.map((r) => ({ generate: r.generate_s, export: r.export_s, export_job_render: r.export_job_render_s })),
    load_before: loadBefore,
    load_after: load(),
    cpus: os.cpus().length,
  }),
);
if (process.env.BENCH_KEEP !== "1") fs.rmSync(dir, { recursive: true, force: true });
