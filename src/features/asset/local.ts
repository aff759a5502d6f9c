/**
 * Asset endpoints of the local instance: models, pricing, start, status. Start (./start.ts) validates
 * everything first (nothing is written by a rejected request), then debits and queues every
 * generation in one IMMEDIATE transaction; it is loaded on the first start, so reading models and
 * statuses loads neither the reference checks nor the media layer.
 */
import type { ModelListResponse, ModelSummary } from "./contract.js";
import { ApiError } from "../../engine/errors.js";
import { quote } from "./catalog/pricing.js";
import { modelDetail, modelSummary } from "./catalog/model-schema.js";
import { MODELS, findModel } from "./catalog/models.js";
import type { HandlerTable, RequestContext } from "../../local/types.js";
import { readAsset, toAsset } from "./record.js";

function queryString(v: unknown): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  return Array.isArray(v) ? String(v[0]) : String(v);
}

function listModels(_ctx: RequestContext, input: Record<string, unknown>): ModelListResponse {
  const type = queryString(input.type);
  const provider = queryString(input.provider);
  const tag = queryString(input.tag);
  const models: ModelSummary[] = MODELS.filter(
    (m) => (!type || m.type === type) && (!provider || m.provider === provider) && (!tag || m.tags.includes(tag)),
  ).map((m) => {
    const s = modelSummary(m);
    // A filtered value is said once at the root, not on every item (hosted behaviour).
    if (type) delete s.type;
    if (provider) delete s.provider;
    return s;
  });
  const out: ModelListResponse = { models, count: models.length };
  if (type) out.type = type;
  if (provider) out.provider = provider;
  return out;
}

function getModel(_ctx: RequestContext, input: Record<string, unknown>) {
  const name = queryString(input.name);
  const model = name ? findModel(name) : undefined;
  if (!model) throw ApiError.of("model_not_found", `Model not found: ${name ?? ""}`);
  return modelDetail(model);
}

function assetStatus(ctx: RequestContext, input: Record<string, unknown>) {
  const id = queryString(input.assetId);
  const row = id ? readAsset(ctx.instance.db, ctx.space.id, id) : undefined;
  // Another space's asset is indistinguishable from a missing one.
  if (!row) throw ApiError.of("asset_not_found", `Asset not found: ${id ?? ""}`);
  return toAsset(row, ctx.urls);
}

export const assetHandlers: HandlerTable = {
  assetModels: (ctx, input) => listModels(ctx, input as Record<string, unknown>),
  assetModel: (ctx, input) => getModel(ctx, input as Record<string, unknown>),
  assetPricing: (_ctx, input) => quote(input as Record<string, unknown>),
  assetStart: async (ctx, input) => (await import("./start.js")).startAssets(ctx, input as Record<string, unknown>),
  assetStatus: (ctx, input) => assetStatus(ctx, input as Record<string, unknown>),
};
