import { z } from "zod";
import { op } from "../../contract/operation.js";
import { videoRoutes } from "./routes.js";
import type { RequestCodes } from "../../contract/request-check.js";

/** Video record: only `video_id` and `status` are shown by the spec; `done` means completed. */
export const Video = z.looseObject({ video_id: z.string(), status: z.string() });
export type Video = z.infer<typeof Video>;

const mustBeString = { error: "must be a string" };
/** POST /video/duplicate: string parameters only (INVALID_TYPE otherwise). */
export const VideoDuplicateRequest = z.strictObject({
  video_id: z.string(mustBeString).refine((v) => v !== "", { error: "is required", params: { code: "MISSING_VIDEO_ID" } }),
  voice_id: z.string(mustBeString).optional(),
  avatar_look_id: z.string(mustBeString).optional(),
});
export type VideoDuplicateRequest = z.input<typeof VideoDuplicateRequest>;
/** A duplicate request as the check at the door has let it through. */
export type VideoDuplicateInput = z.output<typeof VideoDuplicateRequest>;

/** The new video's id is what the duplicate paid for; the rest may be absent or null. */
export const VideoDuplicateResponse = z.looseObject({
  video_id: z.string(),
  status: z.string().nullish(),
  message: z.string().nullish(),
  changes_applied: z.looseObject({ voice_changed: z.boolean().nullish(), avatar_changed: z.boolean().nullish() }).nullish(),
});
export type VideoDuplicateResponse = z.infer<typeof VideoDuplicateResponse>;

export const requestCodes = {
  videoDuplicate: { missing: "MISSING_VIDEO_ID", invalid: "INVALID_TYPE", type: "INVALID_TYPE" },
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  videoDuplicate: op(videoRoutes.videoDuplicate, { request: VideoDuplicateRequest, response: VideoDuplicateResponse }),
} as const;
