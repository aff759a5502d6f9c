/**
 * The price of a start request before it is made: the `price` tool, and the budget of a session run
 * with --max-credits. Each operation's price rule is its life (src/features/<resource>/life.ts), the
 * same rule the CLI's cost guard and `batch price` read: an asset start by the service's dry-run
 * pricing (POST /asset/pricing, nothing debited), a video generation by `generate --dry-run`'s
 * estimate, the other starts by the spec's formulas. A start whose price cannot be known before it
 * starts says so (`credits: null`, with why), and a budget refuses it.
 */
import type { Engine, OpName } from "../engine/engine.js";
import type { Price, PriceTools } from "../features/life.js";
import { lifeOf } from "../features/lives.js";

export type { Price };

export async function priceOf(engine: Engine, op: OpName, input: Record<string, unknown>, videoFormat?: PriceTools["videoFormat"]): Promise<Price> {
  const life = lifeOf(op);
  if (life.effect === "read") return { credits: 0, exact: true, basis: "a read: nothing is debited" };
  if (!life.price) return { credits: null, exact: false, basis: `no pricing rule is known for ${op}` };
  return life.price(input, { target: engine.target, assetPricing: (body) => engine.assetPricing(body as never), ...(videoFormat ? { videoFormat } : {}) });
}

/** What a start's answer says it debited (the service's own figure), when it says. */
export function debitedBy(op: OpName, res: unknown): number | undefined {
  const r = (res && typeof res === "object" ? res : {}) as Record<string, unknown>;
  return lifeOf(op).debited?.(r);
}
