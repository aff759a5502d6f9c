/**
 * The life of each asset operation (see src/features/life.ts). A start debits per generation up
 * front and names one asset per generation; its price is the service's own dry-run pricing (POST
 * /asset/pricing, free). An asset is polled every 2 to 5 s (the spec) and saves as its file.
 */
import { assetSchedule } from "../../contract/poll.js";
import { COMPLETED_OR_FAILED, extOf, num, str, type FeatureLife } from "../life.js";

/**
 * The request of POST /asset/pricing for a start request: the fields that change its price, under
 * the names pricing has (the references counted as `image_count`, the service's name). The settings
 * object is left out: pricing's name for it is not documented, and a name is never guessed.
 */
export function pricingOf(start: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // The aspect ratio does not change a price and pricing takes none.
  for (const k of ["model", "duration", "resolution", "generation_count"]) {
    if (start[k] !== undefined) out[k] = start[k];
  }
  if (Array.isArray(start.references)) out.image_count = start.references.length;
  return out;
}

/** Whether a start names model settings, which pricing cannot be given (see `pricingOf`). */
export function unpricedSettings(start: Record<string, unknown>): boolean {
  const s = start.model_settings;
  return !!s && typeof s === "object" && Object.keys(s).length > 0;
}

export const UNPRICED_SETTINGS =
  "Priced at the model's default settings: the service documents no pricing field for model_settings (price them with `mediagen asset price --body`).";

const count = (input: Record<string, unknown>) => num(input.generation_count) ?? 1;

export const assetLife: FeatureLife = {
  operations: {
    assetModels: { effect: "read" },
    assetModel: { effect: "read" },
    assetPricing: { effect: "read" },
    assetStatus: { effect: "read", statusOf: "asset" },
    assetStart: {
      batch: { kind: "asset" },
      makes: "asset",
      effect: "paid start",
      what: (input) => `${count(input)} generation${count(input) === 1 ? "" : "s"} of ${str(input.model) ?? "a model"}`,
      price: async (input, tools) => {
        const p = await tools.assetPricing(pricingOf(input));
        const n = p.generation_count ?? count(input);
        const basis = `the service's dry-run pricing of ${n} generation(s) of ${p.model ?? str(input.model) ?? "the model"}`;
        // Settings may change the price, and pricing cannot be told them.
        if (unpricedSettings(input)) return { credits: p.total_cost, exact: false, basis: `${basis} at its default settings (model_settings are not priced)` };
        return { credits: p.total_cost, exact: true, basis };
      },
      debited: (res) => num(res.total_cost),
      started: (input, res) =>
        (Array.isArray(res.asset_ids) ? res.asset_ids : [])
          .filter((id): id is string => typeof id === "string")
          .map((id) => ({
            kind: "asset" as const,
            id,
            model: str(input.model) ?? null,
            cost: num(res.cost_per_generation) ?? null,
            status: str(res.status) ?? "generating",
            ...(str(input.prompt) ? { prompt: str(input.prompt)! } : {}),
          })),
    },
  },
  jobs: {
    asset: {
      kind: "asset",
      noun: "asset",
      idShape: /^[0-9a-f]{24}$/i,
      status: { op: "assetStatus", request: (ref) => ({ assetId: ref.id }), schedule: assetSchedule, idField: "asset_id" },
      terminal: COMPLETED_OR_FAILED,
      refund: "always",
      result: (s) => {
        const url = str(s.url);
        if (!url) return undefined;
        const type = str(s.type) ?? "image";
        return { url, ext: extOf(url, type === "image" ? "png" : type === "audio" ? "mp3" : "mp4"), type };
      },
    },
  },
};
