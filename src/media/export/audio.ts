/**
 * render-audio: the export's whole soundtrack in one ffmpeg run, straight to AAC. The voice is laid
 * on the 48 kHz sample grid (each sentence from its start, padded or cut to its slot, silence between),
 * music is looped and trimmed, ducked under the voice with `sidechaincompress`, mixed with
 * `amix normalize=0`, then `loudnorm` (−16 LUFS) and back to 48 kHz (loudnorm works at 192 kHz).
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
/** A draft's soundtrack (plan preview): AAC's fast coder costs a third less at this rate than at 160k. */
export const DRAFT_AAC_BITRATE = "96k";
/** Bumped when the mix changes in a way the graph text does not show. */
const MIX_VERSION = 1;

export interface AudioJob {
  inputs: string[];
  graph: string;
  /** Encoder arguments (after the graph). */
  encode: string[];
  key: string;
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
  // loudnorm works at 192 kHz; back to 48 kHz after it. Regrouping its output into small frames
  // first keeps ~45 MB less alive in this process (same samples out, compared bit for bit).
  // A draft (plan preview) skips it: a third of the soundtrack's CPU, and loudness is not what a preview checks.
  const loudnorm = o.draft ? `${stereo},${exact(total)}` : `loudnorm=I=-16:TP=-1.5:LRA=11,asetnsamples=n=4096,${stereo},${exact(total)}`;
  const seconds = total / AUDIO_RATE;
  if (plan.musicPath) {
    const m = input(["-stream_loop", "-1", "-t", num(seconds + 1)], plan.musicPath);
    const fade = Math.min(2, seconds / 2);
    lines.push(`[voice0]aformat=channel_layouts=stereo,asplit=2[voice][sc]`);
    lines.push(`[${m}:a]${stereo},atrim=end_sample=${total},volume=0.35,afade=t=out:st=${num(seconds - fade)}:d=${num(fade)}[mus]`);
    lines.push(`[mus][sc]sidechaincompress=threshold=0.03:ratio=8:attack=20:release=400[duck]`);
    // Old amix (ffmpeg 4.1) has no normalize and divides each input by the input count: undo it.
    const amix = caps.amixNormalize ? "amix=inputs=2:duration=first:normalize=0" : "amix=inputs=2:duration=first,volume=2";
    lines.push(`[voice][duck]${amix},${loudnorm}[aout]`);
  } else {
    lines.push(`[voice0]aformat=channel_layouts=stereo,${loudnorm}[aout]`);
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
  const key = sha256(JSON.stringify([MIX_VERSION, tools.ffmpegVersion, tools.ffmpeg, graph, encode, files.map(fileStamp)]));
  return { inputs, graph, encode, key };
}

/**
 * Runs the mix (or finds it in the cache) and returns the AAC file (.m4a). With a cacheDir the result
 * lives there (written to a temp name, then renamed); without, in workDir.
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
  try {
    await runTool(
      tools.ffmpeg,
      [
        "-hide_banner",
        "-nostdin",
        "-y",
        "-nostats",
        "-loglevel",
        "error",
        ...job.inputs,
        "-filter_complex_script",
        script,
        "-map",
        "[aout]",
        ...job.encode,
        "-f",
        "mp4",
        tmp,
      ],
      { signal: o.signal, cwd: o.workDir },
    );
    fs.renameSync(tmp, target);
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  }
  return { file: target, cached: false };
}
