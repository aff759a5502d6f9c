/**
 * A video's thumbnail: one frame in the video's aspect, at most 640 px on its long side, JPEG. It
 * shows the first look's picture (scaled to cover, centre crop), else the first media (its first
 * frame), else a title card of the first words. No video is rendered at generation; the export
 * makes the real thing. A picture's thumbnail at a size is drawn once per instance (cachedThumbnail).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { drawCard, imageLabel, THUMBNAIL_JPEG_ARGS } from "../../../../media/image.js";
import { removeQuietly, tempPathFor } from "../../../../media/atomic.js";
import { pruneCache } from "../../../../media/fetch.js";
import { DECODE_LIMIT_ARGS } from "../../../../media/image-header.js";
import { QUIET, runTool } from "../../../../media/run.js";
import { getTools } from "../../../../media/tools.js";
import { sequencesOf, type VideoTimeline } from "./timeline.js";

export const THUMBNAIL_MAX_SIDE = 640;
/** The kept thumbnails (about 30 kB each) stay under this, and unused ones go after 7 days. */
const THUMBNAIL_CACHE_BYTES = 64 * 1024 * 1024;

/** The thumbnail's size: the video's aspect, long side 640, both sides even. */
export function thumbnailSize(width: number, height: number): { width: number; height: number } {
  const scale = THUMBNAIL_MAX_SIDE / Math.max(width, height);
  const even = (n: number) => Math.max(2, 2 * Math.round((n * scale) / 2));
  return { width: even(width), height: even(height) };
}

/** What the thumbnail is made from: a media-dir-relative picture or video, or the text of a card. */
export function thumbnailSource(t: Pick<VideoTimeline, "blocks">): { file: string } | { text: string } {
  const seqs = sequencesOf(t).map((x) => x.sequence);
  const look = seqs.find((s) => s.look_image_path)?.look_image_path ?? seqs.find((s) => s.avatar_video_path)?.avatar_video_path;
  if (look) return { file: look };
  const media = seqs.find((s) => s.media)?.media;
  if (media) return { file: media.path };
  return { text: seqs.find((s) => s.text)?.text ?? "" };
}

/** How a picture or video becomes a thumbnail of w×h: scaled to cover, centre crop. */
export function coverFilter(w: number, h: number): string {
  return `scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1`;
}

/**
 * Where the thumbnail of a picture or video in the media dir, at a size, is kept once drawn: many
 * videos open on the same look, and the same look at the same size makes the same JPEG. Keyed by
 * the file's path, size and time, so a changed file is drawn again. `<home>/local/cache/thumbnails`.
 */
export function cachedThumbnail(mediaDir: string, file: string, size: { width: number; height: number }): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(path.join(mediaDir, file));
  } catch {
    return undefined;
  }
  const key = crypto.createHash("sha256").update(`${file}|${st.size}|${st.mtimeMs}|${size.width}x${size.height}`).digest("hex").slice(0, 32);
  return path.join(path.dirname(mediaDir), "cache", "thumbnails", `${key}.jpg`);
}

/** Keeps a drawn thumbnail for the next video on the same picture; a failure only costs the next one a draw. */
function remember(drawn: string, cached: string): void {
  let tmp: string | undefined;
  try {
    tmp = tempPathFor(cached);
    fs.copyFileSync(drawn, tmp);
    fs.renameSync(tmp, cached);
    pruneCache(path.dirname(cached), { maxBytes: THUMBNAIL_CACHE_BYTES, keep: cached });
  } catch {
    // the cache is an optimisation
    if (tmp) removeQuietly(tmp);
  }
}

/** Marks a kept thumbnail as used now, so the least recently used go first when the cache is full. */
function touch(cached: string): void {
  try {
    const now = new Date();
    fs.utimesSync(cached, now, now);
  } catch {
    // the cache is an optimisation
  }
}

export async function makeThumbnail(mediaDir: string, t: Pick<VideoTimeline, "blocks" | "width" | "height">, outRel: string, signal?: AbortSignal): Promise<void> {
  const size = thumbnailSize(t.width, t.height);
  const src = thumbnailSource(t);
  const out = path.join(mediaDir, outRel);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp.jpg`;
  const cached = "file" in src ? cachedThumbnail(mediaDir, src.file, size) : undefined;
  let workDir: string | undefined;
  try {
    if (cached && fs.existsSync(cached)) {
      fs.copyFileSync(cached, tmp);
      fs.renameSync(tmp, out);
      touch(cached);
      return;
    }
    const tools = await getTools();
    const { width: w, height: h } = size;
    if (!("file" in src)) {
      // A title card is drawn at the thumbnail's size, straight to JPEG.
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-thumb-"));
      await drawCard(tools, { width: w, height: h, prompt: src.text || "Untitled video", label: imageLabel("video", w, h), references: [] }, workDir, tmp, signal, true);
      fs.renameSync(tmp, out);
      return;
    }
    const input = path.join(mediaDir, src.file);
    await runTool(
      tools.ffmpeg,
      [...QUIET, ...DECODE_LIMIT_ARGS, "-i", `file:${input}`, "-frames:v", "1", "-vf", coverFilter(w, h), ...THUMBNAIL_JPEG_ARGS, `file:${tmp}`],
      signal ? { signal } : {},
    );
    if (cached) remember(tmp, cached);
    fs.renameSync(tmp, out);
  } finally {
    fs.rmSync(tmp, { force: true });
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}
