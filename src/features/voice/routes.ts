/**
 * The voice operations as the service answers them, without schemas: method, path, success status,
 * summary, the error codes each endpoint's section lists. Read by the
 * contract (./contract.ts adds the schemas), the route table, the hosted client and the fault rules.
 */
import type { RouteFacts } from "../../contract/operation.js";

export const voiceRoutes = {
  voiceList: { method: "GET", path: "/voice/list", status: 200, summary: "List voices, space first", errors: ["invalid_value"] },
  voiceGet: { method: "GET", path: "/voice/{id}", status: 200, summary: "One voice", errors: ["NOT_FOUND"] },
  resourceVoices: { method: "GET", path: "/resources/voices", status: 200, summary: "Voices with accent and preview", errors: ["invalid_value"] },
} as const satisfies Record<string, RouteFacts>;
