/** The service's rate-limit headers, written by the server and read by the hosted client and the CLI. */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
}

/** `X-RateLimit-*` headers (lower-case, as HTTP clients report them). */
export function rateLimitHeaders(info: RateLimitInfo | undefined): Record<string, string> {
  if (!info) return {};
  return {
    "x-ratelimit-limit": String(info.limit),
    "x-ratelimit-remaining": String(info.remaining),
    "x-ratelimit-reset": String(info.reset),
  };
}

/** Reads the three headers (lower-cased names); `undefined` unless all three are numbers. */
export function readRateLimit(h: Record<string, string>): RateLimitInfo | undefined {
  const limit = Number(h["x-ratelimit-limit"]);
  const remaining = Number(h["x-ratelimit-remaining"]);
  const reset = Number(h["x-ratelimit-reset"]);
  if (h["x-ratelimit-limit"] === undefined || ![limit, remaining, reset].every(Number.isFinite)) return undefined;
  return { limit, remaining, reset };
}
