/** Small parsers for flag values, shared by command modules. Failures are usage errors (exit 2). */
import { CliError, EXIT } from "./types.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "90s", "20m", "1h30m", "1500ms", or a bare number of seconds. */
export function parseDuration(value: string, flag: string): number {
  const v = value.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const parts = [...v.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length && parts.map((p) => p[0]).join("") === v) {
    return Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * UNITS[p[2]!]!, 0));
  }
  throw new CliError(`${flag}: not a duration: "${value}" (examples: 30s, 20m, 1h)`, EXIT.usage, "invalid_value", flag);
}

export function formatDuration(ms: number): string {
  if (ms > 0 && ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return [h ? `${h}h` : "", m ? `${m}m` : "", sec || (!h && !m) ? `${sec}s` : ""].join("");
}

/** A credit amount: non-negative, at most three decimals (the ledger's fraction). */
export function parseCredits(value: string, name: string): number {
  const v = value.trim();
  if (!/^\d+(\.\d{1,3})?$/.test(v)) {
    throw new CliError(`${name}: credits must be a non-negative number with at most 3 decimals, got "${value}"`, EXIT.usage, "invalid_value", name);
  }
  return Number(v);
}

/** --timeout and --interval of watch modes, as the wait engine takes them. */
export function waitOptionsFrom(opts: { timeout?: string; interval?: string }): { timeoutMs?: number; intervalMs?: number } {
  const out: { timeoutMs?: number; intervalMs?: number } = {};
  if (opts.timeout !== undefined) out.timeoutMs = parseDuration(opts.timeout, "--timeout");
  if (opts.interval !== undefined) {
    out.intervalMs = parseDuration(opts.interval, "--interval");
    if (out.intervalMs < 100) throw new CliError("--interval: at least 100ms", EXIT.usage, "invalid_value", "--interval");
  }
  return out;
}
