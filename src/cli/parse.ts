/** Small parsers for flag values, shared by command modules. Failures are usage errors (exit 2). */
import fs from "node:fs";
import path from "node:path";
import { CliError, EXIT } from "./types.js";

/** Commander's reducer for a repeatable flag: every value, in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

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

/** Whether a start or status command waits: --download implies --watch. */
export function waits(flags: { watch?: boolean; download?: string }): boolean {
  return flags.watch === true || flags.download !== undefined;
}

/** Bad --timeout/--interval/--download of a start command fail before anything is debited. */
export async function checkWaitFlags(flags: { watch?: boolean; download?: string; timeout?: string; interval?: string }): Promise<void> {
  if (waits(flags)) waitOptionsFrom(flags);
  if (flags.download !== undefined) (await import("./download.js")).prepareDir(flags.download);
}

/** `--simulate fail` / `fail:<CODE>`: local-only deterministic failure (X-Local-Simulate). */
export function parseSimulate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^fail(:[A-Za-z0-9_.-]+)?$/.test(value)) {
    throw new CliError(`--simulate: expected fail or fail:<CODE>, got "${value}"`, EXIT.usage, "invalid_value", "--simulate");
  }
  return value;
}

/**
 * A URL or a path: an existing local file is made absolute so the instance finds it whatever its
 * working directory; anything else is passed on for the service to judge.
 */
export function absoluteIfFile(value: string): string {
  if (!/^[a-z][a-z0-9+.-]+:/i.test(value)) {
    try {
      if (fs.statSync(value).isFile()) return path.resolve(value);
    } catch {
      // not a local file
    }
  }
  return value;
}
