/**
 * The `exports` row (migration 7) and where an export's files live. Everything an export writes is
 * under `exports/<job_id>/` in the media dir: each attempt renders into its own `attempt-…` folder,
 * and the job's commit moves the verified files to their published names (`video.mp4`,
 * `thumbnail.jpg`), so nothing half-written is ever named by a record or served.
 */
import type { LocalInstanceApi } from "../../../local/types.js";
import type { VideoFormat } from "../../generation/contract.js";

export type ExportStatus = "pending" | "processing" | "completed" | "failed";
export type ExportStepName = "render-audio" | "avatar" | "render";

export interface ExportRow {
  id: string;
  space_id: string;
  video_id: string;
  status: ExportStatus;
  current_step: ExportStepName;
  progress: number;
  format: VideoFormat;
  width: number;
  height: number;
  avatar_model: string;
  first_export: number;
  cost_milli: number;
  webhook_url: string | null;
  webhook_video_url: string | null;
  webhook_thumbnail_url: string | null;
  simulate: string | null;
  video_path: string | null;
  thumbnail_path: string | null;
  tool_paths: string | null;
  ffmpeg: string | null;
  xfade: number | null;
  warnings: string | null;
  render_ms: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export function readExport(instance: Pick<LocalInstanceApi, "db">, id: string | null | undefined): ExportRow | undefined {
  if (!id) return undefined;
  return instance.db.prepare("SELECT * FROM exports WHERE id = ?").get(id) as ExportRow | undefined;
}

/** Whether a video already has an export that counts (pending, processing or completed). */
export function hasCountingExport(instance: Pick<LocalInstanceApi, "db">, videoId: string): boolean {
  return !!instance.db.prepare("SELECT 1 FROM exports WHERE video_id = ? AND status <> 'failed' LIMIT 1").get(videoId);
}

/** The export's folder, media-dir-relative. */
export function exportDir(jobId: string): string {
  return `exports/${jobId}`;
}

/** Published names, media-dir-relative (known at start, so webhook links can be signed then). */
export function publishedPaths(jobId: string): { video: string; thumbnail: string } {
  return { video: `${exportDir(jobId)}/video.mp4`, thumbnail: `${exportDir(jobId)}/thumbnail.jpg` };
}

/** Export download links are valid for 7 days from completion (the spec's "7", in days as for assets). */
export const EXPORT_URL_TTL_SECONDS = 7 * 24 * 3600;
