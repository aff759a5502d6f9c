/** Removes anything key-like from text meant for people (debug traces, errors, logs). */
const KEY_RE = /mg_(live|test)_[0-9a-fA-F]{8,}/g;
const BEARER_RE = /(Bearer\s+)[^\s"',]+/gi;

export function redact(text: string): string {
  return text.replace(KEY_RE, "mg_$1_[REDACTED]").replace(BEARER_RE, "$1[REDACTED]");
}

/** Shows that a key is set without showing it: prefix and last four characters. */
export function maskKey(key: string): string {
  if (key.length <= 12) return "****";
  const prefix = key.startsWith("mg_live_") ? "mg_live_" : key.slice(0, 3);
  return `${prefix}…${key.slice(-4)}`;
}

/** Copies headers with the Authorization value (and any key-like value) redacted. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const s = Array.isArray(v) ? v.join(", ") : v;
    out[k] = k.toLowerCase() === "authorization" ? "[REDACTED]" : redact(s);
  }
  return out;
}
