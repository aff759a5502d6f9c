/**
 * A stored video timeline (media-dir-relative paths) → the renderer's RenderSpec (absolute paths, the
 * export's output size). Field names are the same on both sides, so this resolves paths and makes
 * three choices the renderer leaves to its caller:
 *
 * - A supplied avatar video (`avatar_url` video, no look) plays full screen on the video's clock
 *   where the avatar is alone (no media, or media `hide`); beside media (`half`, `background`) a still
 *   of it, taken at the sequence's start, stands in for it, since the renderer composites looks as
 *   stills. Under `full` media the avatar is not seen.
 * - Sentences of supplied speech have no file of their own: the video's voice track is the soundtrack
 *   (`voice_path`), so their `audio_path` only names that track.
 * - `animate` stills are shown as stills (the renderer has no image animation yet).
 */
import fs from "node:fs";
import path from "node:path";
import type { RenderMedia, RenderSequence, RenderSpec } from "../../media/export/spec.js";
import { runTool } from "../../media/run.js";
import { DECODE_LIMIT_ARGS } from "../../media/image-header.js";
import type { Tools } from "../../media/tools.js";
import { sequencesOf, type TimelineSequence, type VideoTimeline } from "../video/timeline.js";

/** Whether a sequence needs a still of its avatar video (the avatar shares the frame with media). */
function needsAvatarStill(s: TimelineSequence): boolean {
  return s.look_image_path === null && s.avatar_video_path !== undefined && s.media !== undefined && (s.media.show === "half" || s.media.show === "background");
}

/**
 * Stills of the supplied avatar video for the sequences that need one, written into `workDir`:
 * one JPEG per sequence, the frame at the sequence's start (the clip looped, as it plays).
 */
export async function avatarStills(
  t: VideoTimeline,
  mediaDir: string,
  workDir: string,
  tools: Tools,
  signal?: AbortSignal,
): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const seqs = sequencesOf(t).map((x) => x.sequence);
  for (const [i, s] of seqs.entries()) {
    if (!needsAvatarStill(s)) continue;
    const file = path.join(workDir, `avatar-still-${i + 1}.jpg`);
    fs.mkdirSync(workDir, { recursive: true });
    await runTool(
      tools.ffmpeg,
      [
        "-hide_banner", "-nostdin", "-y", "-loglevel", "error",
        ...DECODE_LIMIT_ARGS, "-stream_loop", "-1", "-ss", (s.start_ms / 1000).toFixed(3),
        "-i", `file:${path.join(mediaDir, s.avatar_video_path!)}`,
        "-frames:v", "1", "-q:v", "2", "-f", "image2", "-c:v", "mjpeg",
        `file:${file}`,
      ],
      { cwd: workDir, ...(signal ? { signal } : {}) },
    );
    out.set(i, file);
  }
  return out;
}

export function renderSpecOf(
  t: VideoTimeline,
  size: { width: number; height: number },
  mediaDir: string,
  stills: ReadonlyMap<number, string> = new Map(),
): RenderSpec {
  const abs = (rel: string) => path.join(mediaDir, rel);
  const voice = abs(t.voice_path);
  let index = 0;
  const blocks = t.blocks.map((b) => ({
    start_ms: b.start_ms,
    end_ms: b.end_ms,
    ...(b.audio_path !== undefined ? { audio_path: abs(b.audio_path) } : {}),
    sequences: b.sequences.map((s): RenderSequence => {
      const i = index++;
      let look = s.look_image_path !== null ? abs(s.look_image_path) : null;
      let media: RenderMedia | undefined = s.media
        ? {
            kind: s.media.kind,
            path: abs(s.media.path),
            show: s.media.show,
            ...(s.media.trim_start !== undefined ? { trim_start: s.media.trim_start } : {}),
            width: s.media.width,
            height: s.media.height,
            ...(s.media.duration_ms !== undefined ? { duration_ms: s.media.duration_ms } : {}),
          }
        : undefined;
      if (look === null && s.avatar_video_path !== undefined) {
        if (!media || media.show === "hide") {
          media = { kind: "video", path: abs(s.avatar_video_path), show: "full", trim_start: s.start_ms / 1000 };
        } else if (stills.has(i)) {
          look = stills.get(i)!;
        }
      }
      return {
        text: s.text,
        start_ms: s.start_ms,
        end_ms: s.end_ms,
        look_image_path: look,
        ...(media ? { media } : {}),
        sentences: s.sentences.map((x) => ({
          text: x.text,
          start_ms: x.start_ms,
          end_ms: x.end_ms,
          audio_path: x.audio_path !== null ? abs(x.audio_path) : b.audio_path !== undefined ? abs(b.audio_path) : voice,
        })),
      };
    }),
  }));
  return {
    width: size.width,
    height: size.height,
    fps: t.fps,
    duration_ms: t.duration_ms,
    options: { subtitles: t.options.subtitles, music: t.options.music, transitions: t.options.transitions },
    ...(t.music_path !== undefined ? { music_path: abs(t.music_path) } : {}),
    voice_path: voice,
    blocks,
  };
}
