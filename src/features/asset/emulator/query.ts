/** The first value of a query parameter as a string; undefined when absent or empty. */
export function queryString(v: unknown): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  return Array.isArray(v) ? String(v[0]) : String(v);
}
