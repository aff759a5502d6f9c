import type { Clock } from "./types.js";

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
