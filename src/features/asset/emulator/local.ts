/**
 * Asset endpoints of the local instance: models, pricing, start, status. Start (./start.ts) validates
 * everything first (nothing is written by a rejected request), then debits and queues every
 * generation in one IMMEDIATE transaction. What an endpoint needs beyond the asset rows is loaded on
 * its first call: the catalog for models and pricing (./models-local.ts, ./catalog/pricing.ts), the
 * reference checks and the media layer for start, so a status read loads none of them.
 */
import { ApiError } from "../../../engine/errors.js";
import type { HandlerTable, RequestContext } from "../../../local/types.js";
import { readAsset, toAsset } from "./public/record.js";
import { queryString } from "./query.js";
import type { AssetStartInput } from "../contract.js";

function assetStatus(ctx: RequestContext, input: Record<string, unknown>) {
  const id = queryString(input.assetId);
  const row = id ? readAsset(ctx.instance.db, ctx.space.id, id) : undefined;
  // Another space's asset is indistinguishable from a missing one.
  if (!row) throw ApiError.of("asset_not_found", `Asset not found: ${id ?? ""}`);
  return toAsset(row, ctx.urls);
}

/**
 * The names this instance prices by: the contract's (the spec's, with the service's `image_count`)
 * and, for the settings object the spec leaves unnamed, the start's `model_settings`, plus a start's
 * `references` (counted), so a start body prices as it is. The contract passes other names (the
 * service may know them); this instance does not, and says so rather than price without them.
 */
const LOCAL_PRICING_FIELDS = ["model", "duration", "resolution", "image_count", "generation_count", "model_settings", "references"];

function refuseUnknownPricingFields(input: Record<string, unknown>): void {
  const unknown = Object.keys(input).find((k) => !LOCAL_PRICING_FIELDS.includes(k));
  if (unknown === undefined) return;
  const hint = unknown === "reference_count" ? " (the number of reference images is image_count)" : "";
  throw ApiError.of("invalid_value", `${unknown} is not a field of pricing on this instance${hint}; it prices by ${LOCAL_PRICING_FIELDS.join(", ")}`, {
    field: unknown,
  });
}

export const assetHandlers: HandlerTable = {
  assetModels: async (ctx, input) => (await import("./models-local.js")).listModels(ctx, input as Record<string, unknown>),
  assetModel: async (ctx, input) => (await import("./models-local.js")).getModel(ctx, input as Record<string, unknown>),
  assetPricing: async (ctx, input) => {
    refuseUnknownPricingFields(input as Record<string, unknown>);
    const [{ quote }, { catalogOf }] = await Promise.all([import("./catalog/pricing.js"), import("./public/catalog-sync.js")]);
    return quote(input as Record<string, unknown>, catalogOf(ctx.instance).find);
  },
  // The door (the operation's schema) passed the request: the handler takes its type.
  assetStart: async (ctx, input) => (await import("./start.js")).startAssets(ctx, input as AssetStartInput),
  assetStatus: (ctx, input) => assetStatus(ctx, input as Record<string, unknown>),
};
