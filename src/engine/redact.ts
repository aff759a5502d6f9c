/**
 * Removes anything key-like from text meant for people (debug traces, errors, logs, warnings).
 * The spec fixes "a live prefix" for keys without saying which, so any `<prefix>_live_<hex>` token is
 * masked (and `_test_` ones), whatever the prefix; so is every Bearer value, and every key this
 * process was handed (`registerSecret`), whatever its format: a service that echoes the key in an
 * error message must not get it onto the terminal.
 */
const KEY_RE = /([A-Za-z0-9]+)_(live|test)_[0-9a-fA-F]{8,}/g;
const BEARER_RE = /(Bearer\s+)[^\s"',]+/gi;
/** Shorter strings would mask ordinary words. */
const MIN_SECRET_LENGTH = 8;
const secrets = new Set<string>();

/** Masks `secret` wherever redact() runs, from now on (the key a command uses, any format). */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= MIN_SECRET_LENGTH) secrets.add(secret);
}

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join("[REDACTED]");
  return out.replace(KEY_RE, "$1_$2_[REDACTED]").replace(BEARER_RE, "$1[REDACTED]");
}

/** Shows that a key is set without showing it: its prefix (`sk_live_`) and last four characters. */
export function maskKey(key: string): string {
  if (key.length <= 12) return "****";
  const prefix = /^[A-Za-z0-9][A-Za-z0-9_-]*?_(?:live|test)_/.exec(key)?.[0] ?? key.slice(0, 3);
  // A prefix that is most of the key would show too much of an oddly shaped one.
  return `${prefix.length <= key.length - 16 ? prefix : key.slice(0, 3)}…${key.slice(-4)}`;
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
