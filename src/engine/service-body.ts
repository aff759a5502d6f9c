/**
 * The body the service sent, kept beside the copy a command reads. When an answer has an odd optional
 * field, the hosted client hands commands a copy without it (read as absent) while `--json` still
 * prints what the service sent, unchanged.
 */
const sent = new WeakMap<object, unknown>();

/** Remembers that `reading` is a tolerant copy of `body`. */
export function rememberServiceBody(reading: unknown, body: unknown): void {
  if (reading && typeof reading === "object" && reading !== body) sent.set(reading, body);
}

/** What the service sent for `value` (the value itself when it was read as sent). */
export function serviceBody<T>(value: T): T | unknown {
  return value && typeof value === "object" ? (sent.has(value) ? sent.get(value) : value) : value;
}
