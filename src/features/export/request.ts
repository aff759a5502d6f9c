/**
 * POST /export/start, the rules: every field's check in the documented order, the output size, the
 * avatar model, and what the price depends on. Pure: the video and the looks come in through
 * `ExportLookups`, so the rules are table-tested without an instance.
 *
 * Order (docs/local-differences.md, "Exports"): MISSING_VIDEO_ID (absent, null, "") and a video_id
 * that is not a string (INVALID_VALUE) → INVALID_FORMAT (format, then width, height) →
 * INVALID_AVATAR_MODEL → webhook_url (INVALID_VALUE) → VIDEO_NOT_FOUND (404) → UNAUTHORIZED_VIDEO
 * (403) → VIDEO_NOT_READY → INCOMPATIBLE_AVATAR_MODEL. The handler checks credits (402) last.
 */
import { exportCredits } from "../../contract/pricing.js";
import { exportSize, type ExportFormat } from "../../media/export/spec.js";
import { MODEL_AVAILABLE } from "../avatar/contract.js";
import { codeError } from "../generation/errors.js";
import type { VideoFormat } from "../generation/contract.js";
import { timelineOf, type VideoRow } from "../video/record.js";
import { sequencesOf, type VideoTimeline } from "../video/timeline.js";

export const EXPORT_FORMATS = ["vertical", "square", "ads", "horizontal", "custom"] as const;
export const MAX_EXPORT_SIDE = 5000;
/** The avatar model used when the request names none (the hosted service "picks a default"). */
export const DEFAULT_AVATAR_MODEL = "standard";

export interface ExportLookups {
  /** Any space's video by id (the rules tell a missing one from another space's). */
  video(id: string): VideoRow | undefined;
  /** `model_available` of a look (space or catalog, any status); undefined when it does not exist. */
  lookModels(id: string): readonly string[] | undefined;
}

/** A checked request: what the job renders and what the price depends on. */
export interface ExportPlan {
  video: VideoRow;
  timeline: VideoTimeline;
  format: VideoFormat;
  /** The output size: the format's, or custom rounded up to even. */
  width: number;
  height: number;
  /** Size notes (odd sides rounded, sides above 4096). */
  warnings: string[];
  avatar_model: string;
  /** Whether the request named the model (an unnamed default is never checked against the looks). */
  avatar_model_given: boolean;
  /** Seconds the avatar is on screen (sequences showing a look or avatar video, unless media covers it). */
  avatar_seconds: number;
  webhook_url: string | null;
}

const absent = (v: unknown) => v === undefined || v === null;

function httpUrlProblem(s: string): string | undefined {
  if (!/^https?:\/\//i.test(s.trim())) return "must be an http(s) URL";
  try {
    new URL(s.trim());
    return undefined;
  } catch {
    return "is not a valid URL";
  }
}

/** Milliseconds the avatar is visible: a look or avatar video, and no `full` media over it. */
export function avatarOnScreenMs(t: Pick<VideoTimeline, "blocks">): number {
  return sequencesOf(t)
    .map((x) => x.sequence)
    .filter((s) => (s.look_image_path !== null || s.avatar_video_path !== undefined) && s.media?.show !== "full")
    .reduce((n, s) => n + (s.end_ms - s.start_ms), 0);
}

/** The distinct looks a video shows, in order of first appearance. */
export function looksOf(t: Pick<VideoTimeline, "blocks">): string[] {
  return [...new Set(sequencesOf(t).flatMap((x) => (x.sequence.look_id ? [x.sequence.look_id] : [])))];
}

/** The output size: the format's; custom takes width/height (defaults 1080×1920, the renderer's) rounded up to even. */
function outputSize(format: VideoFormat, custom: { width?: number; height?: number }): { width: number; height: number; warnings: string[] } {
  const s = exportSize(format as ExportFormat, custom);
  return { width: s.width, height: s.height, warnings: s.warnings };
}

export function validateExportStart(input: Record<string, unknown>, spaceId: string, lookups: ExportLookups): ExportPlan {
  // video_id: required, a string.
  const vid = input.video_id;
  if (absent(vid) || vid === "") throw codeError("MISSING_VIDEO_ID", "video_id is required", "video_id");
  if (typeof vid !== "string") throw codeError("INVALID_VALUE", "video_id must be a string", "video_id");
  const videoId = vid.trim();
  if (videoId === "") throw codeError("MISSING_VIDEO_ID", "video_id is required", "video_id");

  // format, width, height: what can be judged without the video.
  let format: VideoFormat | undefined;
  if (!absent(input.format)) {
    const f = input.format;
    if (typeof f !== "string" || !(EXPORT_FORMATS as readonly string[]).includes(f)) {
      throw codeError("INVALID_FORMAT", `format must be one of ${EXPORT_FORMATS.join(", ")}`, "format");
    }
    format = f as VideoFormat;
  }
  const custom: { width?: number; height?: number } = {};
  for (const k of ["width", "height"] as const) {
    const v = input[k];
    if (absent(v)) continue;
    if (format !== "custom") {
      throw codeError("INVALID_FORMAT", `${k} is only accepted with format custom (give "format": "custom")`, k);
    }
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_EXPORT_SIDE) {
      throw codeError("INVALID_FORMAT", `${k} must be a whole number of pixels from 1 to ${MAX_EXPORT_SIDE}`, k);
    }
    custom[k] = v;
  }

  // avatar_model: one of the spec's model_available values.
  let avatarModel: string = DEFAULT_AVATAR_MODEL;
  const modelGiven = !absent(input.avatar_model);
  if (modelGiven) {
    const m = input.avatar_model;
    if (typeof m !== "string" || !(MODEL_AVAILABLE as readonly string[]).includes(m)) {
      throw codeError("INVALID_AVATAR_MODEL", `avatar_model must be one of ${MODEL_AVAILABLE.join(", ")}`, "avatar_model");
    }
    avatarModel = m;
  }

  let webhookUrl: string | null = null;
  if (!absent(input.webhook_url)) {
    const w = input.webhook_url;
    const why = typeof w === "string" ? httpUrlProblem(w) : "must be a string";
    if (why) throw codeError("INVALID_VALUE", `webhook_url ${why}`, "webhook_url");
    webhookUrl = (w as string).trim();
  }

  // The video.
  const video = lookups.video(videoId);
  if (!video) throw codeError("VIDEO_NOT_FOUND", `Video not found: ${videoId}`);
  if (video.space_id !== spaceId) throw codeError("UNAUTHORIZED_VIDEO", `Video ${videoId} does not belong to this space`);
  const timeline = video.status === "done" ? timelineOf(video) : undefined;
  if (!timeline) throw codeError("VIDEO_NOT_READY", `Video ${videoId} is ${video.status}: only a done video can be exported`);

  // Without a format the video's own is used (and its own size when that is custom).
  const fmt: VideoFormat = format ?? timeline.format;
  const size = outputSize(fmt, format === undefined && fmt === "custom" ? { width: timeline.width, height: timeline.height } : custom);

  if (modelGiven) {
    for (const look of looksOf(timeline)) {
      const models = lookups.lookModels(look);
      if (!models?.includes(avatarModel)) {
        const has = models ? `its models: ${models.join(", ")}` : "the look no longer exists";
        throw codeError("INCOMPATIBLE_AVATAR_MODEL", `avatar_model ${avatarModel} is not available for look ${look} (${has})`, "avatar_model");
      }
    }
  }

  return {
    video,
    timeline,
    format: fmt,
    width: size.width,
    height: size.height,
    warnings: size.warnings,
    avatar_model: avatarModel,
    avatar_model_given: modelGiven,
    avatar_seconds: avatarOnScreenMs(timeline) / 1000,
    webhook_url: webhookUrl,
  };
}

/** The price of an export (contract/pricing.ts `exportCredits`) for a checked request. */
export function exportPrice(plan: Pick<ExportPlan, "format" | "width" | "height" | "timeline" | "avatar_model" | "avatar_seconds">, firstExport: boolean): number {
  return exportCredits({
    firstExport,
    format: plan.format,
    width: plan.width,
    height: plan.height,
    durationSeconds: plan.timeline.duration_ms / 1000,
    avatarModel: plan.avatar_model,
    avatarSeconds: plan.avatar_seconds,
  });
}
