/**
 * Standard Webhooks signatures, checked on the receiving side (`mediagen listen`, --webhook-listen):
 * `webhook-signature` holds one or more space-separated `v1,<base64 HMAC-SHA256>` of
 * `<webhook-id>.<webhook-timestamp>.<body>`; the key is the base64 after `whsec_` (any other secret
 * is used as its UTF-8 bytes, as the local instance signs). A timestamp more than `toleranceS` from
 * now is refused (replays). Small and node-only: no secret is ever returned or printed.
 */
import crypto from "node:crypto";

export type SignatureState = "valid" | "invalid" | "missing" | "unchecked";

export interface SignatureVerdict {
  signature: SignatureState;
  /** Why it is invalid or missing (never the secret, nor the expected signature). */
  reason?: string;
}

export const DEFAULT_TOLERANCE_S = 300;

export function signingKey(secret: string): Buffer {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
}

/** `v1,<base64>` for a body (what a sender puts in webhook-signature). */
export function signStandardWebhook(secret: string, id: string, timestamp: number | string, body: string | Buffer): string {
  const mac = crypto.createHmac("sha256", signingKey(secret)).update(`${id}.${timestamp}.`).update(body).digest("base64");
  return `v1,${mac}`;
}

type Headers = Record<string, string | string[] | undefined>;
const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

export function verifyStandardWebhook(
  secret: string | undefined,
  headers: Headers,
  body: Buffer | string,
  nowMs: number = Date.now(),
  toleranceS: number = DEFAULT_TOLERANCE_S,
): SignatureVerdict {
  if (!secret) return { signature: "unchecked" };
  const id = header(headers, "webhook-id");
  const ts = header(headers, "webhook-timestamp");
  const sig = header(headers, "webhook-signature");
  if (!id || !ts || !sig) {
    const missing = [!id && "webhook-id", !ts && "webhook-timestamp", !sig && "webhook-signature"].filter(Boolean).join(", ");
    return { signature: "missing", reason: `no ${missing} header` };
  }
  if (!/^\d{1,15}$/.test(ts)) return { signature: "invalid", reason: "webhook-timestamp is not a number of seconds" };
  if (Math.abs(nowMs / 1000 - Number(ts)) > toleranceS) {
    return { signature: "invalid", reason: `webhook-timestamp is more than ${toleranceS} s away from now` };
  }
  const expected = Buffer.from(signStandardWebhook(secret, id, ts, body).slice(3), "base64");
  for (const part of sig.split(" ")) {
    const [version, value] = part.split(",", 2);
    if (version !== "v1" || !value) continue;
    const given = Buffer.from(value, "base64");
    if (given.length === expected.length && crypto.timingSafeEqual(given, expected)) return { signature: "valid" };
  }
  return { signature: "invalid", reason: "no v1 signature matches the body with this secret" };
}
