import { z } from "zod";
import { op } from "../../contract/operation.js";
import { EXPORT_STEPS, exportRoutes } from "./routes.js";
import { JobStatus, customSize } from "../generation/contract.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { NonEmptyString, WebhookUrl } from "../../contract/request-fields.js";
import { present } from "../../contract/present.js";
import { EXPORT_FORMATS, EXPORT_SIZES } from "../../contract/export-formats.js";

export { EXPORT_FORMATS, EXPORT_SIZES };

export { EXPORT_STEPS };
export const ExportStep = z.enum(EXPORT_STEPS);

/** An export's status: a wait reads its status, its progress and, once completed, its video_url; only the status is needed. */
export const ExportJob = z.looseObject({
  job_id: z.string().nullish(),
  status: JobStatus,
  progress: z.number().nullish(),
  /** Absent or null while queued on some services (a pending job has no step yet). */
  current_step: ExportStep.nullish(),
  result: z
    .looseObject({
      video_url: z.string().nullish(),
      thumbnail_url: z.string().nullish(),
      cost: z.number().nullish(),
      created_at: z.string().nullish(),
    })
    .nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
export type ExportJob = z.infer<typeof ExportJob>;

/**
 * POST /export/start (hosted facts), in the order the service judges it: video_id (absent, null or
 * blank is MISSING_VIDEO_ID), format, width and height (only with format custom, 1..5000),
 * avatar_model, webhook_url. `avatar_model` is any name: the looks' `model_available` is the
 * authority (the service's list grows), so the service judges it against the video's looks.
 */
export const ExportStartRequest = z
  .strictObject({
    video_id: present(z.string(), "MISSING_VIDEO_ID"),
    format: z.enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(", ")}` }).optional(),
    width: customSize.optional(),
    height: customSize.optional(),
    avatar_model: NonEmptyString.optional(),
    webhook_url: WebhookUrl.optional(),
  })
  .superRefine(onlyWithCustomFormat);
export type ExportStartRequest = z.input<typeof ExportStartRequest>;
/** An export request as the door passed it (the local handler's input). */
export type ExportStartInput = z.output<typeof ExportStartRequest>;

/** `width`/`height` are accepted with `format: custom` only. */
export function onlyWithCustomFormat(req: { format?: string; width?: number; height?: number }, ctx: z.RefinementCtx): void {
  if (req.format === "custom") return;
  for (const k of ["width", "height"] as const) {
    if (req[k] !== undefined) ctx.addIssue({ code: "custom", path: [k], message: `${k} is only accepted with format custom (give "format": "custom")` });
  }
}

/** The job id is what the start paid for; the rest may be absent. */
export const ExportStartResponse = z.looseObject({
  job_id: z.string(),
  status: z.literal("pending").nullish(),
  estimated_credits: z.number().nullish(),
});
export type ExportStartResponse = z.infer<typeof ExportStartResponse>;

export const ExportStatusRequest = z.strictObject({ job_id: NonEmptyString });

export const requestCodes = {
  exportStart: {
    missing: "INVALID_VALUE",
    invalid: "INVALID_VALUE",
    missingOf: { video_id: "MISSING_VIDEO_ID" },
    invalidOf: { format: "INVALID_FORMAT", width: "INVALID_FORMAT", height: "INVALID_FORMAT", avatar_model: "INVALID_AVATAR_MODEL" },
  },
  exportStatus: { missing: "JOB_NOT_FOUND", invalid: "JOB_NOT_FOUND" },
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  exportStart: op(exportRoutes.exportStart, { request: ExportStartRequest, response: ExportStartResponse }),
  exportStatus: op(exportRoutes.exportStatus, { request: ExportStatusRequest, response: ExportJob }),
} as const;
