import type { OpName, OpRequest, OpResponse } from "../features/operations.js";
import { BaseEngine, type CallOptions, type RateLimitInfo, type Target } from "../engine/engine.js";
import { ApiError, NetworkError } from "../engine/errors.js";
import { MAX_RATE_WAIT_MS, rateLimitedPastTimeout } from "../engine/rate-wait.js";
import { fillPathOrRefuse } from "../engine/path-params.js";
import { abortableSleep } from "../engine/sleep.js";
import { rateLimitHeaders } from "../contract/rate-limit.js";
import { BODY_MAX_BYTES, payloadTooLarge } from "../contract/limits.js";
import type { UrlBuilder } from "./types.js";
import type { LocalInstance } from "./instance.js";

export interface LocalEngineOptions {
  /** Closing the engine closes the instance. */
  closeInstance?: boolean;
  /** 429s waited out before the 429 is thrown (default 3, as the hosted client). */
  rateLimitRetries?: number;
  /** GETs retried after a dropped connection (a fault rule), as the hosted client retries them (default 3). */
  networkRetries?: number;
  /** Waits (tests move a clock instead); must reject with `signal.reason` when it aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Milliseconds since the epoch; default the instance's clock, the one its windows are counted on. */
  now?: () => number;
  random?: () => number;
  /**
   * Set when the user bounded requests (--request-timeout, MEDIAGEN_REQUEST_TIMEOUT): a call's 429
   * waits then fit in it, or the 429 is thrown at once (exit 6).
   */
  requestTimeoutMs?: number;
}

/**
 * The Engine of the local target: every call goes through the same dispatch as the HTTP server,
 * with the body passed through JSON so callers see exactly what a wire would carry. Like the hosted
 * client it waits out a 429 until the window resets, so `xargs -P 8 mediagen …` works on both.
 */
export class LocalEngine extends BaseEngine {
  readonly target: Target = "local";
  private rateLimit: RateLimitInfo | undefined;
  private readonly closeInstance: boolean;
  private readonly rateLimitRetries: number;
  private readonly networkRetries: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly requestTimeoutMs: number | undefined;

  constructor(
    private readonly instance: LocalInstance,
    private readonly apiKey: string,
    private readonly urls: UrlBuilder,
    options: LocalEngineOptions = {},
  ) {
    super();
    const o = options;
    this.closeInstance = o.closeInstance ?? false;
    this.rateLimitRetries = o.rateLimitRetries ?? 3;
    this.networkRetries = o.networkRetries ?? 3;
    this.sleep = o.sleep ?? abortableSleep;
    this.now = o.now ?? (() => instance.clock.now());
    this.random = o.random ?? Math.random;
    this.requestTimeoutMs = o.requestTimeoutMs;
  }

  async call<K extends OpName>(op: K, input: OpRequest<K>, opts: CallOptions = {}): Promise<OpResponse<K>> {
    opts.signal?.throwIfAborted();
    const wire = JSON.parse(JSON.stringify(input ?? {})) as Record<string, unknown>;
    // Refused as the hosted client refuses it, so both targets answer the same input the same way.
    const def = this.instance.parts.operations[op];
    const { rest } = fillPathOrRefuse(def.path, wire);
    // The body a wire would carry is held to the server's limit: the same 413 in process as over
    // HTTP (after the key's own 401/403, as the server answers it).
    if (def.method === "POST" && Buffer.byteLength(JSON.stringify(rest)) > BODY_MAX_BYTES) {
      const gate = this.instance.service.authorize(`Bearer ${this.apiKey}`);
      if (gate.denied) throw new ApiError(gate.denied.status, gate.denied.body, rateLimitHeaders(gate.denied.rateLimit));
      const { status, body } = payloadTooLarge();
      const window = this.instance.rateLimiter.peek(gate.space.id);
      this.rateLimit = window;
      throw new ApiError(status, body, rateLimitHeaders(window));
    }
    const began = this.now();
    for (let waited = 0, dropped = 0; ; ) {
      const res = await this.instance.service.dispatch(`Bearer ${this.apiKey}`, op, wire, {
        ...(opts.simulate !== undefined ? { simulate: opts.simulate } : {}),
        urls: this.urls,
      });
      if (res.transport) {
        // A fault rule dropped the connection: what the hosted client sees and does (GETs retried with backoff).
        const err = droppedConnection(res.transport);
        if (def.method !== "GET" || dropped >= this.networkRetries) {
          throw new NetworkError(
            `Could not complete ${def.method} ${def.path}: ${err.code} ${err.message}` +
              (def.method !== "GET" ? "; the request may have reached the service; check its status (or the ledger) before retrying" : ""),
            err,
          );
        }
        await this.sleep(networkBackoffMs(dropped++, this.random), opts.signal);
        continue;
      }
      if (res.rateLimit) this.rateLimit = res.rateLimit;
      const body: unknown = res.body === undefined ? undefined : JSON.parse(JSON.stringify(res.body));
      if (res.status === 429 && waited < this.rateLimitRetries && res.rateLimit) {
        // A 429 is answered before any work, so waiting and asking again is safe for a POST too.
        const until = Math.max(0, res.rateLimit.reset * 1000 - this.now());
        const waitMs = Math.min(MAX_RATE_WAIT_MS, until) + Math.round(this.random() * 250);
        const bound = this.requestTimeoutMs;
        if (bound !== undefined && this.now() - began + waitMs > bound) {
          throw rateLimitedPastTimeout(new ApiError(res.status, body, rateLimitHeaders(res.rateLimit)), waitMs, bound);
        }
        opts.onRateLimited?.(waitMs);
        await this.sleep(waitMs, opts.signal);
        opts.signal?.throwIfAborted();
        waited++;
        continue;
      }
      if (res.status >= 400) throw new ApiError(res.status, body, rateLimitHeaders(res.rateLimit));
      return body as OpResponse<K>;
    }
  }

  override lastRateLimit(): RateLimitInfo | undefined {
    return this.rateLimit;
  }

  override async close(): Promise<void> {
    if (this.closeInstance) await this.instance.close();
  }
}

/** The socket error a client reads for a dropped connection. */
function droppedConnection(how: "reset" | "empty"): Error & { code: string } {
  return how === "reset"
    ? Object.assign(new Error("read ECONNRESET (connection reset by the local instance's fault rule)"), { code: "ECONNRESET" })
    : Object.assign(new Error("other side closed (empty response from the local instance's fault rule)"), { code: "UND_ERR_SOCKET" });
}

/** The hosted client's backoff (hosted/retry.ts): half fixed, half random, doubling from 250 ms. */
function networkBackoffMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(8_000, 250 * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
