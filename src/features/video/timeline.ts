/**
 * The resolved timeline of a video: what a generation job produces and stores on the video record
 * (status `done`), what `video/duplicate` copies (re-timing speech for a new voice, swapping looks
 * for a new look) and what an export renders. It is the local instance's own record: the hosted spec
 * shows no video read endpoint. Times are integer milliseconds on the video's clock, rounded to the
 * frame grid (`fps`) so that cumulative drift stays under half a frame.
 *
 * Paths (`*_path`) are relative to the instance's media dir; every file they name exists when the
 * video is `done`.
 */
import type { VideoFormat } from "../generation/contract.js";

export const TIMELINE_VERSION = 1;
export const TIMELINE_FPS = 30;

export type MediaShow = "full" | "half" | "background" | "hide";

export interface TimelineMedia {
  kind: "image" | "video";
  /** Where it came from: a library asset (wins over url), a URL, or automatic b-roll from the library. */
  source: { asset_id: string } | { url: string } | { broll_asset_id: string };
  /** The fetched or resolved file. */
  path: string;
  show: MediaShow;
  /** Seconds into a video source where playback starts. */
  trim_start?: number;
  /** Probed once at generation: pixel size and, for videos, duration in ms. */
  width: number;
  height: number;
  duration_ms?: number;
}

export interface TimelineSentence {
  text: string;
  start_ms: number;
  end_ms: number;
  /** The sentence's speech (WAV), cached by (engine, version, voice, rate, text). */
  audio_path: string;
}

export interface TimelineSequence {
  /** null: a silent sequence of `end_ms - start_ms`. */
  text: string | null;
  start_ms: number;
  end_ms: number;
  /** The resolved look (sequence → block → request `avatar_id`), and its image. */
  look_id: string | null;
  look_image_path: string | null;
  action?: string;
  media?: TimelineMedia;
  /** Spoken sequences: one entry per sentence, in order, covering [start_ms, end_ms). */
  sentences: TimelineSentence[];
}

export interface TimelineBlock {
  voice_id: string | null;
  look_id: string | null;
  /** A block given as audio (block audio URL) skips voice generation. */
  audio_path?: string;
  start_ms: number;
  end_ms: number;
  sequences: TimelineSequence[];
}

export interface VideoTimeline {
  version: typeof TIMELINE_VERSION;
  format: VideoFormat;
  width: number;
  height: number;
  fps: typeof TIMELINE_FPS;
  duration_ms: number;
  /** `enable` of the generation request, resolved (defaults applied). */
  options: { subtitles: boolean; broll: boolean; music: boolean; transitions: boolean };
  /** Music file for `enable.music` (a local default track when none was given). */
  music_path?: string;
  native_avatar: boolean;
  /** The whole voice track (all blocks, silences included), `duration_ms` long. */
  voice_path: string;
  blocks: TimelineBlock[];
}
