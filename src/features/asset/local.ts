/**
 * Asset endpoints of the local instance: models, pricing, start, status. Start (./start.ts) validates
 * everything first (nothing is written by a rejected request), then debits and queues every
 * generation in one IMMEDIATE transaction. What an endpoint needs beyond the asset rows is loaded on
 * its first call: the catalog for models and pricing (./models-local.ts, ./catalog/pricing.ts), the
 * reference checks and the media layer for start, so a status read loads none of them.
 */
import { ApiError } from "../../engine/errors.js";
import type { HandlerTable, RequestContext } from "../../local/types.js";
import { readAsset, toAsset } from "./record.js";
import { queryString } from "./query.js";

function assetStatus(ctx: RequestContext, input: Record<string, unknown>) {
  const id = queryString(input.assetId);
  const row = id ? readAsset(ctx.instance.db, ctx.space.id, id) : undefined;
  // Another space's asset is indistinguishable from a missing one.
  if (!row) throw ApiError.of("asset_not_found", `Asset not found: ${id ?? ""}`);
  return toAsset(row, ctx.urls);
}

export const assetHandlers: HandlerTable = {
  assetModels: async (ctx, input) => (await import("./models-local.js")).listModels(ctx, input as Record<string, unknown>),
  assetModel: async (ctx, input) => (await import("./models-local.js")).getModel(ctx, input as Record<string, unknown>),
  assetPricing: async (ctx, input) => {
    const [{ quote }, { catalogOf }] = await Promise.all([import("./catalog/pricing.js"), import("./catalog-sync.js")]);
    return quote(input as Record<string, unknown>, catalogOf(ctx.instance).find);
  },
  assetStart: async (ctx, input) => (await import("./start.js")).startAssets(ctx, input as Record<string, unknown>),
  assetStatus: (ctx, input) => assetStatus(ctx, input as Record<string, unknown>),
};
