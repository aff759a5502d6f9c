/**
 * The generation operations as the service answers them, without schemas: method, path, success status,
 * summary, the error codes each endpoint's section lists and what its jobs may fail with. Read by the
 * contract (./contract.ts adds the schemas), the route table, the hosted client and the fault rules.
 */
import { JOB_ERROR_CODES } from "../../contract/errors.js";
import type { RouteFacts } from "../../contract/operation.js";

/**
 * `current_step` values, in the order a job goes through them (hosted-facts names them "for example";
 * `ASSEMBLY`, the last step, is the local instance's name for the step whose failure code is
 * ASSEMBLY_FAILED). Steps a request does not need are skipped.
 */
export const GENERATION_STEPS = [
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
] as const;

export const generationRoutes = {
  generationStart: {
    method: "POST",
    path: "/generation/start",
    status: 201,
    summary: "Start a video generation job",
    errors: [
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
    job: {
      codes: JOB_ERROR_CODES.generation,
      steps: GENERATION_STEPS,
    },
  },
  generationStatus: {
    method: "GET",
    path: "/generation/status/{job_id}",
    status: 200,
    summary: "Status of a generation job",
    errors: ["JOB_NOT_FOUND", "UNAUTHORIZED_JOB"],
    progress: true,
  },
} as const satisfies Record<string, RouteFacts>;
