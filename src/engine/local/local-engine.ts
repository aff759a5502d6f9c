import type { OpName, OpRequest, OpResponse } from "../../contract/operations.js";
import { BaseEngine, type CallOptions, type RateLimitInfo, type Target } from "../engine.js";
import { ApiError } from "../errors.js";
import { rateLimitHeaders } from "../../contract/rate-limit.js";
import type { UrlBuilder } from "./types.js";
import type { LocalInstance } from "./instance.js";

/**
 * The Engine of the local target: every call goes through the same dispatch as the HTTP server,
 * with the body passed through JSON so callers see exactly what a wire would carry.
 */
export class LocalEngine extends BaseEngine {
  readonly target: Target = "local";
  private rateLimit: RateLimitInfo | undefined;

  constructor(
    private readonly instance: LocalInstance,
    private readonly apiKey: string,
    private readonly urls: UrlBuilder,
    private readonly closeInstance = false,
  ) {
    super();
  }

  async call<K extends OpName>(op: K, input: OpRequest<K>, opts: CallOptions = {}): Promise<OpResponse<K>> {
    opts.signal?.throwIfAborted();
    const wire = JSON.parse(JSON.stringify(input ?? {})) as Record<string, unknown>;
    const res = await this.instance.service.dispatch(`Bearer ${this.apiKey}`, op, wire, {
      ...(opts.simulate !== undefined ? { simulate: opts.simulate } : {}),
      urls: this.urls,
    });
    if (res.rateLimit) this.rateLimit = res.rateLimit;
    const body: unknown = res.body === undefined ? undefined : JSON.parse(JSON.stringify(res.body));
    if (res.status >= 400) throw new ApiError(res.status, body, rateLimitHeaders(res.rateLimit));
    return body as OpResponse<K>;
  }

  override lastRateLimit(): RateLimitInfo | undefined {
    return this.rateLimit;
  }

  override async close(): Promise<void> {
    if (this.closeInstance) await this.instance.close();
  }
}
