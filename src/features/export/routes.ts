/**
 * The export operations as the service answers them, without schemas: method, path, success status,
 * summary, the error codes each endpoint's section lists and what its jobs may fail with. Read by the
 * contract (./contract.ts adds the schemas), the route table, the hosted client and the fault rules.
 */
import { JOB_ERROR_CODES } from "../../contract/errors.js";
import type { RouteFacts } from "../../contract/operation.js";

export const EXPORT_STEPS = ["render-audio", "avatar", "render"] as const;

export const exportRoutes = {
  exportStart: {
    method: "POST",
    path: "/export/start",
    status: 201,
    summary: "Start an export job",
    errors: [
      "MISSING_VIDEO_ID",
      "INVALID_FORMAT",
      "INVALID_AVATAR_MODEL",
      "INCOMPATIBLE_AVATAR_MODEL",
      "VIDEO_NOT_READY",
      "VIDEO_NOT_FOUND",
      "UNAUTHORIZED_VIDEO",
      "insufficient_credits",
    ],
    job: { codes: JOB_ERROR_CODES.export, steps: EXPORT_STEPS },
  },
  exportStatus: {
    method: "GET",
    path: "/export/status/{job_id}",
    status: 200,
    summary: "Status of an export job",
    errors: ["JOB_NOT_FOUND", "UNAUTHORIZED_JOB"],
    progress: true,
  },
} as const satisfies Record<string, RouteFacts>;
