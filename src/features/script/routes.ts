/**
 * The script operations as the service answers them, without schemas: method, path, success status,
 * summary, the error codes each endpoint's section lists. Read by the
 * contract (./contract.ts adds the schemas), the route table, the hosted client and the fault rules.
 */
import type { RouteFacts } from "../../contract/operation.js";

export const scriptRoutes = {
  scriptGenerate: {
    method: "POST",
    path: "/script/generate",
    status: 200,
    summary: "Generate a video script",
    errors: ["MISSING_FIELD", "INVALID_TYPE", "INVALID_VALUE", "INSUFFICIENT_CREDITS", "SCRIPT_GENERATION_FAILED"],
  },
} as const satisfies Record<string, RouteFacts>;
