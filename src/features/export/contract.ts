import { z } from "zod";
import { op } from "../../contract/operation.js";
import { JobStatus } from "../generation/contract.js";

export const EXPORT_STEPS = ["render-audio", "avatar", "render"] as const;
export const ExportStep = z.enum(EXPORT_STEPS);

export const ExportJob = z.looseObject({
  job_id: z.string(),
  status: JobStatus,
  progress: z.number(),
  current_step: ExportStep,
  result: z
    .looseObject({
      video_url: z.string(),
      thumbnail_url: z.string(),
      cost: z.number(),
      created_at: z.string(),
    })
    .optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
});
export type ExportJob = z.infer<typeof ExportJob>;

export const ExportStartRequest = z.looseObject({
  video_id: z.string().optional(),
  format: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  avatar_model: z.string().optional(),
  webhook_url: z.string().optional(),
});
export type ExportStartRequest = z.infer<typeof ExportStartRequest>;

export const ExportStartResponse = z.looseObject({
  job_id: z.string(),
  status: z.literal("pending"),
  estimated_credits: z.number(),
});
export type ExportStartResponse = z.infer<typeof ExportStartResponse>;

export const ExportStatusRequest = z.looseObject({ job_id: z.string() });

/** Export sizes per format (hosted facts). */
export const EXPORT_SIZES: Record<string, { width: number; height: number }> = {
  vertical: { width: 1080, height: 1920 },
  ads: { width: 1080, height: 1350 },
  square: { width: 1080, height: 1080 },
  horizontal: { width: 1920, height: 1080 },
};

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  exportStart: op({ method: "POST", path: "/export/start", status: 201, request: ExportStartRequest, response: ExportStartResponse, summary: "Start an export job" }),
  exportStatus: op({ method: "GET", path: "/export/status/{job_id}", status: 200, request: ExportStatusRequest, response: ExportJob, summary: "Status of an export job" }),
} as const;
