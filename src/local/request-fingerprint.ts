/**
 * A fingerprint of a start request as the caller sent it: sha256 of its JSON with object keys sorted
 * at every depth (absent and `undefined` fields alike left out). Kept with what the start created, so
 * `mediagen batch`, re-run after a crash between sending a start and recording its answer, adopts a
 * job only if it was made by that very request — never another client's start that merely shares a
 * model, a count and a time.
 */
import crypto from "node:crypto";

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

export function requestFingerprint(input: unknown): string {
  // Through JSON first, so the fingerprint is of what goes on the wire (no undefined, no Dates).
  const wire = JSON.parse(JSON.stringify(input ?? {})) as unknown;
  return crypto.createHash("sha256").update(canonical(wire)).digest("hex");
}
