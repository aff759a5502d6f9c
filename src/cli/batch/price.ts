/**
 * What each line of a batch costs, from the same code the single commands use: assets from the
 * service's own pricing endpoint (POST /asset/pricing, which is what a start debits), videos from
 * the spec's formula (`generate --dry-run`'s estimator), exports, looks and scripts from theirs.
 * A price that cannot be known before starting (supplied speech, a custom export of a video whose
 * length is unknown) is null, with the reason.
 */
import type { Engine, Target } from "../../engine/engine.js";
import type { BatchLine } from "./input.js";
import type { PriceTools } from "../../features/life.js";
import { lifeOf } from "../../features/lives.js";

const tools = (target: Target, pricing: (body: Record<string, unknown>) => Promise<{ total_cost: number }>): PriceTools => ({
  target,
  assetPricing: async (body) => ({ generation_count: 1, model: String(body.model ?? ""), ...(await pricing(body)) }),
});

export interface LinePrice {
  credits: number | null;
  /** How it was reached, or why it is unknown. */
  basis: string;
  exact: boolean;
}

/** Sums in thousandths, as the ledger counts, so 0.1 + 0.2 is 0.3. */
export const addCredits = (a: number, b: number) => Math.round(a * 1000 + b * 1000) / 1000;

/** A chained or standalone export: free unless custom high-resolution or a premium avatar model. */
async function exportPrice(exp: Record<string, unknown>, seconds: number | null, fallbackFormat: unknown): Promise<LinePrice> {
  const { exportCredits, PREMIUM_AVATAR_MODEL_RATE } = await import("../../contract/pricing.js");
  const format = typeof exp.format === "string" ? exp.format : typeof fallbackFormat === "string" ? fallbackFormat : "vertical";
  const width = typeof exp.width === "number" ? exp.width : 1080;
  const height = typeof exp.height === "number" ? exp.height : 1920;
  const model = typeof exp.avatar_model === "string" ? exp.avatar_model : undefined;
  const surcharge = (format === "custom" && (width > 1920 || height > 1080)) || (model !== undefined && PREMIUM_AVATAR_MODEL_RATE[model] !== undefined);
  if (!surcharge) return { credits: 0, basis: "an export in a standard format is free", exact: true };
  if (seconds === null) return { credits: null, basis: "the export's surcharge follows the video's length, not known before", exact: false };
  // The first export of an API-made video: only the surcharges are billed.
  const credits = exportCredits({ firstExport: true, format, width, height, durationSeconds: seconds, ...(model ? { avatarModel: model } : {}) });
  return { credits, basis: "the export's surcharge for the video's estimated length", exact: false };
}

export async function priceLine(l: BatchLine, target: Target, pricing: (body: Record<string, unknown>) => Promise<{ total_cost: number }>): Promise<LinePrice> {
  const b = l.body;
  switch (l.kind) {
    case "asset": {
      const { pricingOf } = await import("../../features/asset/client/cli.js");
      const q = await pricing(pricingOf(b));
      return { credits: q.total_cost, basis: "POST /asset/pricing", exact: true };
    }
    case "generate": {
      const { estimateGenerate } = await import("../../features/generation/estimate.js");
      const est = estimateGenerate(b, target);
      if (est.credits === null) return { credits: null, basis: est.basis, exact: false };
      if (!l.export) return { credits: est.credits, basis: est.basis, exact: est.exact };
      const exp = await exportPrice(l.export, est.seconds, b.format);
      if (exp.credits === null) return exp;
      return { credits: addCredits(est.credits, exp.credits), basis: `${est.basis}; ${exp.basis}`, exact: est.exact && exp.exact };
    }
    // The single starts' own price rules (their lives), so a line costs what the command would.
    case "export":
      return lifeOf("exportStart").price!(b, tools(target, pricing));
    case "avatar":
      return lifeOf(b.look_id !== undefined ? "avatarEdit" : "avatarCreate").price!(b, tools(target, pricing));
    case "script":
      return lifeOf("scriptGenerate").price!(b, tools(target, pricing));
    case "duplicate": {
      if (!l.export) return { credits: 0, basis: "a duplicate is free", exact: true };
      return exportPrice(l.export, null, undefined);
    }
  }
}

export type PricingEngine = Pick<Engine, "assetPricing">;
