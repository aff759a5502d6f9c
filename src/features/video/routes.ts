/**
 * The video operations as the service answers them, without schemas: method, path, success status,
 * summary, the error codes each endpoint's section lists. Read by the
 * contract (./contract.ts adds the schemas), the route table, the hosted client and the fault rules.
 */
import type { RouteFacts } from "../../contract/operation.js";

export const videoRoutes = {
  videoDuplicate: {
    method: "POST",
    path: "/video/duplicate",
    status: 201,
    summary: "Duplicate a completed video",
    errors: ["MISSING_VIDEO_ID", "INVALID_TYPE", "INVALID_VOICE_ID", "INVALID_AVATAR_ID", "VIDEO_NOT_FOUND", "UNAUTHORIZED_VIDEO", "VIDEO_NOT_READY", "INTERNAL_ERROR"],
  },
} as const satisfies Record<string, RouteFacts>;
