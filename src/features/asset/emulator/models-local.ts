/**
 * The model endpoints of the local instance (list, one model): they read the catalog (the synced one when `local catalog sync` stored one, else the built-in), which
 * src/features/asset/emulator/local.ts loads only for them (an asset status needs none of it).
 */
import type { ModelListResponse, ModelSummary } from "../contract.js";
import { ApiError } from "../../../engine/errors.js";
import { modelDetail, modelSummary } from "./catalog/model-schema.js";
import { catalogOf } from "./public/catalog-sync.js";
import type { RequestContext } from "../../../local/types.js";
import { queryString } from "./query.js";

export function listModels(ctx: RequestContext, input: Record<string, unknown>): ModelListResponse {
  const type = queryString(input.type);
  const provider = queryString(input.provider);
  const tag = queryString(input.tag);
  const models: ModelSummary[] = catalogOf(ctx.instance)
    .models.filter((m) => (!type || m.type === type) && (!provider || m.provider === provider) && (!tag || m.tags.includes(tag)))
    .map((m) => {
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

export function getModel(ctx: RequestContext, input: Record<string, unknown>) {
  const name = queryString(input.name);
  const model = name ? catalogOf(ctx.instance).find(name) : undefined;
  if (!model) throw ApiError.of("model_not_found", `Model not found: ${name ?? ""}`);
  return modelDetail(model);
}
