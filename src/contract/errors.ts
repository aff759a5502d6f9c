/** The service's error codes and bodies: building them, and reading one back. */
// The zod schemas of these bodies are in ./error-schemas.ts: errors are built on every request and
// every failed command, which must not load zod.
export type { ErrorBody, ErrorDetail } from "./error-schemas.js";
import type { ErrorBody, ErrorDetail } from "./error-schemas.js";

export type ErrorShape = "envelope" | "code" | "credits" | "bare";

/**
 * Every error code the spec names, with its HTTP status and default body shape.
 * Lower-case codes come from the spec's table; upper-case ones from the endpoint sections, whose
 * statuses the spec leaves unstated: the choices are recorded in docs/local-differences.md.
 */
export const ERROR_CODES = {
  // lower-case, spec table
  invalid_api_key: { status: 401, shape: "envelope" },
  plan_required: { status: 403, shape: "envelope" },
  rate_limit_exceeded: { status: 429, shape: "envelope" },
  missing_content: { status: 400, shape: "envelope" },
  missing_voice: { status: 400, shape: "envelope" },
  invalid_voice_id: { status: 400, shape: "envelope" },
  invalid_avatar_id: { status: 400, shape: "envelope" },
  invalid_format: { status: 400, shape: "envelope" },
  insufficient_credits: { status: 402, shape: "envelope" },
  job_not_found: { status: 404, shape: "envelope" },
  unauthorized_job: { status: 403, shape: "envelope" },
  video_not_found: { status: 404, shape: "envelope" },
  missing_field: { status: 400, shape: "envelope" },
  invalid_value: { status: 400, shape: "envelope" },
  not_eligible: { status: 402, shape: "envelope" }, // 402 for credits, 403 for plan: callers pass the status
  model_not_found: { status: 404, shape: "envelope" },
  asset_not_found: { status: 404, shape: "envelope" },
  not_found: { status: 404, shape: "envelope" }, // unknown path on the served instance
  method_not_allowed: { status: 405, shape: "envelope" },
  payload_too_large: { status: 413, shape: "envelope" },
  internal_error: { status: 500, shape: "envelope" },
  not_implemented: { status: 501, shape: "envelope" },
  service_unavailable: { status: 503, shape: "envelope" }, // the local instance's storage is full, read-only or gone
  // upper-case, per endpoint
  INVALID_VALUE: { status: 400, shape: "code" },
  INSUFFICIENT_CREDITS: { status: 402, shape: "credits" },
  AVATAR_LIMIT_REACHED: { status: 403, shape: "code" },
  SPACE_NOT_FOUND: { status: 404, shape: "code" },
  FAILED_TO_PERSIST: { status: 500, shape: "code" },
  GENERATION_FAILED: { status: 500, shape: "code" },
  MISSING_AVATAR_ID: { status: 400, shape: "code" },
  MISSING_LOOK_ID: { status: 400, shape: "code" },
  MISSING_PROMPT: { status: 400, shape: "code" },
  INVALID_WEBHOOK_URL: { status: 400, shape: "code" },
  NO_IMAGE_AVAILABLE: { status: 400, shape: "code" },
  AVATAR_NOT_FOUND: { status: 404, shape: "bare" },
  LOOK_NOT_FOUND: { status: 404, shape: "code" },
  NOT_FOUND: { status: 404, shape: "code" },
  MISSING_CONTENT: { status: 400, shape: "code" },
  MISSING_FIELD: { status: 400, shape: "code" },
  MISSING_VOICE: { status: 400, shape: "code" },
  INVALID_VOICE_ID: { status: 400, shape: "code" },
  INVALID_AVATAR_ID: { status: 400, shape: "code" },
  INVALID_FORMAT: { status: 400, shape: "code" },
  INVALID_PLAN: { status: 400, shape: "envelope" },
  PLAN_RESOLUTION_FAILED: { status: 400, shape: "code" },
  MISSING_VIDEO_ID: { status: 400, shape: "code" },
  INVALID_TYPE: { status: 400, shape: "code" },
  VIDEO_NOT_FOUND: { status: 404, shape: "code" },
  UNAUTHORIZED_VIDEO: { status: 403, shape: "code" },
  VIDEO_NOT_READY: { status: 400, shape: "code" },
  INTERNAL_ERROR: { status: 500, shape: "code" },
  SCRIPT_GENERATION_FAILED: { status: 500, shape: "code" },
  JOB_NOT_FOUND: { status: 404, shape: "code" },
  UNAUTHORIZED_JOB: { status: 403, shape: "code" },
  INVALID_AVATAR_MODEL: { status: 400, shape: "code" },
  INCOMPATIBLE_AVATAR_MODEL: { status: 400, shape: "code" },
} as const satisfies Record<string, { status: number; shape: ErrorShape }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes a finished job may carry in its `error.code` (never HTTP errors of a request). */
export const JOB_ERROR_CODES = {
  asset: ["generation_failed", "insufficient_credits", "render_failed", "reference_unavailable"],
  avatar: ["GENERATION_FAILED", "LOOK_GENERATION_FAILED"],
  generation: ["GENERATION_FAILED", "SCRIPT_GENERATION_FAILED", "VOICE_GENERATION_FAILED", "AVATAR_PROCESSING_FAILED", "MEDIA_PROCESSING_FAILED", "ASSEMBLY_FAILED"],
  export: ["EXPORT_FAILED", "ENCODING_FAILED", "FORMAT_CONVERSION_FAILED", "STORAGE_FAILED"],
} as const;

export interface ErrorOptions {
  field?: string;
  /** Overrides the code's default status (e.g. 403 for a plan-gated `not_eligible`). */
  status?: number;
  /** Overrides the code's default body shape. */
  shape?: ErrorShape;
  /** Short text for `error`; defaults to the message. */
  error?: string;
  required?: number;
  available?: number;
}

/** Builds the status and body the service answers for an error code. Pure, shared by both targets. */
export function errorResponse(code: string, message: string, opts: ErrorOptions = {}): { status: number; body: ErrorBody } {
  const known = (ERROR_CODES as Record<string, { status: number; shape: ErrorShape }>)[code];
  const status = opts.status ?? known?.status ?? 400;
  const shape = opts.shape ?? known?.shape ?? "envelope";
  const error = opts.error ?? message;
  switch (shape) {
    case "bare":
      return { status, body: { error } };
    case "code":
      return { status, body: { error, code } };
    case "credits":
      return {
        status,
        body: { error, code, required: opts.required ?? 0, available: opts.available ?? 0 },
      };
    default: {
      const detail: ErrorDetail = { code, message };
      if (opts.field !== undefined) detail.field = opts.field;
      return { status, body: { error, details: [detail] } };
    }
  }
}

/** Reads code, field and message back out of any of the service's error body shapes. */
export function describeErrorBody(status: number, body: unknown): { code: string; field?: string; message: string } {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const details = Array.isArray(b.details) ? (b.details as Record<string, unknown>[]) : [];
  const first = details[0];
  const errorText = typeof b.error === "string" ? plainText(status, b.error) : undefined;
  if (first && typeof first.code === "string") {
    return {
      code: first.code,
      ...(typeof first.field === "string" ? { field: first.field } : {}),
      message: typeof first.message === "string" ? first.message : (errorText ?? `HTTP ${status}`),
    };
  }
  if (typeof b.code === "string") return { code: b.code, message: errorText ?? b.code };
  if (typeof b.required === "number") return { code: "INSUFFICIENT_CREDITS", message: errorText ?? "Insufficient credits" };
  return { code: fallbackCode(status, errorText), message: errorText ?? `HTTP ${status}` };
}

/**
 * An HTML page where the service's JSON was expected (a proxy's or gateway's 502 page): said as
 * such, with the page's title, never printed as markup.
 */
function plainText(status: number, text: string): string {
  if (!/^\s*<(!doctype|html|head|body|title|center|h1|\?xml)\b/i.test(text)) return text;
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim() ?? /<h1>([^<]*)<\/h1>/i.exec(text)?.[1]?.trim();
  return `HTTP ${status} with an HTML page instead of the service's JSON${title ? ` ("${title}")` : ""}: a proxy or gateway answered, not the service`;
}

function fallbackCode(status: number, text?: string): string {
  if (status === 404) {
    if (text && /avatar/i.test(text)) return "AVATAR_NOT_FOUND";
    if (text && /look/i.test(text)) return "LOOK_NOT_FOUND";
    return "NOT_FOUND";
  }
  if (status === 401) return "invalid_api_key";
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "internal_error";
  return `http_${status}`;
}
