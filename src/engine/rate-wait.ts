/**
 * Longest wait for a rate-limit reset: a window of the service plus slack for clock skew. Both
 * engines wait out a 429 for at most this long, so both targets behave the same under load.
 */
export const MAX_RATE_WAIT_MS = 65_000;
