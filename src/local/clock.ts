import { LocalAdminError } from "./admin-error.js";
import type { Clock, DB } from "./types.js";

/** How far the instance's clock may be from the real one: a century (and never past year 9999). */
export const MAX_CLOCK_SHIFT_MS = 100 * 365 * 86_400_000;
/** The last instant a Date (and ISO 8601 with four-digit years) can show. */
const MAX_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to, so tests of windows, leases and backoff never sleep. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: number | Date = Date.UTC(2025, 0, 1)) {
    this.t = typeof start === "number" ? start : start.getTime();
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(t: number | Date): void {
    this.t = typeof t === "number" ? t : t.getTime();
  }
}

export function isoOf(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

/** The instance clock's own state: moved forward, frozen (settings `clock_offset_ms`, `clock_frozen_at`). */
export interface ClockState {
  /** Milliseconds added to the real (or injected) clock. */
  offset_ms: number;
  /** While frozen, the instant the clock stays at (ms since the epoch). */
  frozen_at: number | null;
  /** What the instance reads now, ISO 8601. */
  now: string;
  /** What the machine's (or injected) clock reads, ISO 8601. */
  real: string;
}

interface ClockHost {
  /** The connection to read the state from; throws when closed (the last state read is kept then). */
  readonly db: DB;
  tx<T>(fn: () => T): T;
}

const OFFSET_KEY = "clock_offset_ms";
const FROZEN_KEY = "clock_frozen_at";

/**
 * The local instance's clock (`mediagen local clock advance|freeze|reset`): the base clock moved by
 * an offset, or frozen at an instant. The state is in the instance's settings, so every process of the
 * instance reads the same time: it is read again whenever another connection has committed (SQLite's
 * `data_version`, one cheap pragma per reading) and after this process changes it.
 */
export class InstanceClock implements Clock {
  private offset = 0;
  private frozen: number | null = null;
  private version = -1;
  private db: DB | undefined;
  private versionStmt: { get(): unknown } | undefined;
  private checkedAt = -Infinity;

  constructor(
    readonly base: Clock,
    private readonly host: ClockHost,
  ) {}

  now(): number {
    this.refresh();
    return this.frozen ?? this.base.now() + this.offset;
  }

  private refresh(): void {
    // A request reads the clock many times: the state is looked at again at most once a millisecond
    // (another process's change lands as if its command had come that much later). hrtime, not the
    // `performance` global: that loads perf_hooks, which a local read does not otherwise need.
    const t = Number(process.hrtime.bigint()) / 1e6;
    if (t - this.checkedAt < 1 && this.db !== undefined) return;
    this.checkedAt = t;
    try {
      const db = this.host.db;
      if (db !== this.db) this.versionStmt = db.prepare("PRAGMA data_version").pluck();
      const version = this.versionStmt!.get() as number;
      if (db === this.db && version === this.version) return;
      this.db = db;
      this.version = version;
      this.load(db);
    } catch {
      // Closed or not open yet: the last state read stands.
    }
  }

  private load(db: DB): void {
    const rows = db.prepare("SELECT key, value FROM settings WHERE key IN (?, ?)").all(OFFSET_KEY, FROZEN_KEY) as { key: string; value: string }[];
    const get = (k: string) => rows.find((r) => r.key === k)?.value;
    // A state out of bounds (written before they were checked, or by hand) is not applied: every
    // command still runs, and `local clock reset` clears it.
    const offset = Number(get(OFFSET_KEY) ?? 0) || 0;
    this.offset = Math.abs(offset) <= MAX_CLOCK_SHIFT_MS ? offset : 0;
    const f = get(FROZEN_KEY);
    const frozen = f === undefined ? null : Number(f);
    this.frozen = frozen !== null && Number.isFinite(frozen) && frozen >= 0 && frozen <= MAX_INSTANT ? frozen : null;
  }

  /** Refuses a move that would put the clock more than a century from the real one (or past year 9999). */
  private checkBound(offset: number, frozen: number | null): void {
    const base = this.base.now();
    const shift = frozen !== null ? frozen - base : offset;
    const at = frozen ?? base + offset;
    if (!Number.isFinite(shift) || Math.abs(shift) > MAX_CLOCK_SHIFT_MS || !(at <= MAX_INSTANT)) {
      throw new LocalAdminError(
        "invalid",
        `duration: the local clock may be at most 100 years ahead of the real one (it is ${Math.round(this.offsetNow() / 86_400_000)} days ahead now); nothing was changed`,
      );
    }
  }

  private offsetNow(): number {
    return this.frozen !== null ? this.frozen - this.base.now() : this.offset;
  }

  private save(offset: number, frozen: number | null): void {
    this.host.tx(() => {
      const db = this.host.db;
      const put = db.prepare("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
      const drop = db.prepare("DELETE FROM settings WHERE key = ?");
      if (offset === 0) drop.run(OFFSET_KEY);
      else put.run(OFFSET_KEY, String(offset));
      if (frozen === null) drop.run(FROZEN_KEY);
      else put.run(FROZEN_KEY, String(frozen));
    });
    this.offset = offset;
    this.frozen = frozen;
  }

  /** Moves the clock forward by `ms` (frozen or not). */
  advance(ms: number): ClockState {
    this.checkedAt = -Infinity;
    this.refresh();
    if (this.frozen !== null) {
      this.checkBound(this.offset, this.frozen + ms);
      this.save(this.offset, this.frozen + ms);
    } else {
      this.checkBound(this.offset + ms, null);
      this.save(this.offset + ms, null);
    }
    return this.state();
  }

  /** Stops the clock at the instant it reads now. */
  freeze(): ClockState {
    this.checkedAt = -Infinity;
    this.refresh();
    this.save(this.offset, this.now());
    return this.state();
  }

  /** Back to the real (or injected) clock. */
  reset(): ClockState {
    this.save(0, null);
    return this.state();
  }

  state(): ClockState {
    const now = this.now();
    return {
      offset_ms: this.frozen !== null ? this.frozen - this.base.now() : this.offset,
      frozen_at: this.frozen,
      now: new Date(now).toISOString(),
      real: new Date(this.base.now()).toISOString(),
    };
  }
}
