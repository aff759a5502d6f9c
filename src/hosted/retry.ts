/**
 * When the hosted client may try a request again, and how long it waits first. Pure functions so the
 * policy is tested without a network: a POST that may have reached the server is never repeated,
 * because the service debits credits up front and a second POST could debit them twice.
 */
import { MAX_RATE_WAIT_MS } from "../engine/rate-wait.js";

/** Errors raised before any byte of the request could reach the server. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL"]);

/** The system or undici error code of a failure, looking through `cause` chains. */
export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when the request certainly never reached the server (refused connection, DNS failure). */
export function neverSent(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && NOT_SENT_CODES.has(code);
}

/** 5xx that may pass on retry; 501 and 505 say the request can never succeed as sent. */
export function isTransientStatus(status: number): boolean {
  return status >= 500 && status <= 599 && status !== 501 && status !== 505;
}

export type Verdict = { retry: false } | { retry: true; reason: string };

export interface AttemptOutcome {
  method: string;
  /** Retries already made for this reason class. */
  attempt: number;
  maxRetries: number;
  status?: number;
  error?: unknown;
}

/**
 * Network errors and 5xx: GETs are retried; POSTs only when the connection failed before the
 * request could be sent. 429 is handled separately (every method: the server refused before work).
 */
export function shouldRetry(o: AttemptOutcome): Verdict {
  if (o.attempt >= o.maxRetries) return { retry: false };
  const idempotent = o.method === "GET" || o.method === "HEAD";
  if (o.error !== undefined) {
    if (idempotent) return { retry: true, reason: errorCode(o.error) ?? "network error" };
    if (neverSent(o.error)) return { retry: true, reason: `${errorCode(o.error)} (request not sent)` };
    return { retry: false };
  }
  if (o.status !== undefined && isTransientStatus(o.status) && idempotent) return { retry: true, reason: `HTTP ${o.status}` };
  return { retry: false };
}

/** Exponential backoff with jitter: half fixed, half random, so clients do not retry in step. */
export function backoffMs(attempt: number, random: () => number, baseMs = 250, capMs = 8_000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export { MAX_RATE_WAIT_MS };

/**
 * Wait after the n-th 429 that says nothing about its window: 15 s, 30 s, 45 s… so that the default
 * three waits outlast the service's 60 s window instead of giving up within seconds.
 */
export const RATE_FALLBACK_STEP_MS = 15_000;

export interface RateLimitWait {
  /** `X-RateLimit-Reset` of the 429 (unix seconds), as sent. */
  resetHeader: string | undefined;
  /** `Retry-After` of the 429 (seconds or an HTTP date), as sent; it wins over the reset. */
  retryAfterHeader?: string | undefined;
  /** Reset (unix seconds) of the last window any earlier response reported. */
  lastReset: number | undefined;
  /** The server's time (see `serverNowMs`), against which resets are measured. */
  nowMs: number;
  /** 429s already waited out for this request. */
  attempt: number;
  random: () => number;
}

/**
 * How long to wait after a 429, plus up to 250 ms of jitter: until the 429's `X-RateLimit-Reset`;
 * without one, until the last window seen resets; without that either, 15 s × (attempt + 1).
 * A reset already past (the window just turned over) gets a short backoff. Capped at a window.
 */
export function rateLimitWaitMs(o: RateLimitWait): number {
  const jitter = Math.round(o.random() * 250);
  const retryAfter = retryAfterMs(o.retryAfterHeader, o.nowMs);
  if (retryAfter !== undefined) return Math.min(MAX_RATE_WAIT_MS, retryAfter) + jitter;
  const raw = o.resetHeader?.trim();
  const reset = raw ? Number(raw) : NaN;
  if (Number.isFinite(reset)) {
    const until = reset * 1000 - o.nowMs;
    if (until <= 0) return backoffMs(o.attempt, o.random) + jitter;
    return Math.min(MAX_RATE_WAIT_MS, until) + jitter;
  }
  if (o.lastReset !== undefined) {
    const until = o.lastReset * 1000 - o.nowMs;
    if (until > 0) return Math.min(MAX_RATE_WAIT_MS, until) + jitter;
  }
  return Math.min(MAX_RATE_WAIT_MS, RATE_FALLBACK_STEP_MS * (o.attempt + 1)) + jitter;
}

/**
 * A `Retry-After` header as milliseconds from `nowMs` (the server's time): delay-seconds or an HTTP
 * date; undefined when absent or not one of the two.
 */
export function retryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  const raw = header?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isFinite(at) && /[a-z]/i.test(raw) ? Math.max(0, at - nowMs) : undefined;
}

/**
 * The server's clock at the time of a response: its `Date` header when it has a valid one (resets
 * are the server's seconds, and this machine's clock may be off by minutes), else the local clock.
 */
export function serverNowMs(dateHeader: string | undefined, localNowMs: number): number {
  const t = dateHeader ? Date.parse(dateHeader) : NaN;
  return Number.isFinite(t) ? t : localNowMs;
}
