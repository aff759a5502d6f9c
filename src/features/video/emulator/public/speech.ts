/**
 * Speech of a video, shared by generation (VOICE_GENERATION, TRANSCRIPTION) and duplicate with a new
 * voice: one TTS run per sentence, cached under `speech/` by (engine, version, voice, rate, pitch,
 * text); durations from the WAV headers (exact); the timing laid out on the frame grid (pure:
 * `layoutBlocks`); and one voice track WAV covering the whole video, silences included.
 */
import fs from "node:fs";
import path from "node:path";
import { sha256 } from "../../../../media/atomic.js";
import { MediaInputError, RenderError } from "../../../../media/errors.js";
import { QUIET, runTool } from "../../../../media/run.js";
import { getTools } from "../../../../media/tools.js";
import { speechText, synthesize, ttsCacheKey } from "../../../../media/tts.js";
import { readWavInfo, wavHeader as pcmWavHeader } from "../../../../media/wav.js";
import { cleanText } from "../../../generation/text.js";
import { TIMELINE_FPS, snapMs, type TimelineBlock, type TimelineSequence } from "./timeline.js";

/** espeak-ng's default rate and pitch: what the estimate (generation/text.ts) was measured at. */
export const SPEECH_RATE = 175;
export const SPEECH_PITCH = 50;
/** The voice track's format: espeak-ng's own (mono 16-bit at 22.05 kHz), so sentences copy as is. */
export const TRACK_RATE = 22050;

export interface DraftSentence {
  text: string;
  /** Media-dir-relative speech of the sentence (null in a block of supplied audio). */
  audio_path: string | null;
  /** Exact length of its speech (0 in a block of supplied audio: it gets a share of the block). */
  ms: number;
}

/** A sequence before timing: what it shows, and its speech (or its silence). */
export type DraftSequence = Omit<TimelineSequence, "start_ms" | "end_ms" | "sentences"> & {
  sentences: DraftSentence[];
  /** Silent sequences (`text: null`): how long. */
  silent_ms?: number;
};

export type DraftBlock = Omit<TimelineBlock, "start_ms" | "end_ms" | "sequences"> & {
  sequences: DraftSequence[];
  /** Exact length of the supplied audio (`audio_path`). */
  audio_ms?: number;
};

interface Unit {
  seq: number;
  sentence: number | undefined;
  ms: number;
}

/** What each block's time is made of, in order: sentences, silences, or shares of supplied audio. */
function unitsOf(block: DraftBlock): Unit[] {
  if (block.audio_path !== undefined) {
    // Supplied audio: each sentence (or a sequence without words) gets the block's time by characters.
    const parts: { seq: number; sentence: number | undefined; weight: number }[] = [];
    block.sequences.forEach((s, i) => {
      if (s.sentences.length === 0) parts.push({ seq: i, sentence: undefined, weight: cleanText(s.text ?? "").length });
      else s.sentences.forEach((t, j) => void parts.push({ seq: i, sentence: j, weight: cleanText(t.text).length }));
    });
    const total = parts.reduce((n, p) => n + p.weight, 0);
    const audio = block.audio_ms ?? 0;
    return parts.map((p) => ({ seq: p.seq, sentence: p.sentence, ms: total > 0 ? (audio * p.weight) / total : audio / parts.length }));
  }
  return block.sequences.flatMap((s, i): Unit[] => {
    if (s.text === null) return [{ seq: i, sentence: undefined, ms: s.silent_ms ?? 0 }];
    return s.sentences.map((t, j) => ({ seq: i, sentence: j, ms: t.ms }));
  });
}

/**
 * Times every block, sequence and sentence: exact durations accumulate, and each boundary is the
 * accumulated time snapped to the frame grid, so neighbours share their boundary and drift never
 * exceeds half a frame. Pure.
 */
export function layoutBlocks(drafts: readonly DraftBlock[], fps: number = TIMELINE_FPS): { blocks: TimelineBlock[]; duration_ms: number } {
  let t = 0;
  const blocks = drafts.map((d): TimelineBlock => {
    const { sequences: dseqs, audio_ms: _a, ...blockRest } = d;
    const blockStart = snapMs(t, fps);
    const sequences: TimelineSequence[] = dseqs.map((s) => {
      const { sentences: _s, silent_ms: _m, text, ...rest } = s;
      return { text, start_ms: -1, end_ms: -1, ...rest, sentences: [] };
    });
    for (const u of unitsOf(d)) {
      const start = snapMs(t, fps);
      t += u.ms;
      const end = snapMs(t, fps);
      const seq = sequences[u.seq]!;
      if (seq.start_ms < 0) seq.start_ms = start;
      seq.end_ms = end;
      if (u.sentence !== undefined) {
        const src = dseqs[u.seq]!.sentences[u.sentence]!;
        seq.sentences.push({ text: src.text, start_ms: start, end_ms: end, audio_path: src.audio_path });
      }
    }
    for (const s of sequences) {
      if (s.start_ms < 0) s.start_ms = s.end_ms = snapMs(t, fps);
    }
    return { ...blockRest, start_ms: blockStart, end_ms: snapMs(t, fps), sequences };
  });
  return { blocks, duration_ms: snapMs(t, fps) };
}

/** Where a sentence's speech is cached: media-dir-relative, keyed like the TTS cache. */
async function speechRel(text: string, tts: string): Promise<string> {
  const tools = await getTools();
  return path.posix.join("speech", `tts-${ttsCacheKey(tools, tts, SPEECH_RATE, SPEECH_PITCH, speechText(text))}.wav`);
}

/**
 * Speaks one sentence with an espeak-ng voice into the shared speech cache (made once: the same
 * text and voice in any video reuse the file). Returns the file and its exact length.
 */
export async function speakSentence(mediaDir: string, text: string, tts: string, signal?: AbortSignal): Promise<{ audio_path: string; ms: number }> {
  const rel = await speechRel(text, tts);
  const abs = path.join(mediaDir, rel);
  const known = fs.existsSync(abs) ? readWavInfo(abs) : undefined;
  if (known) return { audio_path: rel, ms: known.durationMs };
  const { durationMs } = await synthesize({ text, out: abs, voice: tts, rate: SPEECH_RATE, pitch: SPEECH_PITCH, ...(signal ? { signal } : {}) });
  return { audio_path: rel, ms: durationMs };
}

/**
 * Speaks every sentence of the draft's TTS blocks (blocks with a `tts_voice` and no supplied audio),
 * filling `audio_path` and `ms`. `onProgress` gets (done, total) after each sentence.
 */
export async function speakDraft(
  mediaDir: string,
  drafts: DraftBlock[],
  o: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<void> {
  const work = drafts.flatMap((b) =>
    b.audio_path === undefined && b.tts_voice ? b.sequences.flatMap((s) => s.sentences.map((sentence) => ({ sentence, tts: b.tts_voice! }))) : [],
  );
  let done = 0;
  for (const w of work) {
    o.signal?.throwIfAborted();
    const r = await speakSentence(mediaDir, w.sentence.text, w.tts, o.signal);
    w.sentence.audio_path = r.audio_path;
    w.sentence.ms = r.ms;
    o.onProgress?.(++done, work.length);
  }
}

interface Pcm {
  sampleRate: number;
  channels: number;
  bits: number;
  data: Buffer;
}

/** The PCM samples of a WAV (whole file read: sentences are small, supplied audio at most 600 s). */
export function readPcm(file: string): Pcm | undefined {
  const b = fs.readFileSync(file);
  if (b.length < 12 || b.toString("latin1", 0, 4) !== "RIFF" || b.toString("latin1", 8, 12) !== "WAVE") return undefined;
  let off = 12;
  let fmt: Omit<Pcm, "data"> | undefined;
  while (off + 8 <= b.length) {
    const id = b.toString("latin1", off, off + 4);
    const size = b.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === "fmt " && body + 16 <= b.length) {
      if (b.readUInt16LE(body) !== 1) return undefined; // PCM only
      fmt = { channels: b.readUInt16LE(body + 2), sampleRate: b.readUInt32LE(body + 4), bits: b.readUInt16LE(body + 14) };
    } else if (id === "data") {
      if (!fmt) return undefined;
      return { ...fmt, data: b.subarray(body, Math.min(b.length, body + size)) };
    }
    off = body + size + (size % 2);
  }
  return undefined;
}

/** A mono 16-bit PCM WAV header in the track's format. */
export function wavHeader(dataBytes: number, rate = TRACK_RATE): Buffer {
  return pcmWavHeader(dataBytes, rate);
}

/**
 * Decodes any audio (or a video's sound) to the track format, into `outAbs`. A source without sound
 * is a MediaInputError on `field`.
 */
export async function decodeAudio(src: string, outAbs: string, field: string, signal?: AbortSignal): Promise<void> {
  const tools = await getTools();
  fs.mkdirSync(path.dirname(outAbs), { recursive: true });
  const tmp = `${outAbs}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp.wav`;
  try {
    await runTool(
      tools.ffmpeg,
      [...QUIET, "-i", `file:${src}`, "-vn", "-map", "0:a:0", "-ac", "1", "-ar", String(TRACK_RATE), "-c:a", "pcm_s16le", "-f", "wav", `file:${tmp}`],
      signal ? { signal } : {},
    );
    fs.renameSync(tmp, outAbs);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    if (e instanceof RenderError && !e.aborted && /matches no streams|does not contain any stream|Stream map/i.test(e.message)) {
      throw new MediaInputError(`${field}: the file has no sound`, field);
    }
    throw e;
  }
}

/** Samples of one file in the track format (other formats are decoded first, next to the track). */
async function trackSamples(abs: string, scratch: string, signal?: AbortSignal): Promise<Buffer> {
  const pcm = readPcm(abs);
  if (pcm && pcm.sampleRate === TRACK_RATE && pcm.channels === 1 && pcm.bits === 16) return pcm.data;
  await decodeAudio(abs, scratch, "audio", signal);
  try {
    return readPcm(scratch)!.data;
  } finally {
    fs.rmSync(scratch, { force: true });
  }
}

/**
 * Writes the voice track: `duration_ms` of silence with each sentence's speech placed at its start
 * (cut at its end), and each supplied block audio over its block. Written to a temp file and renamed.
 */
export async function writeVoiceTrack(mediaDir: string, outRel: string, blocks: readonly TimelineBlock[], durationMs: number, signal?: AbortSignal): Promise<void> {
  const sampleAt = (ms: number) => Math.round((ms * TRACK_RATE) / 1000);
  const total = sampleAt(durationMs);
  const data = Buffer.alloc(total * 2);
  const outAbs = path.join(mediaDir, outRel);
  fs.mkdirSync(path.dirname(outAbs), { recursive: true });
  const scratch = `${outAbs}.decode.${process.pid}.wav`;
  const place = async (rel: string, startMs: number, endMs: number) => {
    signal?.throwIfAborted();
    const samples = await trackSamples(path.join(mediaDir, rel), scratch, signal);
    const from = sampleAt(startMs) * 2;
    const room = Math.max(0, sampleAt(endMs) * 2 - from);
    samples.copy(data, from, 0, Math.min(samples.length - (samples.length % 2), room));
  };
  for (const b of blocks) {
    if (b.audio_path !== undefined) {
      await place(b.audio_path, b.start_ms, b.end_ms);
      continue;
    }
    for (const s of b.sequences) for (const t of s.sentences) if (t.audio_path) await place(t.audio_path, t.start_ms, t.end_ms);
  }
  const tmp = `${outAbs}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, Buffer.concat([wavHeader(data.length), data]));
  fs.renameSync(tmp, outAbs);
}

/** A stable name for a file derived from `key` (decoded audio, adopted local files). */
export function derivedName(prefix: string, key: string, ext: string): string {
  return `${prefix}-${sha256(key).slice(0, 32)}${ext}`;
}
