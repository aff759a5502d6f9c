/**
 * What the export renderer renders: a mirror of the stored video timeline
 * (src/features/video/emulator/public/timeline.ts, not imported: src/media depends on node only) with absolute file
 * paths, and the output size chosen by the export format. Field names follow the timeline's, so the
 * export feature maps one to the other by resolving paths and nothing else.
 *
 * `planSpec` checks a spec and turns its millisecond times into frame counts on the output grid; every
 * later step (audio, subtitles, graph) works from that plan.
 */
import fs from "node:fs";
import path from "node:path";
import { ExportError } from "./errors.js";

export type ExportFormat = "vertical" | "ads" | "square" | "horizontal" | "custom";
export type MediaShow = "full" | "half" | "background" | "hide";

export const EXPORT_FPS = 30;
/** Largest side the service accepts for `custom` (hosted facts: 1..5000). */
export const MAX_EXPORT_SIDE = 5000;
/** Above this, H.264 needs level 6.x, which many phones cannot play: allowed, with a warning. */
export const WARN_EXPORT_SIDE = 4096;

const FORMAT_SIZES: Record<Exclude<ExportFormat, "custom">, { width: number; height: number }> = {
  vertical: { width: 1080, height: 1920 },
  ads: { width: 1080, height: 1350 },
  square: { width: 1080, height: 1080 },
  horizontal: { width: 1920, height: 1080 },
};

export interface ExportSize {
  width: number;
  height: number;
  warnings: string[];
}

/**
 * The output size of an export format. `custom` takes width/height (defaults 1080×1920, 1..5000) and
 * rounds odd sides up to even, because x264 with yuv420p refuses odd sizes.
 */
export function exportSize(format: ExportFormat, custom: { width?: number; height?: number } = {}): ExportSize {
  if (format !== "custom") {
    const s = FORMAT_SIZES[format];
    if (!s) throw new ExportError("FORMAT_CONVERSION_FAILED", `unknown export format: ${String(format)}`);
    return { ...s, warnings: [] };
  }
  const warnings: string[] = [];
  const side = (v: number | undefined, dflt: number, name: string): number => {
    const n = v ?? dflt;
    if (!Number.isInteger(n) || n < 1 || n > MAX_EXPORT_SIDE) {
      throw new ExportError("FORMAT_CONVERSION_FAILED", `custom ${name} must be an integer from 1 to ${MAX_EXPORT_SIDE} (got ${String(v)})`);
    }
    // Up to even, except 5000 is already even so the maximum never grows past the limit.
    const even = n % 2 === 0 ? n : n + 1;
    if (even !== n) warnings.push(`custom ${name} ${n} rounded to ${even} (H.264 in 4:2:0 needs even sizes)`);
    return even;
  };
  const width = side(custom.width, 1080, "width");
  const height = side(custom.height, 1920, "height");
  if (width > WARN_EXPORT_SIDE || height > WARN_EXPORT_SIDE) {
    warnings.push(`${width}x${height} is above ${WARN_EXPORT_SIDE} px: H.264 level 6 is needed and many phones cannot play it`);
  }
  return { width, height, warnings };
}

export interface RenderMedia {
  kind: "image" | "video";
  /** Absolute path of the file. */
  path: string;
  show: MediaShow;
  /** Seconds into a video source where playback starts. */
  trim_start?: number;
  /** As probed at generation; probed again here when missing. */
  width?: number;
  height?: number;
  duration_ms?: number;
  /** An image that moves: a slow zoom and pan over the sequence (`animate_image`). */
  animate?: boolean;
}

export interface RenderSentence {
  text: string;
  start_ms: number;
  end_ms: number;
  /** The sentence's speech (WAV); it plays from start_ms, padded or cut to end_ms. */
  audio_path: string;
}

export interface RenderSequence {
  /** null: a silent sequence. */
  text: string | null;
  start_ms: number;
  end_ms: number;
  /** The look's image (the avatar shown); null draws a dark background instead. */
  look_image_path: string | null;
  /**
   * An avatar that is a video (a supplied `avatar_url` video), shown where the look would be beside
   * `half` or `background` media, playing from `start_s` seconds into the file (looped).
   */
  look_video?: { path: string; start_s: number };
  media?: RenderMedia;
  /**
   * The avatar direction of the sequence (the plan's `action`, e.g. "smile"): a draft shows it as a
   * label in the frame's corner (draft.ts); a full export does not draw it.
   */
  action?: string;
  /** Spoken sequences: one per sentence, in order; they time the speech and the subtitles. */
  sentences: RenderSentence[];
}

export interface RenderBlock {
  start_ms: number;
  end_ms: number;
  /** A block given as audio: this file is its speech (used when the spec has no voice_path). */
  audio_path?: string;
  sequences: RenderSequence[];
}

export interface RenderSpec {
  /** Output size, from `exportSize` (even, 2..5000). */
  width: number;
  height: number;
  /** Frames per second of the output; the timeline's is 30. */
  fps: number;
  /** Total length; on the frame grid (times are rounded to it by the generation). */
  duration_ms: number;
  options: { subtitles: boolean; music: boolean; transitions: boolean };
  /** Music for `options.music`: looped or trimmed to the video, ducked under the voice. */
  music_path?: string;
  /**
   * The whole voice track (silences included), `duration_ms` long. Without it the voice is assembled
   * from the sentences' WAVs (and blocks' audio), with silence elsewhere.
   */
  voice_path?: string;
  blocks: RenderBlock[];
}

/** One sequence on the frame grid. */
export interface PlannedSequence {
  index: number;
  seq: RenderSequence;
  /** First frame and frame count on the output grid. */
  start: number;
  frames: number;
}

/** A piece of the voice track on the 48 kHz sample grid. */
export interface VoicePiece {
  file: string;
  startSample: number;
  samples: number;
}

export interface RenderPlan {
  W: number;
  H: number;
  fps: number;
  /** Total frames; the output has exactly this many. */
  frames: number;
  /** frames / fps: the output's duration. */
  seconds: number;
  sequences: PlannedSequence[];
  /** Sorted, non-overlapping; gaps are silence. Empty when `voicePath` is set. */
  voice: VoicePiece[];
  voicePath?: string;
  musicPath?: string;
  options: RenderSpec["options"];
  warnings: string[];
}

export const AUDIO_RATE = 48000;

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function fail(message: string): never {
  throw new ExportError("EXPORT_FAILED", message);
}

/** "look image of sequence 3 (avatar.png)": what a message names instead of a server path. */
export function describeFile(what: string, file: string): string {
  return `${what} (${path.basename(file)})`;
}

/** Validates a spec and puts it on the frame and sample grids. Throws ExportError. */
export function planSpec(spec: RenderSpec): RenderPlan {
  const { width: W, height: H } = spec;
  if (!Number.isInteger(W) || !Number.isInteger(H) || W < 2 || H < 2 || W > MAX_EXPORT_SIDE || H > MAX_EXPORT_SIDE || W % 2 || H % 2) {
    throw new ExportError("FORMAT_CONVERSION_FAILED", `output size must be even integers from 2 to ${MAX_EXPORT_SIDE} (got ${W}x${H})`);
  }
  const warnings: string[] = [];
  if (W > WARN_EXPORT_SIDE || H > WARN_EXPORT_SIDE) warnings.push(`${W}x${H} is above ${WARN_EXPORT_SIDE} px: H.264 level 6 is needed and many phones cannot play it`);
  const fps = spec.fps;
  if (!Number.isInteger(fps) || fps < 1 || fps > 120) fail(`fps must be an integer from 1 to 120 (got ${fps})`);
  if (!Number.isFinite(spec.duration_ms) || spec.duration_ms <= 0) fail(`duration_ms must be positive (got ${spec.duration_ms})`);
  const toFrame = (ms: number): number => Math.round((ms * fps) / 1000);
  const toSample = (ms: number): number => Math.round((ms * AUDIO_RATE) / 1000);
  const frames = toFrame(spec.duration_ms);
  if (frames < 1) fail(`duration_ms ${spec.duration_ms} is shorter than one frame`);

  const flat = spec.blocks.flatMap((b) => b.sequences);
  if (flat.length === 0) fail("the timeline has no sequences");
  const sequences: PlannedSequence[] = [];
  let cursor = 0;
  flat.forEach((seq, index) => {
    const n = index + 1;
    const start = toFrame(seq.start_ms);
    const end = toFrame(seq.end_ms);
    // Sequences tile the video: the generation rounds every boundary to the frame grid.
    if (start !== cursor)
      fail(`sequence ${n} starts at ${seq.start_ms} ms, expected ${Math.round((cursor * 1000) / fps)} ms (sequences must follow each other without gaps)`);
    if (end <= start) fail(`sequence ${n} is shorter than one frame (${seq.start_ms}–${seq.end_ms} ms)`);
    if (seq.look_image_path !== null && !isFile(seq.look_image_path)) fail(`missing input: ${describeFile(`look image of sequence ${n}`, seq.look_image_path)}`);
    if (seq.look_video && !isFile(seq.look_video.path)) fail(`missing input: ${describeFile(`avatar video of sequence ${n}`, seq.look_video.path)}`);
    if (seq.media) {
      const m = seq.media;
      if (!["full", "half", "background", "hide"].includes(m.show)) fail(`sequence ${n}: unknown media show ${JSON.stringify(m.show)}`);
      if (m.kind !== "image" && m.kind !== "video") fail(`sequence ${n}: unknown media kind ${JSON.stringify(m.kind)}`);
      if (m.show !== "hide" && !isFile(m.path)) fail(`missing input: ${describeFile(`media of sequence ${n}`, m.path)}`);
    }
    sequences.push({ index, seq, start, frames: end - start });
    cursor = end;
  });
  if (cursor !== frames) fail(`sequences end at ${Math.round((cursor * 1000) / fps)} ms but the video is ${spec.duration_ms} ms`);

  const voice: VoicePiece[] = [];
  if (spec.voice_path !== undefined) {
    if (!isFile(spec.voice_path)) fail(`missing input: ${describeFile("voice track", spec.voice_path)}`);
  } else {
    const total = Math.round((frames * AUDIO_RATE) / fps);
    const add = (file: string, startMs: number, endMs: number, what: string): void => {
      if (!isFile(file)) fail(`missing input: ${describeFile(what, file)}`);
      const a = Math.max(0, toSample(startMs));
      const b = Math.min(total, toSample(endMs));
      if (b > a) voice.push({ file, startSample: a, samples: b - a });
    };
    let n = 0;
    for (const block of spec.blocks) {
      if (block.audio_path) {
        add(block.audio_path, block.start_ms, block.end_ms, "block audio");
        n += block.sequences.length;
        continue;
      }
      for (const seq of block.sequences) {
        n++;
        seq.sentences.forEach((s, k) => void add(s.audio_path, s.start_ms, s.end_ms, `speech of sequence ${n} sentence ${k + 1}`));
      }
    }
    voice.sort((x, y) => x.startSample - y.startSample);
    for (let i = 1; i < voice.length; i++) {
      const prev = voice[i - 1]!;
      if (voice[i]!.startSample < prev.startSample + prev.samples) fail("speech pieces overlap in the timeline");
    }
  }
  if (spec.options.music && spec.music_path !== undefined && !isFile(spec.music_path)) fail(`missing input: ${describeFile("music", spec.music_path)}`);

  return {
    W,
    H,
    fps,
    frames,
    seconds: frames / fps,
    sequences,
    voice,
    voicePath: spec.voice_path,
    musicPath: spec.options.music ? spec.music_path : undefined,
    options: spec.options,
    warnings,
  };
}
