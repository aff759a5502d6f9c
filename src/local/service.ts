import { errorResponse } from "../contract/errors.js";
import type { OpName } from "../features/operations.js";
import { hasApiAccess } from "../contract/plans.js";
import type { RateLimitInfo } from "../engine/engine.js";
import { ApiError } from "../engine/errors.js";
import { illFormedPath } from "./well-formed.js";
import { localDebug } from "./debug.js";
import { authenticate } from "./keys.js";
import { unavailableResponse } from "./store-fault.js";
import type { Handler, RequestContext, SpaceRow, UrlBuilder } from "./types.js";
import type { LocalInstance } from "./instance.js";
import { abortableSleep } from "../engine/sleep.js";
import { faultAnswer } from "./fault-answer.js";
import { withJobFaults } from "./fault-scope.js";
import type { RequestFaults } from "./faults.js";
import { recordStart, requestFingerprint } from "./starts.js";

export interface DispatchOptions {
  simulate?: string;
  urls: UrlBuilder;
  /** Default true (in process); the HTTP server passes false unless told otherwise. */
  allowLocalFiles?: boolean;
  /** Default true (in process); the HTTP server passes false unless told otherwise. */
  allowPrivateNetwork?: boolean;
}

export interface DispatchResult {
  status: number;
  body: unknown;
  rateLimit?: RateLimitInfo;
  /** Headers beyond the window's (a fault rule's `Retry-After`). */
  headers?: Record<string, string>;
  /**
   * A fault rule said the connection fails: `reset` (closed abruptly) or `empty` (closed with no
   * response). `serve` does that to the socket; the in-process engine throws the network error the
   * hosted client would.
   */
  transport?: "reset" | "empty";
}

/**
 * The service's front door, shared by the in-process engine and the HTTP server: auth (401), plan
 * (403), rate limit (429), then the operation's rule. Never throws for service errors.
 */
export class LocalService {
  /**
   * Verdicts of recent Authorization headers. A hit skips hashing and two lookups on every request
   * (a third of a served request's time). It is dropped whenever any other connection has committed
   * (`PRAGMA data_version` moved: a revoke from another process takes effect at once) and when this
   * instance changes keys itself (`forgetAuth`). Only successful verdicts are kept.
   */
  private readonly authCache = new Map<string, { space: SpaceRow; keyId: string }>();
  private authVersion = -1;
  private static readonly AUTH_CACHE_MAX = 1000;

  constructor(private readonly instance: LocalInstance) {}

  /** Drops every cached verdict (this instance revoked, regenerated or reset keys). */
  forgetAuth(): void {
    this.authCache.clear();
  }

  private cachedSpace(authorization: string | undefined): { space: SpaceRow; keyId: string } | undefined {
    const version = this.instance.db.prepare("PRAGMA data_version").get() as { data_version: number };
    if (version.data_version !== this.authVersion) {
      this.authCache.clear();
      this.authVersion = version.data_version;
      return undefined;
    }
    return authorization === undefined ? undefined : this.authCache.get(authorization);
  }

  private remember(authorization: string, verdict: { space: SpaceRow; keyId: string }): void {
    if (this.authCache.size >= LocalService.AUTH_CACHE_MAX) this.authCache.clear();
    this.authCache.set(authorization, verdict);
  }

  /**
   * Auth (401) and plan (403), the checks that come before anything else. A denied plan carries the
   * window's numbers without counting the request.
   */
  authorize(authorization: string | undefined): { space: SpaceRow; keyId: string; denied?: undefined } | { space?: undefined; denied: DispatchResult } {
    let verdict = this.cachedSpace(authorization);
    if (!verdict) {
      const auth = authenticate(this.instance.db, authorization);
      if (!auth.ok) return { denied: { status: auth.status, body: auth.body } };
      verdict = { space: auth.space, keyId: auth.keyId };
      this.remember(authorization!, verdict);
    }
    const { space, keyId } = verdict;
    if (!hasApiAccess(space.plan)) {
      const { status, body } = errorResponse("plan_required", `API access requires the PRO plan or higher; this space is on the ${space.plan} plan`, {
        error: "Plan required",
      });
      return { denied: { status, body, rateLimit: this.instance.rateLimiter.peek(space.id) } };
    }
    return { space, keyId };
  }

  /** The answer of a fault rule that fired: an error in the operation's own shape, or a dropped connection. */
  private faulted(answer: NonNullable<RequestFaults["answer"]>, space: SpaceRow, rateLimit: RateLimitInfo | undefined): DispatchResult {
    if (answer.kind !== "error") return { status: 0, body: undefined, transport: answer.kind };
    return faultAnswer(answer, {
      nowMs: this.instance.clock.now(),
      credits: this.instance.ledger.balance(space.id) / 1000,
      rateLimit,
      rateLimitedBody: this.instance.rateLimiter.rejectionBody(),
    });
  }

  /** The operation's handler, once the door (auth, plan, window, request faults) let the request in. */
  private async handle(
    op: OpName,
    input: Record<string, unknown>,
    opts: DispatchOptions,
    r: { space: SpaceRow; rateLimit: RateLimitInfo | undefined; faults: RequestFaults; happened: { jobFailed: boolean; jobStarted: boolean; lowered: boolean } },
  ): Promise<DispatchResult> {
    const { space, rateLimit, faults, happened } = r;
    const parts = this.instance.parts;
    // The features' handlers load on first use (src/features/local.ts).
    if (!(op in parts.handlers) && parts.load) await parts.load(op);
    const handler = parts.handlers[op] as Handler<OpName> | undefined;
    if (!handler) {
      const { body } = errorResponse("not_implemented", `${op} is not implemented by the local instance`, {
        status: 501,
        error: "Not implemented by the local instance",
      });
      return { status: 501, body, rateLimit };
    }

    const illFormed = illFormedPath(input);
    if (illFormed !== undefined) {
      const { status, body } = errorResponse("invalid_value", `${illFormed} is not valid Unicode text (it holds an unpaired surrogate)`, {
        field: illFormed,
      });
      return { status, body, rateLimit };
    }

    const ctx: RequestContext = {
      instance: this.instance,
      space,
      simulate: opts.simulate ?? jobFault(op, input, faults.simulate),
      urls: opts.urls,
      allowLocalFiles: opts.allowLocalFiles ?? true,
      allowPrivateNetwork: opts.allowPrivateNetwork ?? true,
    };
    // The contract's rules (src/features/request-check.ts), the only shape check: a refused request reaches no handler.
    const refused = await parts.check?.(op, input ?? {});
    if (refused) return { status: refused.status, body: refused.body, rateLimit };
    const queued = this.instance.jobs.enqueued;
    // A start is kept where a batch re-run after a crash finds it (./starts.ts): by its handler, in the
    // transaction that makes it; the request as the caller sent it, before a handler reads (or changes) it.
    const fingerprint = parts.starts?.isStart(op) ? requestFingerprint(input ?? {}) : undefined;
    let kept = false;
    const keep = (answer: unknown) => {
      kept = true;
      recordStart(this.instance, { spaceId: space.id, op, fingerprint: fingerprint!, answer, cost: () => parts.starts!.cost(op, input ?? {}, answer) });
    };
    if (fingerprint !== undefined) ctx.keepStart = keep;
    const run = () => handler(ctx, (input ?? {}) as never);
    let body: unknown = await (faults.stallMs !== undefined ? withJobFaults({ stallMs: faults.stallMs }, run) : run());
    // A start whose handler did not keep it (none should: test/unit/local-starts.test.ts) is kept now.
    if (fingerprint !== undefined && !kept) keep(body);
    if (this.instance.jobs.enqueued !== queued) {
      this.instance.kick();
      happened.jobStarted = true;
      happened.jobFailed = faults.simulate !== undefined && ctx.simulate === faults.simulate && opts.simulate === undefined;
    }
    if (faults.backwardsBy !== undefined) {
      const lowered = progressBackwards(body, faults.backwardsBy);
      happened.lowered = lowered !== body;
      body = lowered;
    }
    return { status: this.instance.parts.operations[op].status, body, rateLimit };
  }

  async dispatch(authorization: string | undefined, op: OpName, input: Record<string, unknown>, opts: DispatchOptions): Promise<DispatchResult> {
    let rateLimit: RateLimitInfo | undefined;
    try {
      // A database deleted or replaced under this process: nothing it holds is current, nothing may go into it.
      const gone = this.instance.storeProblem();
      if (gone) {
        this.instance.reportStoreFault(gone);
        return unavailableResponse(gone);
      }
      // Every request (status polls included) makes sure queued work has a live worker; cheap, throttled.
      this.instance.supervise();
      const gate = this.authorize(authorization);
      if (!gate.space) return gate.denied;
      const { space } = gate;
      const limiter = this.instance.rateLimiter;
      const isRead = this.instance.parts.operations[op]?.method === "GET";

      let decision: ReturnType<typeof limiter.hit>;
      try {
        decision = limiter.hit(space.id);
      } catch (e) {
        // Counting is a write. When the storage refuses writes (a full disk), a read is still
        // answered, uncounted, with the window as it stands; a write would fail further on anyway.
        const fault = this.instance.reportStoreFault(e);
        if (!fault) throw e;
        if (!isRead) return { ...unavailableResponse(fault), rateLimit: limiter.peek(space.id) };
        const info = limiter.peek(space.id);
        decision = { allowed: info.remaining > 0, info };
      }
      rateLimit = decision.info;
      if (!decision.allowed) return { status: 429, body: limiter.rejectionBody(), rateLimit };

      // Faults on demand (src/local/faults.ts): after the count, as a real failure would be counted.
      const faults = this.instance.faults.forRequest(op, space.id, gate.keyId);
      if (faults.delayMs > 0) await abortableSleep(faults.delayMs);
      if (faults.answer) return this.faulted(faults.answer, space, rateLimit);

      // Job and progress rules taken for this request count only if their effect happened (faults.ts settle).
      const happened = { jobFailed: false, jobStarted: false, lowered: false };
      try {
        return await this.handle(op, input, opts, { space, rateLimit, faults, happened });
      } finally {
        if (faults.taken.job_fail || faults.taken.job_stall || faults.taken.progress_backwards) this.instance.faults.settle(faults, happened);
      }
    } catch (e) {
      if (e instanceof ApiError) return { status: e.status, body: e.body, rateLimit };
      const fault = this.instance.reportStoreFault(e);
      if (fault) return { ...unavailableResponse(fault), rateLimit };
      localDebug(`${op} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      const { status, body } = errorResponse("internal_error", "The local instance failed to handle this request", {
        error: "Internal server error",
      });
      return { status, body, rateLimit };
    }
  }
}

/** A status read as a `progress_backwards` rule shows it: progress lowered while the job runs. */
function progressBackwards(body: unknown, by: number): unknown {
  if (!body || typeof body !== "object") return body;
  const b = { ...(body as Record<string, unknown>) };
  if (b.status !== "pending" && b.status !== "processing") return body;
  for (const field of ["progress", "progress_step"]) {
    if (typeof b[field] === "number") b[field] = Math.max(0, (b[field] as number) - by);
  }
  return b;
}

/**
 * A job_fail rule's failure for the job this request starts. An image-based avatar create starts no
 * job (and refuses a simulated failure): the rule does not apply to it.
 */
function jobFault(op: OpName, input: Record<string, unknown>, simulate: string | undefined): string | undefined {
  if (simulate === undefined) return undefined;
  if (op === "avatarCreate" && (typeof input.prompt !== "string" || input.prompt.trim() === "")) return undefined;
  return simulate;
}
