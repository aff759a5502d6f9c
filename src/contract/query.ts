/** Reading query values (no zod: the local dispatch reads them on every list request). */
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
