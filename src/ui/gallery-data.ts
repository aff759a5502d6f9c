/**
 * The gallery's items: every job of the history (src/cli/journal.ts), on any target, with what the
 * local instance knows of local ones now (status, progress, the full prompt, the file) and, for the
 * rest, the file `download` saved; and the instance's own jobs that the history does not know (those
 * apps made over HTTP, in every space). One card per video: its generation (or duplicate) with the
 * exports made of it. A video says what it is of (its prompt, its script's first line, its plan's
 * first words; a copy, what it copies). Filters are applied here, so the page and its JSON agree.
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
  /** The space of an instance job (null for the history's own, which may be on any target). */
  space: string | null;
  /** The exports of this card's video, latest first (one card per video). */
  exports: { id: string; status: string; src: string | null }[];
}

export interface GalleryFilter {
  kind?: string;
  target?: string;
  status?: string;
  text?: string;
  space?: string;
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
    space: (e as HistoryEntry & { space_id?: string }).space_id ?? null,
    exports: [],
  };
}

export function matches(item: GalleryItem, f: GalleryFilter): boolean {
  if (f.kind && item.media !== f.kind && item.kind !== f.kind) return false;
  if (f.target && item.target !== f.target) return false;
  if (f.status && item.status !== f.status) return false;
  if (f.space && item.space !== f.space) return false;
  const text = f.text?.trim().toLowerCase();
  if (text) {
    const hay = [item.prompt, item.id, item.model, item.video_id].filter(Boolean).join(" ").toLowerCase();
    if (!hay.includes(text)) return false;
  }
  return true;
}

export function galleryItems(s: GallerySources): GalleryItem[] {
  const known = new Set(s.history.map((e) => itemKey(e)));
  const own = s.db ? instanceJobs(s.db).filter((e) => !known.has(itemKey(e))) : [];
  const all = [...s.history, ...own].sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0));
  const items = all.map((e) => itemOf(e, s));
  if (s.db) for (const i of items) if (i.target === "local") i.prompt = captionOf(s.db, i) ?? i.prompt;
  return onePerVideo(items);
}

type Row = Record<string, unknown>;
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/**
 * The instance's jobs in every space, as history rows of the local target (what apps made over
 * HTTP, which this machine's history does not know). Read straight from its tables, newest first.
 */
export function instanceJobs(db: DB, limit = 500): (HistoryEntry & { space_id: string })[] {
  const rows = (sql: string): Row[] => {
    try {
      return db.prepare(sql).all(limit) as Row[];
    } catch {
      return []; // a table a newer schema renamed: the rest still shows
    }
  };
  const entry = (kind: HistoryEntry["kind"], r: Row, more: Partial<HistoryEntry> = {}) => ({
    kind,
    id: String(r.id),
    target: "local" as const,
    base_url: null,
    profile: "",
    model: text(r.model) ?? null,
    cost: typeof r.cost_milli === "number" ? r.cost_milli / 1000 : null,
    status: String(r.status),
    started_at: String(r.created_at),
    updated_at: String(r.created_at),
    saved: null,
    space_id: String(r.space_id),
    ...more,
  });
  return [
    ...rows("SELECT id, space_id, model, status, prompt, cost_milli, created_at FROM assets ORDER BY created_at DESC LIMIT ?").map((r) =>
      entry("asset", r, { prompt: String(r.prompt) }),
    ),
    ...rows("SELECT id, space_id, status, cost_milli, video_id, created_at FROM generations ORDER BY created_at DESC LIMIT ?").map((r) =>
      entry("generation", r, { video_id: String(r.video_id) }),
    ),
    ...rows("SELECT id, space_id, status, avatar_model AS model, cost_milli, video_id, created_at FROM exports ORDER BY created_at DESC LIMIT ?").map((r) =>
      entry("export", r, { video_id: String(r.video_id) }),
    ),
    ...rows("SELECT id, space_id, status, parent_video_id, created_at FROM videos WHERE origin = 'duplicate' ORDER BY created_at DESC LIMIT ?").map((r) =>
      entry("video", r, { video_id: String(r.id), ...(text(r.parent_video_id) ? { source_video_id: String(r.parent_video_id) } : {}) }),
    ),
  ];
}

const firstLine = (s: string) =>
  s
    .split("\n")
    .find((l) => l.trim() !== "")
    ?.trim() ?? s.trim();

/** What a video is of: its prompt, its script's first line, its plan's first words; a copy says so. */
export function videoCaption(db: DB, videoId: string, depth = 0): string | undefined {
  if (depth > 10) return undefined;
  let v: Row | undefined;
  try {
    v = db.prepare("SELECT origin, generation_id, parent_video_id FROM videos WHERE id = ?").get(videoId) as Row | undefined;
  } catch {
    return undefined;
  }
  if (!v) return undefined;
  if (v.origin === "duplicate") {
    const of = text(v.parent_video_id) ? videoCaption(db, String(v.parent_video_id), depth + 1) : undefined;
    return of ? `${of} (a copy)` : undefined;
  }
  const g = db.prepare("SELECT spec FROM generations WHERE id = ?").get(v.generation_id) as { spec?: string } | undefined;
  let spec: Row = {};
  try {
    spec = JSON.parse(g?.spec ?? "{}") as Row;
  } catch {
    return undefined;
  }
  const prompt = text(spec.prompt);
  if (prompt) return prompt;
  const script = text(spec.script);
  if (script) return `Script: ${firstLine(script)}`;
  if (Array.isArray(spec.plan) && spec.plan.length) {
    const words = spec.plan
      .map((b) => (b && typeof b === "object" ? (text((b as Row).text) ?? text((b as Row).script) ?? text((b as Row).prompt)) : undefined))
      .find(Boolean);
    return `Plan of ${spec.plan.length} block${spec.plan.length === 1 ? "" : "s"}${words ? `: ${firstLine(words)}` : ""}`;
  }
  return undefined;
}

/** The caption of a local card of a video (generation, duplicate, export): what the video is of. */
function captionOf(db: DB, i: GalleryItem): string | undefined {
  if (i.kind !== "generation" && i.kind !== "video" && i.kind !== "export") return undefined;
  const id = i.kind === "video" ? i.id : i.video_id;
  return id ? videoCaption(db, id) : undefined;
}

/**
 * One card per video: a generation's or a duplicate's card takes the exports of its video (the
 * latest finished one is what it plays); exports of a video with no such card make one card.
 */
function onePerVideo(items: GalleryItem[]): GalleryItem[] {
  const videoOf = (i: GalleryItem) => (i.kind === "video" ? i.id : i.kind === "generation" || i.kind === "export" ? i.video_id : null);
  const head = new Map<string, GalleryItem>();
  for (const i of items) {
    const v = videoOf(i);
    if (v && i.kind !== "export" && !head.has(`${i.target}:${v}`)) head.set(`${i.target}:${v}`, i);
  }
  const out: GalleryItem[] = [];
  for (const i of items) {
    const v = videoOf(i);
    if (!v || i.kind !== "export") {
      if (!v || head.get(`${i.target}:${v}`) === i) out.push(i);
      continue;
    }
    const key = `${i.target}:${v}`;
    const card = head.get(key);
    if (!card) {
      head.set(key, i);
      i.exports.push({ id: i.id, status: i.status, src: i.src });
      out.push(i);
      continue;
    }
    if (card === i) continue;
    card.exports.push({ id: i.id, status: i.status, src: i.src });
    if (!card.src && i.src) {
      card.src = i.src;
      card.poster ??= i.poster;
    }
  }
  return out;
}
