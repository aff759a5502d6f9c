import { readEnv, type Env } from "../config/env.js";
import { errorResponse, type ErrorBody } from "../contract/errors.js";
import type { RateLimitInfo } from "../engine/engine.js";
import type { Clock, DB } from "./types.js";
import { counted } from "../engine/words.js";

export interface RateLimitConfig {
  limit: number;
  windowMs: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitConfig = { limit: 100, windowMs: 60_000 };

/**
 * The limit MEDIAGEN_LOCAL_RATE_LIMIT and MEDIAGEN_LOCAL_RATE_WINDOW_MS ask for (each defaulting to
 * DEFAULT_RATE_LIMIT's), read by the one parser in src/config/env.ts: served and in-process
 * instances take the same values and refuse the same bad ones (InvalidEnvError).
 */
export function rateLimitFromEnv(env: Env = process.env): RateLimitConfig {
  return {
    limit: readEnv("MEDIAGEN_LOCAL_RATE_LIMIT", env) ?? DEFAULT_RATE_LIMIT.limit,
    windowMs: readEnv("MEDIAGEN_LOCAL_RATE_WINDOW_MS", env) ?? DEFAULT_RATE_LIMIT.windowMs,
  };
}

export interface RateLimitHost {
  /** Where the windows are counted (the instance's rate-limit store, shared by its processes). */
  readonly ratesDb: DB;
  readonly clock: Clock;
}

export type RateDecision = { allowed: boolean; info: RateLimitInfo };

/** The 429 body exactly as the hosted service sends it. */
export function rateLimitedBody(limit: number, windowMs: number): ErrorBody {
  const per = windowMs === 60_000 ? "minute" : `${windowMs / 1000} seconds`;
  const text = `Rate limit exceeded. Maximum ${counted(limit, "request")} per ${per}.`;
  return errorResponse("rate_limit_exceeded", text).body;
}

/**
 * Fixed windows aligned to the clock, counted in SQLite (the instance's rate-limit store,
 * `<home>/local/rates.db`) so every process using the instance shares one count per space. A rejected request is not counted.
 */
export class RateLimiter {
  constructor(
    private readonly host: RateLimitHost,
    readonly config: RateLimitConfig = DEFAULT_RATE_LIMIT,
  ) {
    if (!(config.limit >= 1 && config.windowMs >= 1)) throw new RangeError("rate limit and window must be positive");
  }

  private window(now: number): { start: number; reset: number } {
    const start = Math.floor(now / this.config.windowMs) * this.config.windowMs;
    return { start, reset: Math.ceil((start + this.config.windowMs) / 1000) };
  }

  /**
   * Counts one request if the window has room: one upsert that increments only below the limit, so
   * the check and the count are a single atomic statement across processes.
   */
  hit(spaceId: string): RateDecision {
    const db = this.host.ratesDb;
    const { limit } = this.config;
    const { start, reset } = this.window(this.host.clock.now());
    const row = db
      .prepare(
        `INSERT INTO rate_windows (space_id, window_start, count) VALUES (?, ?, 1)
         ON CONFLICT (space_id, window_start) DO UPDATE SET count = count + 1 WHERE count < ?
         RETURNING count`,
      )
      .get(spaceId, start, limit) as { count: number } | undefined;
    if (!row) return { allowed: false, info: { limit, remaining: 0, reset } };
    // A space's older windows are dead weight once a new one opens.
    if (row.count === 1) db.prepare("DELETE FROM rate_windows WHERE space_id = ? AND window_start < ?").run(spaceId, start);
    return { allowed: true, info: { limit, remaining: limit - row.count, reset } };
  }

  /** The current window's state without counting (for answers that are not counted, like 403). */
  peek(spaceId: string): RateLimitInfo {
    const { start, reset } = this.window(this.host.clock.now());
    const row = this.host.ratesDb.prepare("SELECT count FROM rate_windows WHERE space_id = ? AND window_start = ?").get(spaceId, start) as { count: number } | undefined;
    return { limit: this.config.limit, remaining: Math.max(0, this.config.limit - (row?.count ?? 0)), reset };
  }

  rejectionBody(): ErrorBody {
    return rateLimitedBody(this.config.limit, this.config.windowMs);
  }
}
