/**
 * POST /export/start, the rules that need the instance: the avatar model this instance knows, the
 * video, the output size, the looks' models, and what the price depends on. Pure: the video and the
 * looks come in through `ExportLookups`, so the rules are table-tested without an instance.
 *
 * Order (docs/local-differences.md, "Exports"): the contract first, at the door (contract.ts):
 * MISSING_VIDEO_ID (absent, null, "") and a video_id that is not a string (INVALID_VALUE) →
 * INVALID_FORMAT (format, then width, height) → avatar_model not a name (INVALID_AVATAR_MODEL) →
 * webhook_url (INVALID_VALUE); then here: an avatar model no look of this instance offers
 * (INVALID_AVATAR_MODEL) → VIDEO_NOT_FOUND (404) → UNAUTHORIZED_VIDEO (403) → VIDEO_NOT_READY →
 * INCOMPATIBLE_AVATAR_MODEL. The handler checks credits (402) last.
 */
import { exportCredits } from "../../../contract/pricing.js";
import { exportSize, type ExportFormat } from "../../../media/export/spec.js";
import { MODEL_AVAILABLE } from "../../avatar/contract.js";
import type { ExportStartInput } from "../contract.js";
import { DEFAULT_AVATAR_MODEL } from "../../../contract/export-formats.js";
import { codeError } from "../../generation/emulator/public/errors.js";
import type { VideoFormat } from "../../generation/contract.js";
import { timelineOf, type VideoRow } from "../../video/emulator/public/record.js";
import { sequencesOf, type VideoTimeline } from "../../video/emulator/public/timeline.js";

export { DEFAULT_AVATAR_MODEL };

export interface ExportLookups {
  /** Any space's video by id (the rules tell a missing one from another space's). */
  video(id: string): VideoRow | undefined;
  /** `model_available` of a look (space or catalog, any status); undefined when it does not exist. */
  lookModels(id: string): readonly string[] | undefined;
  /** Every avatar model a look of this instance offers (the space's looks and the catalog's). */
  knownModels(): ReadonlySet<string>;
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

/**
 * An export request the contract accepted, judged against this instance: a model no look here offers
 * (the spec's names and every look's `model_available`, synced ones included) is INVALID_AVATAR_MODEL.
 */
export function validateExportStart(input: ExportStartInput, spaceId: string, lookups: ExportLookups): ExportPlan {
  // An optional field sent as null is read as not given.
  const videoId = input.video_id.trim();
  const format = (input.format ?? undefined) as VideoFormat | undefined;
  const custom: { width?: number; height?: number } = {};
  if (input.width != null) custom.width = input.width;
  if (input.height != null) custom.height = input.height;

  const modelGiven = input.avatar_model != null;
  const avatarModel = input.avatar_model?.trim() ?? DEFAULT_AVATAR_MODEL;
  if (modelGiven && !(MODEL_AVAILABLE as readonly string[]).includes(avatarModel) && !lookups.knownModels().has(avatarModel)) {
    throw codeError("INVALID_AVATAR_MODEL", `avatar_model ${avatarModel} is offered by no look of this instance (see the looks' model_available)`, "avatar_model");
  }
  const webhookUrl = input.webhook_url?.trim() ?? null;

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
