import { z } from "zod";

/** ISO 8601 timestamp string. */
export const Timestamp = z.string();
/** Query booleans arrive as strings over HTTP and as booleans in process. */
export const QueryBool = z.union([z.boolean(), z.enum(["true", "false", "1", "0"])]);
export const QueryString = z.string();

export function parseQueryBool(v: unknown, dflt = false): boolean {
  if (v === undefined || v === null || v === "") return dflt;
  if (typeof v === "boolean") return v;
  return v === "true" || v === "1";
}

/** Comma-separated list query value → trimmed, non-empty items. */
export function splitList(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  const s = Array.isArray(v) ? v.join(",") : String(v);
  return s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
}
