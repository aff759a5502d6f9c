/**
 * The resolved timeline of a video: what a generation job produces and stores on the video record
 * (status `done`), what `video/duplicate` copies (re-timing speech for a new voice, swapping looks
 * for a new look) and what an export renders. It is the local instance's own record: the hosted spec
 * shows no video read endpoint. Times are integer milliseconds on the video's clock, rounded to the
 * frame grid (`fps`) so that cumulative drift stays under half a frame: every boundary is
 * `Math.round(frame * 1000 / fps)` for a whole frame number.
 *
 * Paths (`*_path`) are relative to the instance's media dir; every file they name exists when the
 * video is `done`. Shared files (sentence speech under `speech/`, catalog look pictures, library
 * assets, fetched media under `fetched/`) may be named by several videos; a video's own files are
 * under `videos/<video_id>/` (the voice track, the thumbnail).
 *
 * Layout, for the export: blocks are consecutive and cover [0, duration_ms); the sequences of a
 * block are consecutive and cover the block; the sentences of a spoken sequence are consecutive and
 * cover the sequence. A silent sequence (`text: null`) is alone in its block (voice_id null).
 */
import type { VideoFormat } from "../../../generation/contract.js";

export const TIMELINE_VERSION = 1;
export const TIMELINE_FPS = 30;

export type MediaShow = "full" | "half" | "background" | "hide";

export interface TimelineMedia {
  kind: "image" | "video";
  /**
   * Where it came from: a library asset named in the plan (wins over url), a URL or local file (plan
   * media or `media_urls`), or automatic b-roll from the space's library.
   */
  source: { asset_id: string } | { url: string } | { broll_asset_id: string };
  /** The fetched or resolved file. */
  path: string;
  show: MediaShow;
  /** Seconds into a video source where playback starts. */
  trim_start?: number;
  /** Probed once at generation (library assets: from their record): pixel size and, for videos, duration in ms. */
  width: number;
  height: number;
  duration_ms?: number;
  /** `animate_image`: a still the export animates (slow zoom/pan); only images, never videos. */
  animate?: boolean;
}

export interface TimelineSentence {
  text: string;
  start_ms: number;
  end_ms: number;
  /**
   * The sentence's speech (WAV), under `speech/`, cached by (engine, version, voice, rate, text).
   * null when the block's audio was supplied (block `audio_url`, request `voice_url`): the sentence is
   * then timed by its share of the block's characters and its sound is in the block's `audio_path`.
   */
  audio_path: string | null;
}

export interface TimelineSequence {
  /**
   * null: a silent sequence of `end_ms - start_ms`. "" only for supplied speech whose words are not
   * known (a `voice_url` without a script): spoken, but nothing to subtitle.
   */
  text: string | null;
  start_ms: number;
  end_ms: number;
  /**
   * The resolved look (sequence → block → request `avatar_id`), and its image. With no look but a
   * request `avatar_url` image, `look_id` is null and `look_image_path` is that image.
   */
  look_id: string | null;
  look_image_path: string | null;
  /** A request `avatar_url` that is a video: it plays on the video's clock (from `start_ms`) as the avatar. */
  avatar_video_path?: string;
  action?: string;
  media?: TimelineMedia;
  /** Spoken sequences: one entry per sentence, in order, covering [start_ms, end_ms). */
  sentences: TimelineSentence[];
}

export interface TimelineBlock {
  voice_id: string | null;
  /** espeak-ng voice the block was spoken with (null: silent, or supplied audio). */
  tts_voice: string | null;
  look_id: string | null;
  /** Supplied speech (block `audio_url`, request `voice_url`, or an `avatar_url` video's sound), decoded to WAV: skips voice generation. */
  audio_path?: string;
  /** Block parent avatar id, as given in the plan. */
  parent_avatar_id?: string;
  start_ms: number;
  end_ms: number;
  sequences: TimelineSequence[];
}

export interface TimelineOptions {
  subtitles: boolean;
  broll: boolean;
  music: boolean;
  transitions: boolean;
}

export interface VideoTimeline {
  version: typeof TIMELINE_VERSION;
  format: VideoFormat;
  /** Pixel size asked for (custom sizes as given, 1..5000; the export rounds odd sizes to even). */
  width: number;
  height: number;
  fps: typeof TIMELINE_FPS;
  duration_ms: number;
  /** `enable` of the generation request, resolved (defaults applied). */
  options: TimelineOptions;
  /** Music file for `enable.music` (a local default track: the spec names no field for one). */
  music_path?: string;
  native_avatar: boolean;
  /** `native_avatar_model` (default `omni-flash`) when `native_avatar`. */
  native_avatar_model?: string;
  /** `emotion_enhancement` of the request. */
  enhance_emotions: boolean;
  /** `use_veo3` of the request: rendered with Veo 3 on the service (the local render is the same). */
  use_veo3?: boolean;
  /** `animate_mode` of the request, when images are animated (the local animation is the same for both). */
  animate_mode?: "standard" | "pro";
  /** `save_media_to_space` of the request (default true): for the export to honour. */
  save_to_library: boolean;
  /** The whole voice track (all blocks, silences included), `duration_ms` long: mono 16-bit PCM WAV. */
  voice_path: string;
  /** A still of the video (its first look, else its first media, else a title card), JPEG. */
  thumbnail_path: string;
  blocks: TimelineBlock[];
}

/** The frame grid: the whole-millisecond time of the frame nearest to `ms`. */
export function snapMs(ms: number, fps: number = TIMELINE_FPS): number {
  return Math.round((Math.round((ms * fps) / 1000) * 1000) / fps);
}

/** Every sequence of the timeline in playback order, with the block it belongs to. */
export function sequencesOf(t: Pick<VideoTimeline, "blocks">): { block: TimelineBlock; sequence: TimelineSequence }[] {
  return t.blocks.flatMap((block) => block.sequences.map((sequence) => ({ block, sequence })));
}

/** Milliseconds of speech (spoken sequences), as opposed to silent sequences. */
export function spokenMs(t: Pick<VideoTimeline, "blocks">): number {
  return sequencesOf(t)
    .filter(({ sequence }) => sequence.text !== null)
    .reduce((sum, { sequence }) => sum + (sequence.end_ms - sequence.start_ms), 0);
}
