/** The `assets` row, the params the worker renders from, and the Asset record built from them. */
import type { Asset, GenerationParams, ReferenceItem } from "../../contract.js";
import { fromMilli } from "../../../../contract/credits.js";
import type { RenderMode } from "../catalog/models.js";
import type { ResolvedRef } from "./refs.js";
import type { DB, UrlBuilder } from "../../../../local/types.js";

export interface AssetRow {
  id: string;
  space_id: string;
  type: "image" | "video" | "audio";
  model: string;
  status: "pending" | "generating" | "completed" | "failed";
  prompt: string;
  aspect_ratio: string | null;
  resolution: string | null;
  duration: number | null;
  refs: string | null;
  params: string;
  cost_milli: number;
  file_name: string;
  folder_id: string | null;
  parent_media_id: string | null;
  webhook_url: string | null;
  simulate: string | null;
  /** Relative to the media dir. */
  file_path: string;
  thumbnail_path: string | null;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  finished_at: string | null;
}

/** What the worker needs beyond the row's columns. */
export interface RenderParams {
  render: RenderMode;
  audio: boolean;
  settings: Record<string, boolean | string>;
  references: ResolvedRef[];
  slots: Partial<Record<string, ResolvedRef>>;
  elements: { name: string; images: ResolvedRef[] }[];
  avatarDescription: string | null;
  /** RequestContext.allowPrivateNetwork of the request: the worker fetches URLs under the same policy. */
  allowPrivateNetwork?: boolean;
  /** URLs for the completion webhook, built when the request came in (the worker has no server). */
  urls: { media: string; thumbnail: string | null };
}

/** An asset row without the render params, which only the worker needs (and which are the row's bulk). */
export type AssetRecordRow = Omit<AssetRow, "params">;

const RECORD_COLUMNS = `id, space_id, type, model, status, prompt, aspect_ratio, resolution, duration, refs, cost_milli,
  file_name, folder_id, parent_media_id, webhook_url, simulate, file_path, thumbnail_path, width, height,
  duration_seconds, error_code, error_message, created_at, finished_at`;

export function readAsset(db: DB, spaceId: string, id: string): AssetRecordRow | undefined {
  return db.prepare(`SELECT ${RECORD_COLUMNS} FROM assets WHERE id = ? AND space_id = ?`).get(id, spaceId) as AssetRecordRow | undefined;
}

/**
 * The Asset record with the spec's presence rules: `url` only when completed, `error` only when
 * failed, `thumbnail_url` and `duration_seconds` for videos only, `width`/`height` when known,
 * `generation_params.references` omitted when no reference was used.
 */
export function toAsset(row: AssetRecordRow, urls: UrlBuilder): Asset {
  const params: GenerationParams = { model: row.model, prompt: row.prompt };
  if (row.aspect_ratio !== null) params.aspect_ratio = row.aspect_ratio;
  if (row.resolution !== null) params.resolution = row.resolution;
  if (row.duration !== null) params.duration = row.duration;
  if (row.refs !== null) params.references = JSON.parse(row.refs) as ReferenceItem[];

  const asset: Asset = {
    asset_id: row.id,
    status: row.status,
    type: row.type,
    cost: fromMilli(row.cost_milli),
    created_at: row.created_at,
    generation_params: params,
  };
  if (row.status === "completed") asset.url = urls.media(row.file_path);
  if (row.type === "video" && row.status === "completed" && row.thumbnail_path) {
    asset.thumbnail_url = urls.media(row.thumbnail_path);
  }
  if (row.width !== null && row.height !== null) {
    asset.width = row.width;
    asset.height = row.height;
  }
  if (row.type === "video" && row.duration_seconds !== null) asset.duration_seconds = row.duration_seconds;
  if (row.status === "failed") asset.error = { code: row.error_code ?? "generation_failed", message: row.error_message ?? "Generation failed" };
  // Key order as the spec's table lists the fields.
  const order = ["asset_id", "status", "type", "url", "thumbnail_url", "width", "height", "duration_seconds", "cost", "created_at", "generation_params", "error"];
  return Object.fromEntries(order.filter((k) => k in asset).map((k) => [k, (asset as Record<string, unknown>)[k]])) as Asset;
}
