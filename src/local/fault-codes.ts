/**
 * What a fault rule may make an operation answer or a job end with: the codes the spec (and
 * hosted-facts) list for each operation, so a fault is always an answer the real service can give.
 */
import { JOB_ERROR_CODES } from "../contract/errors.js";

/** Answers any operation can give: a key refused, a plan missing, the window used up, the service failing. */
export const ANY_OPERATION_CODES = ["invalid_api_key", "plan_required", "rate_limit_exceeded", "internal_error", "service_unavailable"] as const;

/** Request error codes per operation (beyond ANY_OPERATION_CODES), from each endpoint's section. */
export const OPERATION_ERROR_CODES: Record<string, readonly string[]> = {
  folderCreate: ["missing_field", "invalid_value"],
  folderList: ["invalid_value"],
  assetModels: ["invalid_value"],
  assetModel: ["model_not_found"],
  assetPricing: ["missing_field", "model_not_found"],
  assetStart: ["missing_field", "invalid_value", "not_eligible"],
  assetStatus: ["asset_not_found"],
  avatarCreate: ["INVALID_VALUE", "INSUFFICIENT_CREDITS", "AVATAR_LIMIT_REACHED", "SPACE_NOT_FOUND", "FAILED_TO_PERSIST"],
  avatarEdit: [
    "MISSING_AVATAR_ID",
    "MISSING_LOOK_ID",
    "MISSING_PROMPT",
    "INVALID_WEBHOOK_URL",
    "NO_IMAGE_AVAILABLE",
    "INSUFFICIENT_CREDITS",
    "SPACE_NOT_FOUND",
    "AVATAR_NOT_FOUND",
    "LOOK_NOT_FOUND",
    "FAILED_TO_PERSIST",
  ],
  avatarStatus: ["INVALID_VALUE", "SPACE_NOT_FOUND", "AVATAR_NOT_FOUND", "LOOK_NOT_FOUND"],
  avatarList: ["INVALID_VALUE"],
  avatarLook: ["NOT_FOUND"],
  avatarGet: ["NOT_FOUND"],
  voiceList: ["invalid_value"],
  voiceGet: ["NOT_FOUND"],
  resourceVoices: ["invalid_value"],
  scriptGenerate: ["MISSING_FIELD", "INVALID_TYPE", "INVALID_VALUE", "INSUFFICIENT_CREDITS", "SCRIPT_GENERATION_FAILED"],
  generationStart: [
    "MISSING_CONTENT",
    "MISSING_FIELD",
    "MISSING_VOICE",
    "INSUFFICIENT_CREDITS",
    "INVALID_VOICE_ID",
    "INVALID_AVATAR_ID",
    "INVALID_FORMAT",
    "INVALID_PLAN",
    "PLAN_RESOLUTION_FAILED",
  ],
  generationStatus: ["JOB_NOT_FOUND", "UNAUTHORIZED_JOB"],
  videoDuplicate: [
    "MISSING_VIDEO_ID",
    "INVALID_TYPE",
    "INVALID_VOICE_ID",
    "INVALID_AVATAR_ID",
    "VIDEO_NOT_FOUND",
    "UNAUTHORIZED_VIDEO",
    "VIDEO_NOT_READY",
    "INTERNAL_ERROR",
  ],
  exportStart: [
    "MISSING_VIDEO_ID",
    "INVALID_FORMAT",
    "INVALID_AVATAR_MODEL",
    "INCOMPATIBLE_AVATAR_MODEL",
    "VIDEO_NOT_READY",
    "VIDEO_NOT_FOUND",
    "UNAUTHORIZED_VIDEO",
    "insufficient_credits",
  ],
  exportStatus: ["JOB_NOT_FOUND", "UNAUTHORIZED_JOB"],
};

/** The code a bare status means for an operation (`--status 404` on asset status is `asset_not_found`). */
export function defaultCodeFor(op: string, status: number): string | undefined {
  switch (status) {
    case 401:
      return "invalid_api_key";
    case 403:
      return "plan_required";
    case 429:
      return "rate_limit_exceeded";
    case 500:
      return "internal_error";
    case 503:
      return "service_unavailable";
    default: {
      const own = OPERATION_ERROR_CODES[op] ?? [];
      const byStatus: Record<number, RegExp> = { 400: /^(invalid_value|INVALID_VALUE|missing_field|MISSING_)/, 402: /credits|not_eligible/i, 404: /not_found/i };
      const re = byStatus[status];
      return re ? own.find((c) => re.test(c)) : undefined;
    }
  }
}

/** The operations that start a job, and what that job may fail with (and at which step). */
export const JOB_FAULTS: Record<string, { codes: readonly string[]; steps: readonly string[] }> = {
  assetStart: { codes: JOB_ERROR_CODES.asset, steps: [] },
  avatarCreate: { codes: JOB_ERROR_CODES.avatar, steps: [] },
  avatarEdit: { codes: JOB_ERROR_CODES.avatar, steps: [] },
  generationStart: {
    codes: JOB_ERROR_CODES.generation,
    steps: [
      "QUEUE",
      "MEDIA_UPLOAD",
      "SCRIPT_GENERATION",
      "VOICE_GENERATION",
      "TRANSCRIPTION",
      "SEARCH_MEDIA",
      "PLACE_BROLL",
      "ANIMATE_IMAGES",
      "DISPLAY_BROLL",
      "ASSEMBLY",
    ],
  },
  exportStart: { codes: JOB_ERROR_CODES.export, steps: ["render-audio", "avatar", "render"] },
};

/** Status reads whose `progress` / `progress_step` a `progress_backwards` rule lowers. */
export const PROGRESS_OPERATIONS = ["generationStatus", "exportStatus"] as const;

/** Webhook tasks (hosted-facts), the `op` of webhook rules. */
export const WEBHOOK_TASKS = ["asset_generation", "avatar_create", "avatar_edit", "video_generate", "video_export"] as const;
