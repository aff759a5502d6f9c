/**
 * Removes anything key-like from text meant for people (debug traces, errors, logs, warnings).
 * The spec fixes "a live prefix" for keys without saying which, so any `<prefix>_live_<hex>` token is
 * masked (and `_test_` ones), whatever the prefix; so is every Bearer value that could be a
 * credential (not a placeholder such as `<key>` or a lower-case word: "Bearer followed by…" keeps its
 * words), and every key this process was handed (`registerSecret`), whatever its format: a service
 * that echoes the key in an error message must not get it onto the terminal.
 */
/** Shorter strings would mask ordinary words. */
const MIN_SECRET_LENGTH = 8;
const MIN_KEY_HEX = 8;
const secrets = new Set<string>();
/** Characters examined by the last redact() call (tests check it stays linear in the input). */
let work = 0;

/** Masks `secret` wherever redact() runs, from now on (the key a command uses, any format). */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= MIN_SECRET_LENGTH) secrets.add(secret);
}

/**
 * Forgets every registered secret: for a process that runs one command after another in one module
 * cache (the test suite's shared workers), so each starts as a process of its own would.
 */
export function forgetSecrets(): void {
  secrets.clear();
}

/** How many characters the last redact() call examined: a few times its input's length, never more. */
export function lastRedactWork(): number {
  return work;
}

/**
 * Every pass below is a forward scan that never goes back more than a few characters: text for
 * people can be a hostile server's megabyte, and a backtracking pattern over it (the old
 * `([A-Za-z0-9]+)_(live|test)_…`) retried from every position, quadratic in the input.
 */
export function redact(text: string): string {
  work = 0;
  let out = text;
  for (const s of secrets) {
    work += out.length;
    if (out.includes(s)) out = out.split(s).join("[REDACTED]");
  }
  return maskBearerValues(maskKeyLike(out));
}

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** `<prefix>_live_<hex>` and `_test_` keys: the hex part (at least 8 digits) becomes [REDACTED]. */
function maskKeyLike(text: string): string {
  let out = "";
  let copied = 0;
  let from = 0;
  for (;;) {
    const u = text.indexOf("_", from);
    work += (u < 0 ? text.length : u) - from + 1;
    if (u < 0) break;
    from = u + 1;
    if (u === 0 || !isAlnum(text.charCodeAt(u - 1))) continue;
    if (!text.startsWith("live_", u + 1) && !text.startsWith("test_", u + 1)) continue;
    const hexStart = u + 6;
    let end = hexStart;
    while (end < text.length && isHex(text.charCodeAt(end))) end++;
    work += end - hexStart;
    if (end - hexStart < MIN_KEY_HEX) continue;
    out += text.slice(copied, hexStart) + "[REDACTED]";
    copied = end;
    from = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const BEARER = /bearer(?=\s)/gi;
/** What `\s` matches in the Latin-1 range, plus the few wider spaces; a Bearer value ends there. */
const isSpace = (c: number) =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x2028 || c === 0x2029 || c === 0xfeff || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);
const endsValue = (c: number) => isSpace(c) || c === 34 || c === 39 || c === 44;

/**
 * A Bearer value is masked unless it is plainly not a credential: a placeholder (`<key>`,
 * `{token}`, `[KEY]`, `$VAR`, `${VAR}`, `…`) or a short lower-case word ("Bearer followed by…"), so
 * a hint that explains the header keeps its words.
 */
function isPlaceholderOrWord(v: string): boolean {
  if (/^(<[^<>]*>|\{[^{}]*\}|\[[^[\]]*\]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|…|\.\.\.)[.:;)]?$/.test(v)) return true;
  return /^[a-z]{1,12}[.:;)]?$/.test(v);
}

function maskBearerValues(text: string): string {
  let out = "";
  let copied = 0;
  BEARER.lastIndex = 0;
  for (let m = BEARER.exec(text); m; m = BEARER.exec(text)) {
    let start = m.index + m[0].length;
    while (start < text.length && isSpace(text.charCodeAt(start))) start++;
    let end = start;
    while (end < text.length && !endsValue(text.charCodeAt(end))) end++;
    work += end - m.index;
    BEARER.lastIndex = Math.max(end, m.index + 1);
    const value = text.slice(start, end);
    if (value === "" || value === "[REDACTED]" || isPlaceholderOrWord(value)) continue;
    out += text.slice(copied, start) + "[REDACTED]";
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
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
