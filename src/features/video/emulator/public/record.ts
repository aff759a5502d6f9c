/**
 * The `videos` row and its timeline: how generation, duplicate and export read and write videos.
 * Video statuses (not shown by the spec; docs/local-differences.md): `generating` while its
 * generation job runs, `done` with its timeline, `failed` when its job failed.
 */
import type { DB } from "../../../../local/types.js";
import type { VideoTimeline } from "./timeline.js";

export type VideoStatus = "generating" | "done" | "failed";

export interface VideoRow {
  id: string;
  space_id: string;
  status: VideoStatus;
  origin: "generation" | "duplicate";
  generation_id: string | null;
  parent_video_id: string | null;
  /** JSON of VideoTimeline; present exactly when `done`. */
  timeline: string | null;
  duration_ms: number | null;
  /** Media-dir-relative thumbnail (JPEG); present when `done`. */
  thumbnail_path: string | null;
  created_at: string;
  updated_at: string;
}

/** Any space's video by id (callers tell a missing video from another space's). */
export function readVideo(db: DB, id: string): VideoRow | undefined {
  return db.prepare("SELECT * FROM videos WHERE id = ?").get(id) as VideoRow | undefined;
}

export function listVideos(db: DB, spaceId?: string): VideoRow[] {
  return db.prepare("SELECT * FROM videos WHERE (@space IS NULL OR space_id = @space) ORDER BY created_at, rowid").all({ space: spaceId ?? null }) as VideoRow[];
}

export function timelineOf(row: Pick<VideoRow, "timeline">): VideoTimeline | undefined {
  return row.timeline ? (JSON.parse(row.timeline) as VideoTimeline) : undefined;
}

/** A video's own files live here (voice track, thumbnail); media-dir-relative. */
export function videoDir(videoId: string): string {
  return `videos/${videoId}`;
}

export function insertVideo(
  db: DB,
  v: Pick<VideoRow, "id" | "space_id" | "status" | "origin" | "generation_id" | "parent_video_id" | "created_at"> & {
    timeline?: VideoTimeline;
  },
): void {
  db.prepare(
    `INSERT INTO videos (id, space_id, status, origin, generation_id, parent_video_id, timeline, duration_ms, thumbnail_path, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    v.id,
    v.space_id,
    v.status,
    v.origin,
    v.generation_id,
    v.parent_video_id,
    v.timeline ? JSON.stringify(v.timeline) : null,
    v.timeline?.duration_ms ?? null,
    v.timeline?.thumbnail_path ?? null,
    v.created_at,
    v.created_at,
  );
}

/** `generating` → `done` with its timeline; false when the video was not generating any more. */
export function markVideoDone(db: DB, id: string, timeline: VideoTimeline, at: string): boolean {
  const r = db
    .prepare(
      `UPDATE videos SET status = 'done', timeline = ?, duration_ms = ?, thumbnail_path = ?, updated_at = ?
       WHERE id = ? AND status = 'generating'`,
    )
    .run(JSON.stringify(timeline), timeline.duration_ms, timeline.thumbnail_path, at, id);
  return r.changes === 1;
}

export function markVideoFailed(db: DB, id: string, at: string): boolean {
  const r = db.prepare(`UPDATE videos SET status = 'failed', updated_at = ? WHERE id = ? AND status = 'generating'`).run(at, id);
  return r.changes === 1;
}
