/**
 * Longest wait for a rate-limit reset: a window of the service plus slack for clock skew. Both
 * engines wait out a 429 for at most this long, so both targets behave the same under load.
 */
export const MAX_RATE_WAIT_MS = 65_000;

/**
 * A 429 whose window outlasts the time the user gave the request (--request-timeout or
 * MEDIAGEN_REQUEST_TIMEOUT set): thrown at once rather than waited out (exit 6), with why.
 */
export function rateLimitedPastTimeout<E extends Error>(err: E, waitMs: number, timeoutMs: number): E {
  const s = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
  try {
    (err as { hint?: string }).hint =
      `The service's rate-limit window resets in ${s(waitMs)}, past the request timeout (${s(timeoutMs)}, --request-timeout): not waited for. Raise it, or try again later.`;
  } catch {
    // a frozen error goes out as it is
  }
  return err;
}
