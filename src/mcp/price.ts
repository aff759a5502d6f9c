/**
 * The price of a start request before it is made: the `price` tool, and the budget of a session run
 * with --max-credits. The same sources as the CLI's cost guards (src/cli/cost-guard.ts): an asset
 * start is priced by the service's dry-run pricing (POST /asset/pricing, nothing debited), a video
 * generation by the estimate `generate --dry-run` prints (src/features/generation/estimate.ts), and
 * the other starts by the spec's formulas (src/contract/pricing.ts). A start whose price cannot be
 * known before it starts says so (`credits: null`, with why), and a budget refuses it.
 */
import { avatarCredits, PREMIUM_AVATAR_MODEL_RATE, scriptCredits } from "../contract/pricing.js";
import { SCRIPT_DURATION_DEFAULT } from "../features/script/contract.js";
import type { Engine, OpName } from "../engine/engine.js";
import { isReadOp } from "./tools.js";
import { withArticle } from "../engine/words.js";

export interface Price {
  /** Credits the start would debit; null when it cannot be known before it starts. */
  credits: number | null;
  /** True when the target computes exactly this figure. */
  exact: boolean;
  /** How the figure was reached (or why there is none). */
  basis: string;
}

const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v : undefined);

export async function priceOf(engine: Engine, op: OpName, input: Record<string, unknown>): Promise<Price> {
  if (isReadOp(op)) return { credits: 0, exact: true, basis: "a read: nothing is debited" };
  switch (op) {
    case "assetStart": {
      const { pricingOf } = await import("../features/asset/cli.js");
      const p = await engine.assetPricing(pricingOf(input) as never);
      return { credits: p.total_cost, exact: true, basis: `the service's dry-run pricing of ${p.generation_count} generation(s) of ${p.model}` };
    }
    case "generationStart": {
      const { estimateGenerate } = await import("../features/generation/estimate.js");
      const e = estimateGenerate(input, engine.target);
      return { credits: e.credits, exact: e.exact, basis: e.basis };
    }
    case "avatarCreate":
      // A prompt wins over images; a look made from images is free.
      return str(input.prompt) !== undefined
        ? { credits: avatarCredits(str(input.resolution)), exact: true, basis: `a look generated from the prompt at ${input.resolution === "4K" ? "4K" : "2K"}` }
        : { credits: 0, exact: true, basis: "looks made from the given images are free" };
    case "avatarEdit":
      return { credits: avatarCredits(str(input.resolution)), exact: true, basis: `a new look at ${input.resolution === "4K" ? "4K" : "2K"}` };
    case "scriptGenerate": {
      const duration = typeof input.duration === "number" ? input.duration : SCRIPT_DURATION_DEFAULT;
      const urls = Array.isArray(input.urls) ? input.urls.length : 0;
      return {
        credits: scriptCredits(duration, input.webSearch === true, urls),
        exact: true,
        basis: `0.1 per started minute of ${duration} s${input.webSearch === true ? ", +0.1 for web search" : ""}${urls ? `, +0.1 per URL (${urls})` : ""}`,
      };
    }
    case "exportStart": {
      const model = str(input.avatar_model);
      if (model && PREMIUM_AVATAR_MODEL_RATE[model]) {
        return { credits: null, exact: false, basis: `avatar_model ${model} is billed per second of avatar on screen, known when the export starts` };
      }
      const format = str(input.format);
      if (!format) {
        return {
          credits: null,
          exact: false,
          basis: "without format the video's own format is used, and a custom size above 1920x1080 costs more; give format to know the price",
        };
      }
      const w = typeof input.width === "number" ? input.width : 1080;
      const h = typeof input.height === "number" ? input.height : 1920;
      if (format === "custom" && (w > 1920 || h > 1080)) {
        return { credits: null, exact: false, basis: "a custom size above 1920x1080 adds 2.5 credits per started 30 s of the video, known when the export starts" };
      }
      return { credits: 0, exact: true, basis: `${withArticle(format)} export with a standard avatar model costs nothing` };
    }
    case "videoDuplicate":
      return { credits: 0, exact: true, basis: "a duplicate costs nothing (its export may)" };
    case "folderCreate":
      return { credits: 0, exact: true, basis: "folders cost nothing" };
    default:
      return { credits: null, exact: false, basis: `no pricing rule is known for ${op}` };
  }
}

/** What a start's answer says it debited (the service's own figure), when it says. */
export function debitedBy(op: OpName, res: unknown): number | undefined {
  const r = (res && typeof res === "object" ? res : {}) as Record<string, unknown>;
  const n = op === "assetStart" ? r.total_cost : op === "scriptGenerate" ? r.cost : r.estimated_credits;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}
