import { errorResponse } from "../../contract/errors.js";
import { operations, type OpName } from "../../contract/operations.js";
import { hasApiAccess } from "../../contract/plans.js";
import type { RateLimitInfo } from "../engine.js";
import { ApiError } from "../errors.js";
import { authenticate } from "./keys.js";
import { handlers } from "./rules/index.js";
import type { Handler, RequestContext, UrlBuilder } from "./types.js";
import type { LocalInstance } from "./instance.js";

export interface DispatchOptions {
  simulate?: string;
  urls: UrlBuilder;
}

export interface DispatchResult {
  status: number;
  body: unknown;
  rateLimit?: RateLimitInfo;
}

/**
 * The service's front door, shared by the in-process engine and the HTTP server: auth (401), plan
 * (403), rate limit (429), then the operation's rule. Never throws for service errors.
 */
export class LocalService {
  constructor(private readonly instance: LocalInstance) {}

  async dispatch(
    authorization: string | undefined,
    op: OpName,
    input: Record<string, unknown>,
    opts: DispatchOptions,
  ): Promise<DispatchResult> {
    let rateLimit: RateLimitInfo | undefined;
    try {
      const auth = authenticate(this.instance.db, authorization);
      if (!auth.ok) return { status: auth.status, body: auth.body };
      const { space } = auth;

      const limiter = this.instance.rateLimiter;
      if (!hasApiAccess(space.plan)) {
        rateLimit = limiter.peek(space.id);
        const { status, body } = errorResponse(
          "plan_required",
          `API access requires the PRO plan or higher; this space is on the ${space.plan} plan`,
          { error: "Plan required" },
        );
        return { status, body, rateLimit };
      }

      const decision = limiter.hit(space.id);
      rateLimit = decision.info;
      if (!decision.allowed) return { status: 429, body: limiter.rejectionBody(), rateLimit };

      const handler = handlers[op] as Handler<OpName> | undefined;
      if (!handler) {
        const { body } = errorResponse("not_implemented", `${op} is not implemented by the local instance`, {
          status: 501,
          error: "Not implemented by the local instance",
        });
        return { status: 501, body, rateLimit };
      }

      const ctx: RequestContext = { instance: this.instance, space, simulate: opts.simulate, urls: opts.urls };
      const queued = this.instance.jobs.enqueued;
      const body: unknown = await handler(ctx, (input ?? {}) as never);
      if (this.instance.jobs.enqueued !== queued) this.instance.kick();
      return { status: operations[op].status, body, rateLimit };
    } catch (e) {
      if (e instanceof ApiError) return { status: e.status, body: e.body, rateLimit };
      if (process.env.MEDIAGEN_DEBUG) {
        process.stderr.write(`mediagen-local: ${op} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      }
      const { status, body } = errorResponse("internal_error", "The local instance failed to handle this request", {
        error: "Internal server error",
      });
      return { status, body, rateLimit };
    }
  }
}
