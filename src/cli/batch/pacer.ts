/**
 * One scheduler for every request a batch sends (starts, status polls, pricing): it paces them by
 * the service's `X-RateLimit-Limit/Remaining/Reset` headers so the batch never meets a 429 in
 * steady state, whatever `--parallel` is.
 *
 * - Until the first answer tells the limit, one request at a time (a probe).
 * - Then a budget of requests for the current window: what the last answer said remained, minus
 *   the requests still in flight (they may or may not be counted yet: assuming they are is the safe
 *   side). Each request sent takes one; when none is left, nothing is sent until the window's reset
 *   (plus a margin for clocks and rounding), then the budget is the whole limit again.
 * - Status polls go before starts: work already paid for is followed first, and a burst of starts
 *   cannot starve the polls of the jobs in flight.
 * - A 429 that happens anyway (another client on the same space) empties the budget until the reset.
 */
import type { RateLimitInfo } from "../../engine/engine.js";
import { readRateLimit } from "../../contract/rate-limit.js";

export interface PacerClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Lower goes first. */
export const PRIORITY = { poll: 0, start: 1 } as const;

interface Waiter {
  prio: number;
  seq: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class Pacer {
  private limit: number | undefined;
  private tokens = 0;
  /** When the current window ends (ms, margin included); undefined: not known since the last rollover. */
  private resetAt: number | undefined;
  private inflight = 0;
  private waiters: Waiter[] = [];
  private seq = 0;
  private pumping = false;
  private wake: (() => void) | undefined;
  /** Told when nothing may be sent until the window resets, for a second or more (so the wait is said). */
  onWindowWait: ((waitMs: number, limit: number) => void) | undefined;
  /** The window end last told to onWindowWait: each window is told once. */
  private toldFor: number | undefined;
  /** Requests sent, and 429s met (waited out by the engine). */
  sent = 0;
  limited = 0;

  constructor(
    private readonly clock: PacerClock,
    private readonly signal: AbortSignal,
    private readonly marginMs = 250,
  ) {
    signal.addEventListener("abort", () => {
      for (const w of this.waiters.splice(0)) w.reject(signal.reason);
      this.wake?.();
    });
  }

  /** Resolves when one request may be sent; call `settle` when its answer (or error) is in. */
  acquire(prio: number): Promise<void> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ prio, seq: this.seq++, resolve, reject });
      this.kick();
    });
  }

  /** The answer of a request taken with `acquire`: its rate-limit headers, when it had any. */
  settle(info: RateLimitInfo | undefined): void {
    if (info && Number.isFinite(info.limit) && Number.isFinite(info.remaining) && Number.isFinite(info.reset)) {
      this.limit = info.limit;
      const resetAt = info.reset * 1000 + this.marginMs;
      const others = this.inflight - 1;
      if (this.resetAt === undefined || resetAt > this.resetAt) {
        this.resetAt = resetAt;
        this.tokens = info.remaining - others;
      } else if (resetAt === this.resetAt) {
        this.tokens = Math.min(this.tokens, info.remaining - others);
      }
    }
    this.inflight = Math.max(0, this.inflight - 1);
    this.kick();
  }

  /** A 429 was met (and waited out by the engine): nothing more until the reset. */
  rateLimited(): void {
    this.limited++;
    this.tokens = 0;
  }

  /** Runs `fn` as one paced request. */
  async run<T>(prio: number, fn: () => Promise<T>, info: () => RateLimitInfo | undefined): Promise<T> {
    await this.acquire(prio);
    let settled = false;
    try {
      const r = await fn();
      settled = true;
      this.settle(info());
      return r;
    } catch (e) {
      if (!settled) this.settle(rateInfoOf(e) ?? info());
      throw e;
    }
  }

  private kick(): void {
    this.wake?.();
    if (this.pumping) return;
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.waiters.length && !this.signal.aborted) this.kick();
    });
  }

  private next(): Waiter | undefined {
    if (!this.waiters.length) return undefined;
    let best = 0;
    for (let i = 1; i < this.waiters.length; i++) {
      const a = this.waiters[i]!;
      const b = this.waiters[best]!;
      if (a.prio < b.prio || (a.prio === b.prio && a.seq < b.seq)) best = i;
    }
    return this.waiters.splice(best, 1)[0];
  }

  private grant(): void {
    const w = this.next();
    if (!w) return;
    this.inflight++;
    this.sent++;
    w.resolve();
  }

  private async pump(): Promise<void> {
    while (this.waiters.length && !this.signal.aborted) {
      const now = this.clock.now();
      if (this.resetAt !== undefined && now >= this.resetAt) {
        // A new window: the whole limit, less what is still in flight.
        this.resetAt = undefined;
        this.tokens = (this.limit ?? 1) - this.inflight;
      }
      if (this.limit === undefined) {
        // Not known yet: one probe at a time until an answer tells the limit.
        if (this.inflight === 0) {
          this.grant();
          continue;
        }
        await this.idle();
        continue;
      }
      if (this.tokens > 0) {
        this.tokens--;
        this.grant();
        continue;
      }
      if (this.resetAt !== undefined) {
        const waitMs = this.resetAt - now;
        if (waitMs >= 1000 && this.toldFor !== this.resetAt) {
          this.toldFor = this.resetAt;
          this.onWindowWait?.(waitMs, this.limit);
        }
        await this.clock.sleep(Math.max(1, this.resetAt - now), this.signal).catch(() => undefined);
        continue;
      }
      // Out of budget in a window whose end is not known yet: the next answer will tell.
      await this.idle();
    }
  }

  /** Until settle/acquire/abort wakes the pump. */
  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
    });
  }
}

/** The rate-limit headers an ApiError carries. */
export function rateInfoOf(e: unknown): RateLimitInfo | undefined {
  const h = e && typeof e === "object" ? (e as { headers?: unknown }).headers : undefined;
  return h && typeof h === "object" ? readRateLimit(h as Record<string, string>) : undefined;
}
