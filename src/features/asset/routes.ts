/**
 * The asset operations as the service answers them, without schemas: method, path, success status,
 * summary, the error codes each endpoint's section lists and what its jobs may fail with. Read by the
 * contract (./contract.ts adds the schemas), the route table, the hosted client and the fault rules.
 */
import { JOB_ERROR_CODES } from "../../contract/errors.js";
import type { RouteFacts } from "../../contract/operation.js";

export const assetRoutes = {
  assetModels: { method: "GET", path: "/asset/models", status: 200, summary: "List models", errors: ["invalid_value"] },
  assetModel: {
    method: "GET",
    path: "/asset/models/{name}",
    status: 200,
    summary: "One model with its input_schema",
    aliases: ["/models/{name}"],
    errors: ["model_not_found"],
  },
  assetPricing: { method: "POST", path: "/asset/pricing", status: 200, summary: "Dry-run price of an asset generation", errors: ["missing_field", "model_not_found"] },
  assetStart: {
    method: "POST",
    path: "/asset/start",
    status: 201,
    summary: "Start image or video generation",
    errors: ["missing_field", "invalid_value", "not_eligible"],
    job: { codes: JOB_ERROR_CODES.asset, steps: [] },
  },
  assetStatus: { method: "GET", path: "/asset/status/{assetId}", status: 200, summary: "Status of one asset", errors: ["asset_not_found"] },
} as const satisfies Record<string, RouteFacts>;
