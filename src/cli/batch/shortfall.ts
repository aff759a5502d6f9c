/**
 * A start refused for want of credits (HTTP 402): an outcome of its own in a batch (exit 5, as a
 * `--max-credits` skip), nothing debited, run again by the next `batch run` once credits are added.
 * The service says how many credits were required and available, in the body (`required`,
 * `available`) or in the message ("… 16 required, 2 available"); the summary adds them up.
 */
export const INSUFFICIENT = "insufficient_credits";

export interface Shortfall {
  required: number | null;
  available: number | null;
}

/** The amounts of a 402, or undefined when `e` is not one. */
export function shortfallOf(e: unknown): Shortfall | undefined {
  const x = (e && typeof e === "object" ? e : {}) as { name?: string; status?: unknown; body?: unknown; message?: unknown };
  if (x.name !== "ApiError" || x.status !== 402) return undefined;
  const body = (x.body && typeof x.body === "object" ? x.body : {}) as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  let required = num(body.required);
  let available = num(body.available);
  const details = Array.isArray(body.details) ? body.details.map((d) => (d && typeof d === "object" ? String((d as { message?: unknown }).message ?? "") : "")) : [];
  const texts = [x.message, body.error, ...details].filter((t): t is string => typeof t === "string").join(" ");
  const m = /([\d.]+) required, ([\d.]+) available/.exec(texts);
  if (m) {
    required ??= Number(m[1]);
    available ??= Number(m[2]);
  }
  return { required, available };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** What one refused line lacked, when the service said. */
export function missingOf(s: Shortfall): number | null {
  return s.required !== null && s.available !== null ? round(Math.max(0, s.required - s.available)) : null;
}

/**
 * Credits to add for every refused line to start: what they require together, less the balance the
 * last refusal saw. null when a refusal did not say its amounts.
 */
export function totalMissing(refused: readonly Shortfall[]): number | null {
  if (!refused.length || refused.some((s) => s.required === null || s.available === null)) return refused.length ? null : 0;
  const required = refused.reduce((n, s) => n + s.required!, 0);
  const available = Math.min(...refused.map((s) => s.available!));
  return round(Math.max(0, required - available));
}
