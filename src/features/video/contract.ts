import { z } from "zod";
import { op } from "../../contract/operation.js";

/** Video record: only `video_id` and `status` are shown by the spec; `done` means completed. */
export const Video = z.looseObject({ video_id: z.string(), status: z.string() });
export type Video = z.infer<typeof Video>;

export const VideoDuplicateRequest = z.looseObject({
  video_id: z.unknown().optional(),
  voice_id: z.unknown().optional(),
  avatar_look_id: z.unknown().optional(),
});
export type VideoDuplicateRequest = z.infer<typeof VideoDuplicateRequest>;

export const VideoDuplicateResponse = z.looseObject({
  video_id: z.string(),
  status: z.string(),
  message: z.string(),
  changes_applied: z.looseObject({ voice_changed: z.boolean(), avatar_changed: z.boolean() }),
});
export type VideoDuplicateResponse = z.infer<typeof VideoDuplicateResponse>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  videoDuplicate: op({ method: "POST", path: "/video/duplicate", status: 201, request: VideoDuplicateRequest, response: VideoDuplicateResponse, summary: "Duplicate a completed video" }),
} as const;
