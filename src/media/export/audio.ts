/**
 * render-audio: the export's whole soundtrack, straight to AAC. The voice is laid on the 48 kHz
 * sample grid (each sentence from its start, padded or cut to its slot, silence between), music is
 * looped and trimmed, ducked under the voice with `sidechaincompress`, mixed with `amix normalize=0`.
 *
 * Loudness (full exports): −16 LUFS integrated, true peak at most −1.5 dBTP, in two ffmpeg runs. The
 * first mixes and measures the mix's integrated loudness with `ebur128` (at 48 kHz) while writing it
 * as a float WAV; the second applies ONE linear gain to −16 LUFS and a look-ahead limiter
 * (`alimiter`, ceiling −2 dBFS: half a dB of room for the peaks between samples and the AAC coder)
 * and encodes. This replaced `loudnorm` (dynamic mode, which always works at 192 kHz): the same
 * loudness and peak targets for a third of the soundtrack's CPU, and the mix's dynamics are kept
 * as mixed instead of being compressed towards LRA 11. A draft (plan preview) skips the loudness
 * step: one run, mix to AAC.
 *
 * It runs alongside the video render (it needs none of its output) and is cached by a hash of the
 * graph and its inputs, so a re-export in another format mixes nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { removeQuietly, sha256, tempPathFor } from "../atomic.js";
import { num } from "../filtergraph.js";
import { runTool } from "../run.js";
import type { Tools } from "../tools.js";
import type { ExportCaps } from "./caps.js";
import { AUDIO_RATE, type RenderPlan } from "./spec.js";

export const AAC_BITRATE = "160k";
/**
 * A draft's soundtrack (plan preview): AAC's fast coder costs a third less at 96k than at 160k, and
 * a fifth less again at 64k (speech stays clear; it is a preview).
 */
export const DRAFT_AAC_BITRATE = "64k";
/** Bumped when the mix changes in a way the graph text does not show. */
const MIX_VERSION = 2;

/** The loudness of a full export's soundtrack (integrated, LUFS). */
export const TARGET_LUFS = -16;
/** The limiter's ceiling (sample peak, dBFS): the −1.5 dBTP target less room for inter-sample peaks and AAC. */
export const LIMIT_DBFS = -2;
/** alimiter's look-ahead (ms): its output comes this late, and is moved back (graph of the second run). */
const LIMITER_ATTACK_MS = 5;
/** Below this (the −70 LUFS absolute gate: silence), no gain is applied. */
const SILENT_LUFS = -69;

export interface AudioJob {
  inputs: string[];
  graph: string;
  /** Encoder arguments (after the graph). */
  encode: string[];
  key: string;
  /**
   * Full exports: `graph` ends in `ebur128` (the mix is measured as it is written to a WAV), and this
   * gives the second run's filters from the measured integrated loudness.
   */
  normalize?: (lufs: number) => string;
}

function fileStamp(file: string): [string, number, number] {
  const st = fs.statSync(file);
  return [path.resolve(file), st.size, Math.round(st.mtimeMs)];
}

export function buildAudioJob(plan: RenderPlan, tools: Tools, caps: ExportCaps, o: { aacCoder?: string; draft?: boolean } = {}): AudioJob {
  const total = Math.round((plan.frames * AUDIO_RATE) / plan.fps);
  const inputs: string[] = [];
  const files: string[] = [];
  const lines: string[] = [];
  let next = 0;
  const input = (args: string[], file: string): number => {
    inputs.push(...args, "-i", `file:${file}`);
    files.push(file);
    return next++;
  };
  const mono = `aresample=${AUDIO_RATE},aformat=sample_fmts=fltp:channel_layouts=mono`;
  const exact = (n: number): string => `apad=whole_len=${n},atrim=end_sample=${n}`;
  const silence = (n: number): string => `anullsrc=r=${AUDIO_RATE}:cl=mono,aformat=sample_fmts=fltp,atrim=end_sample=${n}`;

  if (plan.voicePath) {
    lines.push(`[${input([], plan.voicePath)}:a]${mono},${exact(total)}[voice0]`);
  } else if (plan.voice.length === 0) {
    lines.push(`${silence(total)}[voice0]`);
  } else {
    const parts: string[] = [];
    let at = 0;
    let k = 0;
    for (const piece of plan.voice) {
      if (piece.startSample > at) {
        lines.push(`${silence(piece.startSample - at)}[g${k}]`);
        parts.push(`g${k++}`);
      }
      const idx = input([], piece.file);
      lines.push(`[${idx}:a]${mono},atrim=end_sample=${piece.samples},apad=whole_len=${piece.samples}[p${k}]`);
      parts.push(`p${k++}`);
      at = piece.startSample + piece.samples;
    }
    if (at < total) {
      lines.push(`${silence(total - at)}[g${k}]`);
      parts.push(`g${k++}`);
    }
    lines.push(`${parts.map((p) => `[${p}]`).join("")}concat=n=${parts.length}:v=0:a=1[voice0]`);
  }

  const stereo = `aresample=${AUDIO_RATE},aformat=sample_fmts=fltp:channel_layouts=stereo`;
  // A full export's mix is measured on its way to the first run's WAV (see the header); a draft's
  // (plan preview) goes straight to AAC: loudness is not what a preview checks.
  const end = o.draft ? `${stereo},${exact(total)}` : `${stereo},${exact(total)},ebur128`;
  const seconds = total / AUDIO_RATE;
  if (plan.musicPath) {
    const m = input(["-stream_loop", "-1", "-t", num(seconds + 1)], plan.musicPath);
    const fade = Math.min(2, seconds / 2);
    lines.push(`[voice0]aformat=channel_layouts=stereo,asplit=2[voice][sc]`);
    lines.push(`[${m}:a]${stereo},atrim=end_sample=${total},volume=0.35,afade=t=out:st=${num(seconds - fade)}:d=${num(fade)}[mus]`);
    lines.push(`[mus][sc]sidechaincompress=threshold=0.03:ratio=8:attack=20:release=400[duck]`);
    // Old amix (ffmpeg 4.1) has no normalize and divides each input by the input count: undo it.
    const amix = caps.amixNormalize ? "amix=inputs=2:duration=first:normalize=0" : "amix=inputs=2:duration=first,volume=2";
    lines.push(`[voice][duck]${amix},${end}[aout]`);
  } else {
    lines.push(`[voice0]aformat=channel_layouts=stereo,${end}[aout]`);
  }
  const graph = lines.join(";\n") + "\n";
  const encode = [
    "-c:a",
    "aac",
    ...(o.aacCoder ? ["-aac_coder", o.aacCoder] : []),
    "-b:a",
    o.draft ? DRAFT_AAC_BITRATE : AAC_BITRATE,
    "-ar",
    String(AUDIO_RATE),
    "-ac",
    "2",
  ];
  const normalize = o.draft ? undefined : (lufs: number): string => normalizeFilters(lufs, total);
  const key = sha256(JSON.stringify([MIX_VERSION, tools.ffmpegVersion, tools.ffmpeg, graph, encode, normalize ? normalize(-23) : "", files.map(fileStamp)]));
  return { inputs, graph, encode, key, ...(normalize ? { normalize } : {}) };
}

/**
 * The second run's filters: one gain to TARGET_LUFS, the limiter (no auto level: it would lift the
 * limited signal back to full scale), and its look-ahead delay undone — the input is padded by the
 * delay and the output starts that late, so every sample keeps its place on the grid (ffmpeg 4.1's
 * alimiter has no `latency` option for this).
 */
export function normalizeFilters(lufs: number, total: number): string {
  const gain = Number.isFinite(lufs) && lufs > SILENT_LUFS ? TARGET_LUFS - lufs : 0;
  const delay = Math.round((LIMITER_ATTACK_MS * AUDIO_RATE) / 1000);
  const limit = 10 ** (LIMIT_DBFS / 20);
  return (
    `volume=${num(Math.round(gain * 100) / 100)}dB,apad=pad_len=${delay},` +
    `alimiter=limit=${num(Math.round(limit * 1e5) / 1e5)}:attack=${LIMITER_ATTACK_MS}:release=50:level=0,` +
    `atrim=start_sample=${delay},asetpts=PTS-STARTPTS,apad=whole_len=${total},atrim=end_sample=${total}`
  );
}

/** The integrated loudness in ebur128's summary (the last one: ffmpeg may print an empty one first). */
export function integratedLoudness(stderr: string): number {
  const all = [...stderr.matchAll(/Integrated loudness:\s*I:\s*(-?[\d.]+|-?inf|nan)\s*LUFS/gi)];
  const v = all.length ? Number(all[all.length - 1]![1]) : Number.NaN;
  return Number.isFinite(v) ? v : Number.NaN;
}

const QUIET = ["-hide_banner", "-nostdin", "-y", "-nostats"];

/**
 * Runs the mix (or finds it in the cache) and returns the AAC file (.m4a). With a cacheDir the result
 * lives there (written to a temp name, then renamed); without, in workDir. A full export's mix takes
 * two runs (see the header): the WAV between them lives in workDir.
 */
export async function renderAudio(
  job: AudioJob,
  tools: Tools,
  o: { workDir: string; cacheDir?: string; signal?: AbortSignal },
): Promise<{ file: string; cached: boolean }> {
  const target = o.cacheDir ? path.join(o.cacheDir, `mix-${job.key}.m4a`) : path.join(o.workDir, "mix.m4a");
  if (o.cacheDir && fs.existsSync(target)) return { file: target, cached: true };
  const script = path.join(o.workDir, "audio.graph");
  fs.writeFileSync(script, job.graph);
  const tmp = tempPathFor(target);
  const wav = path.join(o.workDir, "mix.wav");
  const run = { signal: o.signal, cwd: o.workDir };
  try {
    if (job.normalize) {
      // ebur128 prints its summary at the info level; -loglevel info adds only the streams' lines.
      const measured = await runTool(
        tools.ffmpeg,
        [...QUIET, "-loglevel", "info", ...job.inputs, "-filter_complex_script", script, "-map", "[aout]", "-c:a", "pcm_f32le", "-f", "wav", wav],
        run,
      );
      const lufs = integratedLoudness(measured.stderr);
      await runTool(tools.ffmpeg, [...QUIET, "-loglevel", "error", "-i", `file:${wav}`, "-af", job.normalize(lufs), ...job.encode, "-f", "mp4", tmp], run);
    } else {
      await runTool(
        tools.ffmpeg,
        [...QUIET, "-loglevel", "error", ...job.inputs, "-filter_complex_script", script, "-map", "[aout]", ...job.encode, "-f", "mp4", tmp],
        run,
      );
    }
    fs.renameSync(tmp, target);
    return { file: target, cached: false };
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  } finally {
    removeQuietly(wav);
  }
}
