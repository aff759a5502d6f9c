/**
 * A stored video timeline (media-dir-relative paths) → the renderer's RenderSpec (absolute paths, the
 * export's output size). Field names are the same on both sides, so this resolves paths and makes
 * three choices the renderer leaves to its caller:
 *
 * - A supplied avatar video (`avatar_url` video, no look) plays on the video's clock: full screen
 *   where the avatar is alone (no media, or media `hide`), and beside media (`half`, `background`) in
 *   the look's place (`look_video`). Under `full` media the avatar is not seen.
 * - Sentences of supplied speech have no file of their own: the video's voice track is the soundtrack
 *   (`voice_path`), so their `audio_path` only names that track.
 * - `animate` stills move: the renderer zooms and pans them slowly over their sequence.
 */
import path from "node:path";
import type { RenderMedia, RenderSequence, RenderSpec } from "../../../../media/export/spec.js";
import type { VideoTimeline } from "../../../video/emulator/public/timeline.js";

export function renderSpecOf(t: VideoTimeline, size: { width: number; height: number }, mediaDir: string): RenderSpec {
  const abs = (rel: string) => path.join(mediaDir, rel);
  const voice = abs(t.voice_path);
  const blocks = t.blocks.map((b) => ({
    start_ms: b.start_ms,
    end_ms: b.end_ms,
    ...(b.audio_path !== undefined ? { audio_path: abs(b.audio_path) } : {}),
    sequences: b.sequences.map((s): RenderSequence => {
      const look = s.look_image_path !== null ? abs(s.look_image_path) : null;
      let media: RenderMedia | undefined = s.media
        ? {
            kind: s.media.kind,
            path: abs(s.media.path),
            show: s.media.show,
            ...(s.media.trim_start !== undefined ? { trim_start: s.media.trim_start } : {}),
            width: s.media.width,
            height: s.media.height,
            ...(s.media.duration_ms !== undefined ? { duration_ms: s.media.duration_ms } : {}),
            ...(s.media.animate && s.media.kind === "image" ? { animate: true } : {}),
          }
        : undefined;
      let lookVideo: RenderSequence["look_video"];
      if (look === null && s.avatar_video_path !== undefined) {
        if (!media || media.show === "hide") {
          media = { kind: "video", path: abs(s.avatar_video_path), show: "full", trim_start: s.start_ms / 1000 };
        } else if (media.show !== "full") {
          lookVideo = { path: abs(s.avatar_video_path), start_s: s.start_ms / 1000 };
        }
      }
      return {
        text: s.text,
        start_ms: s.start_ms,
        end_ms: s.end_ms,
        look_image_path: look,
        ...(lookVideo ? { look_video: lookVideo } : {}),
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
