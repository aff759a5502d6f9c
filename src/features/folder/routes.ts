/**
 * The folder operations as the service answers them, without schemas: method, path, success status,
 * summary, the error codes each endpoint's section lists. Read by the
 * contract (./contract.ts adds the schemas), the route table, the hosted client and the fault rules.
 */
import type { RouteFacts } from "../../contract/operation.js";

export const folderRoutes = {
  folderCreate: { method: "POST", path: "/folder/create", status: 201, summary: "Create a folder", errors: ["missing_field", "invalid_value"] },
  folderList: { method: "GET", path: "/folder/list", status: 200, summary: "List folders", errors: ["invalid_value"] },
} as const satisfies Record<string, RouteFacts>;
