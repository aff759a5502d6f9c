/** Space plans, spelt as the spec spells them. */
export const PLANS = ["free", "start", "PRO", "ENTREPRISE"] as const;
export type Plan = (typeof PLANS)[number];

const RANK: Record<Plan, number> = { free: 0, start: 1, PRO: 2, ENTREPRISE: 3 };

/** Plan names are case-insensitive on input ("pro", "Entreprise", "enterprise"). */
export function parsePlan(input: string): Plan | undefined {
  const s = input.trim().toLowerCase();
  if (s === "free") return "free";
  if (s === "start" || s === "starter") return "start";
  if (s === "pro") return "PRO";
  if (s === "entreprise" || s === "enterprise") return "ENTREPRISE";
  return undefined;
}

export function planRank(plan: Plan): number {
  return RANK[plan];
}

/** API access needs at least the Pro plan (spec, Authentication 4). */
export function hasApiAccess(plan: Plan): boolean {
  return RANK[plan] >= RANK.PRO;
}

/**
 * A model's `required_plans` is satisfied by any of them or a higher plan (empty = any plan): a
 * model that names only PRO is open to ENTREPRISE too.
 */
export function meetsRequiredPlans(plan: Plan, required: readonly string[]): boolean {
  const ranks = required
    .map((r) => parsePlan(r))
    .filter((p): p is Plan => p !== undefined)
    .map(planRank);
  return ranks.length === 0 || RANK[plan] >= Math.min(...ranks);
}

/** Voice catalog tiers and which tiers each plan sees (spec, GET /voice/list). */
export const VOICE_TIERS = ["free", "start", "pro", "enterprise"] as const;
export type VoiceTier = (typeof VOICE_TIERS)[number];
export function voiceTiersFor(plan: Plan): VoiceTier[] {
  return VOICE_TIERS.slice(0, RANK[plan] + 1) as VoiceTier[];
}
