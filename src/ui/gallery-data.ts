/**
 * The gallery's items: every job of the history (src/cli/journal.ts), on any target, with what the
 * local instance knows of local ones now (status, progress, the full prompt, the file) and, for the
 * rest, the file `download` saved. Filters are applied here, so the page and its JSON agree.
 */
import fs from "node:fs";
import path from "node:path";
import type { HistoryEntry } from "../cli/journal.js";
import type { DB } from "../local/types.js";
import { isRunningStatus, jobState, type JobState, type MediaKind } from "./jobs-state.js";

export interface GalleryItem {
  /** `target:kind:id`, how the page and its script name an item. */
  key: string;
  kind: HistoryEntry["kind"];
  id: string;
  target: string;
  media: MediaKind;
  model: string | null;
  cost: number | null;
  status: string;
  running: boolean;
  /** The local instance knows this job: its progress can be polled (`/ui/api/jobs`). */
  live: boolean;
  step: string | null;
  progress: number | null;
  prompt: string | null;
  created_at: string;
  error: string | null;
  /** Where the page gets the result: a signed media URL of the instance, or the saved file. */
  src: string | null;
  poster: string | null;
  video_id: string | null;
}

export interface GalleryFilter {
  kind?: string;
  target?: string;
  status?: string;
  text?: string;
}

export const itemKey = (e: Pick<HistoryEntry, "target" | "kind" | "id">): string => `${e.target}:${e.kind}:${e.id}`;

const EXT_MEDIA: Record<string, MediaKind> = {
  ".png": "image",
  ".jpg": "image",
  ".jpeg": "image",
  ".webp": "image",
  ".gif": "image",
  ".mp4": "video",
  ".m4v": "video",
  ".mov": "video",
  ".webm": "video",
  ".mp3": "audio",
  ".wav": "audio",
  ".m4a": "audio",
  ".ogg": "audio",
};

export function mediaOfFile(file: string | null | undefined): MediaKind {
  return (file && EXT_MEDIA[path.extname(file).toLowerCase()]) || "other";
}

/** What a hosted (or forgotten local) job is, from its saved file, else its kind and model name. */
function guessMedia(e: HistoryEntry): MediaKind {
  const byFile = mediaOfFile(e.saved);
  if (byFile !== "other") return byFile;
  if (e.kind === "look") return "image";
  if (e.kind === "generation" || e.kind === "export") return "video";
  if (/^img|image/i.test(e.model ?? "")) return "image";
  if (/^vid|video/i.test(e.model ?? "")) return "video";
  if (/audio|voice|speech|tts/i.test(e.model ?? "")) return "audio";
  return "other";
}

export interface GallerySources {
  history: readonly HistoryEntry[];
  /** The local instance's database (local items), if open. */
  db?: DB;
  /** A signed URL for a media-dir-relative path. */
  mediaUrl: (rel: string) => string;
  /** The page's URL of a saved file of the history. */
  savedUrl: (key: string) => string;
}

function savedExists(file: string | null): boolean {
  try {
    return !!file && fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function itemOf(e: HistoryEntry, s: GallerySources): GalleryItem {
  const key = itemKey(e);
  const live: JobState | undefined = e.target === "local" && s.db ? jobState(s.db, e.kind, e.id) : undefined;
  const saved = savedExists(e.saved) ? s.savedUrl(key) : null;
  const status = live?.status ?? e.status;
  return {
    key,
    kind: e.kind,
    id: e.id,
    target: e.target,
    media: live?.media ?? guessMedia(e),
    model: live?.model ?? e.model,
    cost: live?.cost ?? e.cost,
    status,
    running: live ? live.running : isRunningStatus(status),
    live: live !== undefined,
    step: live?.step ?? null,
    progress: live?.progress ?? null,
    prompt: live?.prompt ?? e.prompt ?? null,
    created_at: live?.created_at ?? e.started_at,
    error: live?.error ?? null,
    src: live?.file ? s.mediaUrl(live.file) : saved,
    poster: live?.poster ? s.mediaUrl(live.poster) : null,
    video_id: live?.video_id ?? e.video_id ?? null,
  };
}

export function matches(item: GalleryItem, f: GalleryFilter): boolean {
  if (f.kind && item.media !== f.kind && item.kind !== f.kind) return false;
  if (f.target && item.target !== f.target) return false;
  if (f.status && item.status !== f.status) return false;
  const text = f.text?.trim().toLowerCase();
  if (text) {
    const hay = [item.prompt, item.id, item.model, item.video_id].filter(Boolean).join(" ").toLowerCase();
    if (!hay.includes(text)) return false;
  }
  return true;
}

export function galleryItems(s: GallerySources): GalleryItem[] {
  return s.history.map((e) => itemOf(e, s));
}
