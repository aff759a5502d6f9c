/**
 * What the local instance says of one job of the history now: status, step and progress, cost, and
 * the media files it made (media-dir-relative). Read straight from the instance's tables (no API
 * call, so the pages never spend the rate limit), and only by id.
 */
import { fromMilli } from "../contract/credits.js";
import type { JobKind } from "../cli/journal.js";
import type { DB } from "../local/types.js";

export type MediaKind = "image" | "video" | "audio" | "other";

export interface JobState {
  status: string;
  running: boolean;
  /** The step being done (generation and export jobs). */
  step: string | null;
  /** 0–100 where the job reports it; null where it does not (assets, looks). */
  progress: number | null;
  cost: number | null;
  prompt: string | null;
  model: string | null;
  media: MediaKind;
  /** The result, media-dir-relative, once finished. */
  file: string | null;
  poster: string | null;
  video_id: string | null;
  error: string | null;
  created_at: string | null;
}

const RUNNING = new Set(["pending", "generating", "processing", "queued", "running"]);

export const isRunningStatus = (status: string): boolean => RUNNING.has(status);

type Row = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const milli = (v: unknown): number | null => (typeof v === "number" ? fromMilli(v) : null);
const errorOf = (r: Row): string | null => (r.error_code || r.error_message ? [str(r.error_code), str(r.error_message)].filter(Boolean).join(": ") : null);

function asset(db: DB, id: string): JobState | undefined {
  const r = db.prepare("SELECT * FROM assets WHERE id = ?").get(id) as Row | undefined;
  if (!r) return undefined;
  const done = r.status === "completed";
  return {
    status: String(r.status),
    running: isRunningStatus(String(r.status)),
    step: null,
    progress: null,
    cost: milli(r.cost_milli),
    prompt: str(r.prompt),
    model: str(r.model),
    media: (str(r.type) ?? "other") as MediaKind,
    file: done ? str(r.file_path) : null,
    poster: done ? str(r.thumbnail_path) : null,
    video_id: null,
    error: errorOf(r),
    created_at: str(r.created_at),
  };
}

function look(db: DB, id: string): JobState | undefined {
  const r = db.prepare("SELECT * FROM looks WHERE id = ?").get(id) as Row | undefined;
  if (!r) return undefined;
  return {
    status: String(r.status),
    running: r.status === "pending",
    step: null,
    progress: null,
    cost: milli(r.cost_milli),
    prompt: str(r.prompt),
    model: null,
    media: "image",
    file: r.status === "ready" ? str(r.image_path) : null,
    poster: null,
    video_id: null,
    error: errorOf(r),
    created_at: str(r.created_at),
  };
}

/** The latest finished export of a video: what its player plays. */
export function latestExport(db: DB, videoId: string): { id: string; video_path: string; thumbnail_path: string | null } | undefined {
  return db
    .prepare(
      "SELECT id, video_path, thumbnail_path FROM exports WHERE video_id = ? AND status = 'completed' AND video_path IS NOT NULL ORDER BY finished_at DESC, rowid DESC LIMIT 1",
    )
    .get(videoId) as { id: string; video_path: string; thumbnail_path: string | null } | undefined;
}

function generation(db: DB, id: string): JobState | undefined {
  const r = db.prepare("SELECT * FROM generations WHERE id = ?").get(id) as Row | undefined;
  if (!r) return undefined;
  const videoId = String(r.video_id);
  const video = db.prepare("SELECT thumbnail_path FROM videos WHERE id = ?").get(videoId) as { thumbnail_path: string | null } | undefined;
  const exported = latestExport(db, videoId);
  return {
    status: String(r.status),
    running: isRunningStatus(String(r.status)),
    step: str(r.current_step),
    progress: typeof r.progress_step === "number" ? r.progress_step : null,
    cost: milli(r.cost_milli),
    prompt: null,
    model: null,
    media: "video",
    file: exported?.video_path ?? null,
    poster: video?.thumbnail_path ?? null,
    video_id: videoId,
    error: errorOf(r),
    created_at: str(r.created_at),
  };
}

function exportJob(db: DB, id: string): JobState | undefined {
  const r = db.prepare("SELECT * FROM exports WHERE id = ?").get(id) as Row | undefined;
  if (!r) return undefined;
  const done = r.status === "completed";
  return {
    status: String(r.status),
    running: isRunningStatus(String(r.status)),
    step: str(r.current_step),
    progress: typeof r.progress === "number" ? r.progress : null,
    cost: milli(r.cost_milli),
    prompt: null,
    model: str(r.avatar_model),
    media: "video",
    file: done ? str(r.video_path) : null,
    poster: done ? str(r.thumbnail_path) : null,
    video_id: str(r.video_id),
    error: errorOf(r),
    created_at: str(r.created_at),
  };
}

// Videos (duplicates) and scripts have no job row of their own to read.
const READERS: Partial<Record<JobKind, (db: DB, id: string) => JobState | undefined>> = { asset, look, generation, export: exportJob };

/** The job as the instance has it; undefined when it does not (another instance, or reset since). */
export function jobState(db: DB, kind: JobKind, id: string): JobState | undefined {
  const read = READERS[kind];
  if (!read) return undefined;
  try {
    return read(db, id);
  } catch {
    return undefined; // a table a newer schema renamed, a database being reset: the history still shows it
  }
}
