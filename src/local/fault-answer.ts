/**
 * The answer an `error` fault rule gives: the body and headers the operation itself gives for that
 * code (the same builders, the same shapes), so a client cannot tell a fault from the real thing.
 */
import { errorResponse } from "../contract/errors.js";
import type { RateLimitInfo } from "../engine/engine.js";
import type { FaultAction } from "./fault-rule.js";

export interface FaultAnswer {
  status: number;
  body: unknown;
  rateLimit?: RateLimitInfo;
  /** `Retry-After` (seconds), when the rule sets `retry_after`. */
  headers?: Record<string, string>;
}

export interface FaultAnswerContext {
  /** The instance's clock (unix ms), for the reset a rule's `retry_after` sets. */
  nowMs: number;
  /** The space's balance in credits, for the amounts of a 402. */
  credits: number;
  /** The request's window (already counted). */
  rateLimit: RateLimitInfo | undefined;
  /** The 429 body of this instance's limit. */
  rateLimitedBody: unknown;
}

const MESSAGES: Record<string, string> = {
  invalid_api_key: "The API key is not valid",
  plan_required: "API access requires the PRO plan or higher",
  internal_error: "The service failed to handle this request",
  service_unavailable: "The service is temporarily unavailable",
  insufficient_credits: "Insufficient credits",
  INSUFFICIENT_CREDITS: "Insufficient credits",
  not_eligible: "Insufficient credits",
};

function messageOf(a: Extract<FaultAction, { kind: "error" }>): string {
  if (a.message) return a.message;
  if (a.code === "not_eligible" && a.status === 403) return "This model requires plan PRO or ENTREPRISE";
  return (
    MESSAGES[a.code] ??
    `${a.code
      .replace(/_/g, " ")
      .toLowerCase()
      .replace(/^./, (c) => c.toUpperCase())} (fault rule)`
  );
}

/**
 * The answer of an error rule. A rule's `retry_after` adds `Retry-After: <seconds>`; on a 429 the
 * window's `X-RateLimit-Reset` says the same time (remaining 0), so a client waiting for either
 * comes back after the rule's seconds, not after the real window.
 */
export function faultAnswer(a: Extract<FaultAction, { kind: "error" }>, c: FaultAnswerContext): FaultAnswer {
  const answer = baseAnswer(a, c);
  if (a.retry_after === undefined) return answer;
  const headers = { "retry-after": String(a.retry_after) };
  if (answer.status !== 429) return { ...answer, headers };
  const reset = Math.ceil((c.nowMs + a.retry_after * 1000) / 1000);
  const limit = c.rateLimit?.limit ?? 100;
  return { ...answer, headers, rateLimit: { limit, remaining: 0, reset } };
}

function baseAnswer(a: Extract<FaultAction, { kind: "error" }>, c: FaultAnswerContext): FaultAnswer {
  const message = messageOf(a);
  const required = Math.round((c.credits + 1) * 1000) / 1000;
  switch (a.code) {
    case "rate_limit_exceeded":
      return { status: 429, body: c.rateLimitedBody, ...(c.rateLimit ? { rateLimit: { ...c.rateLimit, remaining: 0 } } : {}) };
    case "invalid_api_key":
      // Refused before the rate limit: no window headers, as a real 401.
      return errorResponse("invalid_api_key", message, { error: "Invalid API key" });
    case "plan_required":
      return { ...errorResponse("plan_required", message, { error: "Plan required" }), ...(c.rateLimit ? { rateLimit: c.rateLimit } : {}) };
    case "insufficient_credits": {
      const text = `Insufficient credits: ${required} required, ${c.credits} available`;
      return {
        status: 402,
        body: { error: text, details: [{ code: "insufficient_credits", message: text }], required, available: c.credits },
        ...(c.rateLimit ? { rateLimit: c.rateLimit } : {}),
      };
    }
    case "INSUFFICIENT_CREDITS":
      return { ...errorResponse(a.code, message, { required, available: c.credits }), ...(c.rateLimit ? { rateLimit: c.rateLimit } : {}) };
    default:
      return {
        ...errorResponse(a.code, message, {
          status: a.status,
          ...(a.status >= 500 && /^[a-z]/.test(a.code) ? { error: a.status === 503 ? "Service unavailable" : "Internal server error" } : {}),
        }),
        ...(c.rateLimit ? { rateLimit: c.rateLimit } : {}),
      };
  }
}
