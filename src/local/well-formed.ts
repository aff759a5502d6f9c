/**
 * Text the service stores must be valid Unicode. A lone surrogate (`"\ud800"` in JSON) cannot be
 * written as UTF-8: SQLite would keep replacement characters and the caller would read back something
 * else than it sent. Such input is refused instead, naming where it is.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

/** The JSON path of the first string (key or value) holding an unpaired surrogate, or undefined. */
export function illFormedPath(value: unknown, at = "", depth = 0): string | undefined {
  if (typeof value === "string") return wellFormed(value) ? undefined : at || "(body)";
  if (depth > 32 || value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedPath(value[i], `${at}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    const here = at ? `${at}.${k}` : k;
    if (!wellFormed(k)) return here;
    const found = illFormedPath(v, here, depth + 1);
    if (found) return found;
  }
  return undefined;
}
