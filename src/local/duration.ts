import { LocalAdminError } from "./admin-error.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * "1500ms", "30s", "20m", "1h30m", "8d", or a bare number of milliseconds (a number, or digits).
 * The local instance's admin inputs (fault rules, the clock) take these from the CLI, the admin
 * HTTP path and fault files alike; a bad value is a LocalAdminError naming `what`.
 */
export function parseDurationMs(value: unknown, what: string): number {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return Math.round(value);
  if (typeof value === "string") {
    const v = value.trim().toLowerCase();
    if (/^\d+$/.test(v)) return Number(v);
    const parts = [...v.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
    if (parts.length && parts.map((p) => p[0]).join("") === v) {
      return Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * UNITS[p[2]!]!, 0));
    }
  }
  throw new LocalAdminError("invalid", `${what}: not a duration: ${JSON.stringify(value)} (examples: 500ms, 30s, 10m, 8d)`);
}
