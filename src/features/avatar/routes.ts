/**
 * The avatar operations as the service answers them, without schemas: method, path, success status,
 * summary, the error codes each endpoint's section lists and what its jobs may fail with. Read by the
 * contract (./contract.ts adds the schemas), the route table, the hosted client and the fault rules.
 */
import { JOB_ERROR_CODES } from "../../contract/errors.js";
import type { RouteFacts } from "../../contract/operation.js";

export const avatarRoutes = {
  avatarCreate: {
    method: "POST",
    path: "/avatar/create",
    status: 201,
    summary: "Create an avatar with its first look",
    errors: ["INVALID_VALUE", "INSUFFICIENT_CREDITS", "AVATAR_LIMIT_REACHED", "SPACE_NOT_FOUND", "FAILED_TO_PERSIST"],
    job: { codes: JOB_ERROR_CODES.avatar, steps: [] },
  },
  avatarEdit: {
    method: "POST",
    path: "/avatar/edit",
    status: 201,
    summary: "New look from an existing one",
    errors: [
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
    job: { codes: JOB_ERROR_CODES.avatar, steps: [] },
  },
  avatarStatus: {
    method: "GET",
    path: "/avatar/status",
    status: 200,
    summary: "Status of a look's generation",
    query: "required",
    errors: ["INVALID_VALUE", "SPACE_NOT_FOUND", "AVATAR_NOT_FOUND", "LOOK_NOT_FOUND"],
  },
  avatarList: { method: "GET", path: "/avatar/list", status: 200, summary: "List looks, space first", errors: ["INVALID_VALUE"] },
  avatarLook: { method: "GET", path: "/avatar/{avatar_id}/look/{look_id}", status: 200, summary: "One look", errors: ["NOT_FOUND"] },
  avatarGet: { method: "GET", path: "/avatar/{avatar_id}", status: 200, summary: "One avatar with its looks", errors: ["NOT_FOUND"] },
  resourceAvatars: { method: "GET", path: "/resources/avatars", status: 200, summary: "Looks of the space and the public catalog (legacy listing)" },
} as const satisfies Record<string, RouteFacts>;
