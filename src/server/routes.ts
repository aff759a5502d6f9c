import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { errorResponse } from "../contract/errors.js";
import { BODY_MAX_BYTES } from "../contract/limits.js";
import { API_PREFIX, matchRoute } from "../features/routes.js";
import type { OpName } from "../features/operations.js";
import { rateLimitHeaders, type RateLimitInfo } from "../contract/rate-limit.js";
import type { UrlBuilder } from "../local/types.js";
import { MEDIA_PREFIX, serveMedia, type MediaSigner } from "./media.js";

/** What the service answers for one request (the local instance's `dispatch` result). */
export interface DispatchResult {
  status: number;
  body: unknown;
  rateLimit?: RateLimitInfo | undefined;
  /** Headers beyond the window's (a fault rule's `Retry-After`). */
  headers?: Record<string, string> | undefined;
  /** A fault rule drops the connection: `reset` (RST) or `empty` (closed without a byte). */
  transport?: "reset" | "empty" | undefined;
}

export interface ServiceLike {
  dispatch(
    authorization: string | undefined,
    op: OpName,
    input: Record<string, unknown>,
    opts: { simulate?: string; urls: UrlBuilder; allowLocalFiles?: boolean; allowPrivateNetwork?: boolean },
  ): Promise<DispatchResult>;
}

/** The key's verdict, asked only when a request fails before reaching the service. */
export interface Precheck {
  /** The 401/403 the service would answer for this key. */
  denied?: DispatchResult;
  /** The key's current rate-limit window (not counted), for the headers of the error. */
  rateLimit?: RateLimitInfo;
}

export interface ApiHandlerOptions {
  service: ServiceLike;
  /**
   * Lets 401/403 win over 404, 405, 413 and 400: a request that fails before it reaches the service
   * is answered with the key's 401/403 when there is one. Without it, those errors come first.
   */
  precheck?: (authorization: string | undefined) => Precheck | Promise<Precheck>;
  /** Built once the server listens (the port is only known then). */
  urls: () => UrlBuilder;
  /** Largest JSON body accepted, in bytes (default 1 MiB). */
  bodyLimit?: number;
  media?: { dir: string; signer: MediaSigner };
  /** Reports unexpected failures (the client only sees a 500 envelope). */
  onError?: (err: unknown) => void;
  /**
   * Lets requests name files on this machine (`file://` URLs, plain paths) as media inputs. Off by
   * default: over HTTP the caller is not necessarily the owner of this machine's files.
   */
  allowLocalFiles?: boolean;
  /** Lets media URLs reach loopback/private/link-local addresses (`serve --allow-private-urls`); default false. */
  allowPrivateNetwork?: boolean;
  /**
   * The clock of the `Date` header (default the system clock). The instance's clock, so that a
   * client measuring `X-RateLimit-Reset` against `Date` sees the same time the window was counted on.
   */
  now?: () => number;
  /**
   * Pages outside the API prefix (`mediagen serve`'s dashboard, src/ui/): asked first for any path
   * that is not the API's or media's; false lets the request fall through to the JSON 404.
   */
  pages?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /** The local instance's admin path (`/_mediagen/…`, outside the API prefix; src/server/admin.ts). */
  admin?: AdminHandler;
  /** Told what a request is once known (its operation, its body, a dropped connection): the request journal's notes. */
  note?: (req: IncomingMessage, note: RequestNote) => void;
}

/** What the handler learns of a request, for the request journal (src/local/request-journal.ts). */
export interface RequestNote {
  requestId?: string;
  op?: string;
  body?: unknown;
  dropped?: "reset" | "empty";
}

export const ADMIN_PREFIX = "/_mediagen/";

export type AdminHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  send: (status: number, body: unknown, headers?: Record<string, string>) => void,
) => Promise<void>;

/** A fault rule's dropped connection: an abrupt reset, or a close before any byte of a response. */
function dropConnection(res: ServerResponse, how: "reset" | "empty"): void {
  const socket = res.socket;
  if (!socket) return;
  if (how === "reset" && typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

/** The service's answer as sent: its status, body and headers, or the connection a fault rule drops. */
function answerResult(
  req: IncomingMessage,
  res: ServerResponse,
  result: DispatchResult,
  send: (status: number, body: unknown, headers?: Record<string, string>) => void,
  note: ApiHandlerOptions["note"],
): void {
  if (result.transport) {
    note?.(req, { dropped: result.transport });
    dropConnection(res, result.transport);
    return;
  }
  send(result.status, result.body, { ...rateLimitHeaders(result.rateLimit), ...result.headers });
}

/** The instance's one body limit (src/contract/limits.ts), shared with the in-process engine and `--body`. */
export const DEFAULT_BODY_LIMIT = BODY_MAX_BYTES;
/** Beyond this an oversized body is not even drained: the connection is closed after the 413. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * A request body may be declared JSON (`application/json`, `…+json`) or not declared at all; any other
 * declared type (a form, `text/plain`) is refused with 415 rather than parsed as if it were JSON.
 */
export function acceptsAsJson(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType.trim() === "") return true;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/[\w.+-]*\+json$/.test(type);
}

type BodyResult = { kind: "ok"; value: Record<string, unknown> } | { kind: "too_large"; drained: boolean } | { kind: "invalid"; message: string } | { kind: "aborted" };

/** Reads a JSON object body within `limit` bytes. An empty body is `{}`. */
function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > DRAIN_LIMIT) return Promise.resolve({ kind: "too_large", drained: false });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > limit;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      // Keep reading an oversized body (discarding it) so the client gets the 413 instead of a reset.
      if (over) {
        chunks.length = 0;
        if (size > DRAIN_LIMIT) {
          resolve({ kind: "too_large", drained: false });
          req.pause();
        }
        return;
      }
      chunks.push(chunk);
    });
    req.on("error", () => resolve({ kind: "aborted" }));
    req.on("aborted", () => resolve({ kind: "aborted" }));
    req.on("end", () => {
      if (over) return resolve({ kind: "too_large", drained: true });
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.trim() === "") return resolve({ kind: "ok", value: {} });
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        return resolve({ kind: "invalid", message: `Request body is not valid JSON: ${(e as Error).message}` });
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
        return resolve({ kind: "invalid", message: "Request body must be a JSON object" });
      }
      resolve({ kind: "ok", value: parsed as Record<string, unknown> });
    });
  });
}

/** Query values stay strings; a repeated key becomes a comma-separated list, as the service reads lists. */
function queryObject(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of params) out[k] = k in out ? `${out[k] as string},${v}` : v;
  return out;
}

/** Answers an error found before the service is asked (the key's own 401/403 first). */
type EarlyAnswer = (status: number, code: string, message: string, error: string, headers?: Record<string, string>) => Promise<void>;

/**
 * A POST's JSON body, read within the limit; undefined when it was refused (answered through
 * `early`) or the client went away.
 */
async function postedBody(
  req: IncomingMessage,
  res: ServerResponse,
  o: { checkContinue: boolean; limit: number; early: EarlyAnswer },
): Promise<Record<string, unknown> | undefined> {
  const { limit, early } = o;
  if (!acceptsAsJson(req.headers["content-type"])) {
    await early(
      415,
      "unsupported_media_type",
      `Request bodies must be JSON (Content-Type: application/json), not ${req.headers["content-type"]}`,
      "Unsupported media type",
      {
        connection: "close",
      },
    );
    return undefined;
  }
  const declared = Number(req.headers["content-length"]);
  if (o.checkContinue) {
    if (Number.isFinite(declared) && declared > limit) {
      // The client has not sent the body yet: refuse it unread, and end the connection.
      await early(413, "payload_too_large", `Request body exceeds ${limit} bytes`, "Payload too large", { connection: "close" });
      return undefined;
    }
    res.writeContinue();
  }
  const body = await readJsonBody(req, limit);
  if (body.kind === "aborted") return undefined;
  if (body.kind === "too_large") {
    await early(413, "payload_too_large", `Request body exceeds ${limit} bytes`, "Payload too large", body.drained ? {} : { connection: "close" });
    return undefined;
  }
  if (body.kind === "invalid") {
    await early(400, "invalid_value", body.message, "Invalid request body");
    return undefined;
  }
  return body.value;
}

/**
 * The HTTP adapter: exact paths under the API prefix, the spec's statuses and error bodies,
 * rate-limit headers, and signed media. `checkContinue` says the client waits for 100-continue.
 */
export function createRequestHandler(o: ApiHandlerOptions) {
  const limit = o.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const idPrefix = randomBytes(4).toString("hex");
  const now = o.now ?? Date.now;
  const allowLocalFiles = o.allowLocalFiles ?? false;
  const allowPrivateNetwork = o.allowPrivateNetwork ?? false;
  let seq = 0;

  return async function handle(req: IncomingMessage, res: ServerResponse, checkContinue = false): Promise<void> {
    const requestId = `${idPrefix}-${(++seq).toString(36)}`;
    o.note?.(req, { requestId });
    const base = { "x-request-id": requestId, date: new Date(now()).toUTCString() };

    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.headersSent || res.destroyed) return;
      const payload = JSON.stringify(body);
      res.writeHead(status, {
        "content-type": JSON_TYPE,
        "content-length": String(Buffer.byteLength(payload)),
        ...base,
        ...headers,
      });
      res.end(payload);
    };
    const fail = (status: number, code: string, message: string, error: string, headers?: Record<string, string>) => {
      send(status, errorResponse(code, message, { status, error }).body, headers);
    };

    try {
      let url: URL;
      try {
        url = new URL(req.url ?? "/", "http://localhost");
      } catch {
        return fail(400, "invalid_value", "The request target is not a valid URL", "Bad request");
      }
      const pathname = url.pathname;

      if (o.admin && pathname.startsWith(ADMIN_PREFIX)) return await o.admin(req, res, url, send);
      if (o.media && pathname.startsWith(MEDIA_PREFIX)) {
        o.note?.(req, { op: "media" });
        return await serveMedia(req, res, url, o.media.dir, o.media.signer, (status, code, message, extra) => fail(status, code, message, message, extra), base);
      }
      if (pathname !== API_PREFIX && !pathname.startsWith(API_PREFIX + "/")) {
        if (o.pages && (await o.pages(req, res))) return;
        return fail(404, "not_found", `No such path: ${pathname}`, "Not found");
      }

      const authorization = req.headers.authorization;
      // An error found before the service is asked; the key's own 401/403 still comes first.
      const early: EarlyAnswer = async (status, code, message, error, headers = {}) => {
        const verdict = o.precheck ? await o.precheck(authorization) : {};
        if (verdict.denied) {
          return send(verdict.denied.status, verdict.denied.body, {
            ...rateLimitHeaders(verdict.denied.rateLimit),
            ...(headers.connection ? { connection: headers.connection } : {}),
          });
        }
        fail(status, code, message, error, { ...rateLimitHeaders(verdict.rateLimit), ...headers });
      };

      const sub = pathname.slice(API_PREFIX.length) || "/";
      // HEAD is GET without a body (node leaves the body out of a HEAD response by itself).
      const method = req.method === "HEAD" ? "GET" : (req.method ?? "GET");
      let route: ReturnType<typeof matchRoute>;
      try {
        route = matchRoute(method, sub);
      } catch {
        // decodeURIComponent of a path parameter: a broken %-escape is the client's error.
        return await early(400, "invalid_value", "The request path has a malformed %-escape", "Bad request");
      }
      if (!route) return await early(404, "not_found", `No such endpoint: ${method} ${pathname}`, "Not found");
      if ("op" in route) o.note?.(req, { op: route.op });
      if ("allowed" in route) {
        const allow = route.allowed.join(", ");
        return await early(405, "method_not_allowed", `Method ${method} is not allowed for ${pathname}; use ${allow}`, "Method not allowed", {
          allow,
        });
      }

      // A POST's JSON body (undefined: refused, or the client left), a GET's query.
      const posted = method === "POST" ? await postedBody(req, res, { checkContinue, limit, early }) : undefined;
      if (method === "POST" && !posted) return;
      if (posted) o.note?.(req, { body: posted });
      const input: Record<string, unknown> = { ...(posted ?? queryObject(url.searchParams)), ...route.params };

      const simulate = req.headers["x-local-simulate"];
      const result = await o.service.dispatch(authorization, route.op, input, {
        ...(typeof simulate === "string" && simulate ? { simulate } : {}),
        urls: o.urls(),
        allowLocalFiles,
        allowPrivateNetwork,
      });
      answerResult(req, res, result, send, o.note);
    } catch (err) {
      o.onError?.(err);
      fail(500, "internal_error", "The server failed to handle this request", "Internal error");
    }
  };
}
