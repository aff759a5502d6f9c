/**
 * A webhook receiver on 127.0.0.1 (`mediagen listen`, --webhook-listen on start commands): every POST
 * is read whole, its Standard Webhooks signature checked when a secret is known, optionally forwarded
 * (same body, same headers but the hop-by-hop ones) and answered 200 whatever the signature says, so
 * the sender does not retry; a bad signature is reported, not refused. Only deliveries that can be
 * trusted are forwarded — a valid signature, or any when no secret is known (nothing can be checked)
 * — unless `forwardInvalid`; a delivery whose webhook-id was already received is a `duplicate` (a
 * sender's retry, or a replay): reported as such, not forwarded again. Other methods get a short
 * text. Node built-ins only.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { escapeControls } from "./terminal-text.js";
import { verifyStandardWebhook, type SignatureState } from "./webhook-verify.js";

export const MAX_WEBHOOK_BYTES = 5 * 1024 * 1024;
export const FORWARD_TIMEOUT_MS = 10_000;

export interface WebhookEvent {
  received_at: string;
  method: string;
  path: string;
  /** Request headers, lower-case names. */
  headers: Record<string, string>;
  /** The body as JSON when it parses, else as text. */
  body: unknown;
  bytes: number;
  webhook_id: string | null;
  /** The signature's verdict; `duplicate` when this webhook-id was received before (valid or unchecked then). */
  signature: SignatureState | "duplicate";
  signature_error?: string;
  forwarded?: { url: string; status: number | null; error?: string };
  /** Why a delivery was not forwarded (`--forward-to` without `--forward-invalid`). */
  not_forwarded?: string;
}

/** Whether a delivery is one the sender vouched for: a valid signature, or unchecked (no secret), and not seen before. */
export function isTrusted(e: WebhookEvent): boolean {
  return e.signature === "valid" || e.signature === "unchecked";
}

export interface ReceiverOptions {
  port?: number;
  secret?: string;
  forwardTo?: string;
  /** Forward deliveries with a bad, missing or replayed signature too (`--forward-invalid`). */
  forwardInvalid?: boolean;
  now?: () => number;
  onEvent(e: WebhookEvent): void;
}

export interface Receiver {
  url: string;
  port: number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-authorization",
  "proxy-authenticate",
  "content-length",
  "expect",
]);

function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/**
 * Headers that may carry credentials: forwarded as they came, never printed. Besides the usual ones,
 * any whose name says so (`X-Secret`, `X-Auth-Token`, `X-Api-Key`, `Webhook-Signature`, …).
 */
const PRIVATE_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"]);
const PRIVATE_NAME = /secret|token|key|signature|authori[sz]ation|password|passwd|credential|session/i;
export function printable(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = PRIVATE_HEADERS.has(k) || PRIVATE_NAME.test(k) ? "[redacted]" : v;
  return out;
}

async function forward(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number | null; error?: string }> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k)) h[k] = v;
  try {
    const res = await fetch(url, { method: "POST", headers: h, body, redirect: "manual", signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    await res.body?.cancel().catch(() => {});
    return { status: res.status };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    return { status: null, error: (e as Error).name === "TimeoutError" ? `timed out after ${FORWARD_TIMEOUT_MS} ms` : (cause?.code ?? (e as Error).message) };
  }
}

export function startReceiver(o: ReceiverOptions): Promise<Receiver> {
  const now = o.now ?? Date.now;
  // Ids of the deliveries received whole and trusted: a second one is a retry or a replay.
  const received = new Set<string>();
  const server = http.createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(req.method === "GET" || req.method === "HEAD" ? 200 : 405, { "content-type": "text/plain; charset=utf-8", allow: "POST" });
      res.end("mediagen listen: POST webhook deliveries here.\n");
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_WEBHOOK_BYTES) {
        tooBig = true;
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      void (async () => {
        if (tooBig) {
          res.writeHead(413, { "content-type": "text/plain" }).end("too large\n");
          return;
        }
        const raw = Buffer.concat(chunks);
        const headers = flatHeaders(req.headers);
        const text = raw.toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // kept as text
        }
        const v = verifyStandardWebhook(o.secret, req.headers, raw, now());
        const event: WebhookEvent = {
          received_at: new Date(now()).toISOString(),
          method: req.method!,
          path: req.url ?? "/",
          headers: printable(headers),
          body,
          bytes: raw.length,
          webhook_id: headers["webhook-id"] ?? null,
          signature: v.signature,
          ...(v.reason ? { signature_error: v.reason } : {}),
        };
        const id = event.webhook_id;
        if (id !== null && isTrusted(event)) {
          if (received.has(id)) {
            event.signature = "duplicate";
            event.signature_error = `webhook-id ${id} was received before (a retry or a replay)`;
          } else received.add(id);
        }
        if (o.forwardTo && (o.forwardInvalid || isTrusted(event))) {
          event.forwarded = { url: o.forwardTo, ...(await forward(o.forwardTo, headers, raw)) };
        } else if (o.forwardTo) {
          event.not_forwarded = `signature ${event.signature} (--forward-invalid forwards it anyway)`;
        }
        res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}\n');
        o.onEvent(event);
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}/webhook`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** One line for people: what arrived, for which job, and what its signature is. */
export function describeEvent(e: WebhookEvent): string {
  const b = (e.body && typeof e.body === "object" ? e.body : {}) as Record<string, unknown>;
  const id = ["job_id", "asset_id", "look_id", "avatar_id"].map((k) => (typeof b[k] === "string" ? `${k} ${b[k]}` : "")).find(Boolean);
  const what = typeof b.task === "string" ? `${b.task} ${typeof b.status === "string" ? b.status : ""}`.trim() : `${e.bytes} bytes`;
  const err = b.error && typeof b.error === "object" ? ` (${(b.error as { code?: string }).code ?? "error"})` : "";
  const sig =
    e.signature === "unchecked"
      ? "signature not checked (no secret)"
      : e.signature === "valid"
        ? "signature valid"
        : `signature ${e.signature.toUpperCase()}: ${e.signature_error ?? ""}`.trim();
  const fwd = e.forwarded ? `; forwarded to ${e.forwarded.url}: ${e.forwarded.status ?? e.forwarded.error}` : e.not_forwarded ? "; not forwarded" : "";
  // Every part may come from whoever sent the request (the URL is public behind a tunnel): shown, never run.
  return escapeControls(`${e.received_at.slice(11, 19)} ${e.method} ${e.path} ${what}${err}${id ? ` · ${id}` : ""} · ${sig}${fwd}`);
}
