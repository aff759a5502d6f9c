import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { API_PREFIX } from "../features/routes.js";
import type { LocalInstance } from "../local/instance.js";
import type { UrlBuilder } from "../local/types.js";
import { loadMediaSecret, MEDIA_PREFIX, MediaSigner } from "./media.js";
import { ConnectionLimiter, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits, type SlowBodyLimits } from "./connections.js";
import { localPrecheck } from "./precheck.js";
import { createRequestHandler } from "./routes.js";
import { createAdminHandler } from "./admin.js";
import type { RequestJournal } from "../local/request-journal.js";
import type { RequestNote } from "./routes.js";

/** How long a client may take to send a request's headers, then its body (`serve --headers-timeout`, `--body-timeout`). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export interface ServerOptions {
  instance: LocalInstance;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Origin (or base URL) clients reach this server at, when it differs from the listening address. */
  publicUrl?: string;
  bodyLimit?: number;
  /** Unexpected failures (a 500 was answered). */
  onError?: (err: unknown) => void;
  /** One line per finished request: method, path (no query: media signatures stay out), status, time. */
  accessLog?: (line: string) => void;
  /** How long a client may take to send a request's headers (default 20 s); past it: 408. */
  headersTimeoutMs?: number;
  /** How long a client may take, after the headers, to send the body (default 30 s); past it: 408. */
  bodyTimeoutMs?: number;
  /** Connections held at once, overall and per client address (default DEFAULT_CONNECTION_LIMITS). */
  connections?: ConnectionLimits;
  /** The slowest request body accepted, and after how long (default DEFAULT_SLOW_BODY; connections.ts). */
  slowBody?: SlowBodyLimits;
  /** Lets requests use files on this machine as media inputs (`serve --allow-local-files`); default false. */
  allowLocalFiles?: boolean;
  /** Lets media URLs reach loopback, private and link-local addresses (`serve --allow-private-urls`); default false. */
  allowPrivateNetwork?: boolean;
  /** Pages at `/` (src/ui/, made by `mediagen serve`), given the server's signed media links. */
  pages?: (urls: UrlBuilder) => (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>;
  /** The admin path `/_mediagen/` (faults, snapshots, clock): loopback clients only; false turns it off. */
  admin?: boolean;
  /** Lets non-loopback clients use the admin path with `X-Mediagen-Admin-Token: <token>`. */
  adminToken?: string;
  /** Records every API and media request in the home's request journal (src/local/request-journal.ts); default true. */
  journal?: boolean;
}

export interface RunningServer {
  readonly server: http.Server;
  /** `http://host:port`. */
  readonly origin: string;
  /** Origin + `/api/public/v1`. */
  readonly baseUrl: string;
  readonly urls: UrlBuilder;
  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then closes every socket. */
  close(graceMs?: number): Promise<void>;
}

/** `http://127.0.0.1:4010` from a listening address; wildcard binds are shown as loopback. */
export function originOf(addr: AddressInfo): string {
  let host = addr.address;
  if (host === "0.0.0.0") host = "127.0.0.1";
  if (host === "::") host = "::1";
  return `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`;
}

/** Accepts an origin or a base URL ending in the API prefix; returns the origin part. */
export function normalisePublicUrl(publicUrl: string): string {
  const u = new URL(publicUrl);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new TypeError("--public-url must be an http(s) URL");
  const path = u.pathname.replace(/\/+$/, "");
  const root = path.endsWith(API_PREFIX) ? path.slice(0, -API_PREFIX.length) : path;
  return u.origin + root;
}

export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** A whole HTTP/1.1 response for a socket that has no ServerResponse (client errors, CONNECT). */
function rawJsonResponse(status: number, reason: string, body: unknown): string {
  const text = JSON.stringify(body);
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`;
}

/** A request whose body did not arrive within the body timeout: 408 if nothing was answered yet, then closed. */
function bodyTooSlow(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.complete) return;
  if (res.headersSent) return void req.socket.destroy();
  const text = JSON.stringify({
    error: "Request Timeout",
    details: [{ code: "request_timeout", message: "The request's headers or body did not arrive in time" }],
  });
  res.writeHead(408, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), connection: "close" });
  res.end(text, () => req.socket.destroy());
}

/** Errors node finds before a request exists (timeouts, oversized or malformed headers), answered in the service's JSON envelope. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] =
    err.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "Request Timeout", "request_timeout", "The request's headers or body did not arrive in time"]
      : err.code === "HPE_HEADER_OVERFLOW"
        ? [431, "Request Header Fields Too Large", "invalid_value", "The request's headers are too large"]
        : [400, "Bad Request", "invalid_value", "Malformed HTTP request"];
  socket.end(rawJsonResponse(status, reason, { error: reason, details: [{ code, message }] }));
}

/** A CONNECT request answered 405 in JSON. */
function refuseConnect(socket: Duplex): void {
  socket.end(
    rawJsonResponse(405, "Method Not Allowed", {
      error: "Method not allowed",
      details: [{ code: "method_not_allowed", message: "CONNECT is not supported: this is not a proxy" }],
    }),
  );
}

/** The request handler over the instance's service, media, pages and admin endpoints. */
function requestHandlerFor(o: ServerOptions, urls: UrlBuilder, signer: MediaSigner, journal: Journaling | undefined) {
  const inst = o.instance;
  return createRequestHandler({
    ...(journal ? { note: journal.note } : {}),
    service: inst.service,
    urls: () => urls,
    media: { dir: inst.mediaDir, signer },
    ...(o.bodyLimit ? { bodyLimit: o.bodyLimit } : {}),
    precheck: localPrecheck(inst),
    ...(o.onError ? { onError: o.onError } : {}),
    allowLocalFiles: o.allowLocalFiles ?? false,
    allowPrivateNetwork: o.allowPrivateNetwork ?? false,
    now: () => inst.clock.now(),
    ...(o.pages ? { pages: o.pages(urls) } : {}),
    ...(o.admin === false ? {} : { admin: createAdminHandler({ instance: inst, ...(o.adminToken ? { token: o.adminToken } : {}) }) }),
  });
}

/** The request journal's side of the server: notes taken while a request is handled, one record when it closes. */
interface Journaling {
  journal: RequestJournal;
  note(req: http.IncomingMessage, note: RequestNote): void;
  /** Called when the response closes: records API and media requests (not pages, not the admin path). */
  finish(req: http.IncomingMessage, res: http.ServerResponse, startedAt: number, ms: number): void;
}

function journalingFor(o: ServerOptions): Journaling | undefined {
  if (o.journal === false) return undefined;
  const inst = o.instance;
  const journal = inst.requests;
  const notes = new WeakMap<http.IncomingMessage, RequestNote>();
  return {
    journal,
    note: (req, n) => notes.set(req, { ...notes.get(req), ...n }),
    finish(req, res, startedAt, ms) {
      const raw = req.url ?? "/";
      const q = raw.indexOf("?");
      const path = q < 0 ? raw : raw.slice(0, q);
      if (!path.startsWith(API_PREFIX) && !path.startsWith(MEDIA_PREFIX)) return;
      const n = notes.get(req) ?? {};
      const answered = res.headersSent && !n.dropped;
      try {
        journal.record({
          startedAt,
          method: req.method ?? "GET",
          path,
          // A media link's query is its signature: left out.
          query: q < 0 || path.startsWith(MEDIA_PREFIX) ? null : raw.slice(q + 1),
          op: n.op ?? null,
          status: answered ? res.statusCode : null,
          error: answered ? null : (n.dropped ?? "client_closed"),
          durationMs: ms,
          requestId: n.requestId ?? null,
          body: n.body ?? null,
        });
      } catch (e) {
        // The journal is a record for tests, never a reason to fail a request: a store problem is reported once per cause.
        if (!inst.reportStoreFault(e)) o.onError?.(e);
      }
    },
  };
}

/** The connection limits, with the 503 (retry-after 1) that a refused connection gets. */
function connectionLimiterFor(o: ServerOptions): ConnectionLimiter {
  return new ConnectionLimiter(
    o.connections ?? DEFAULT_CONNECTION_LIMITS,
    rawJsonResponse(503, "Service Unavailable", {
      error: "Service unavailable",
      details: [{ code: "too_many_connections", message: "Too many connections from this client are busy; retry shortly" }],
    }).replace("connection: close\r\n", "connection: close\r\nretry-after: 1\r\n"),
    o.slowBody,
  );
}

/** Starts the HTTP adapter over a local instance. Resolves once listening. */
export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const inst = o.instance;
  const signer = new MediaSigner(loadMediaSecret(inst), () => inst.clock.now());
  let origin = "";
  const urls: UrlBuilder = { media: (rel, ttl) => origin + signer.signedPath(rel, ttl) };
  const journaling = journalingFor(o);
  const handle = requestHandlerFor(o, urls, signer, journaling);
  const limiter = connectionLimiterFor(o);
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const track = (req: http.IncomingMessage, res: http.ServerResponse, checkContinue: boolean) => {
    inFlight++;
    const socket = req.socket;
    limiter.begin(socket, req, () => bodyTooSlow(req, res));
    const bodyTimer = setTimeout(() => bodyTooSlow(req, res), bodyTimeout);
    req.once("end", () => clearTimeout(bodyTimer));
    res.once("close", () => {
      clearTimeout(bodyTimer);
      limiter.end(socket);
    });
    const started = o.accessLog || journaling ? performance.now() : 0;
    const startedAt = journaling ? inst.clock.now() : 0;
    res.on("close", () => {
      if (o.accessLog) {
        const path = (req.url ?? "/").split("?")[0];
        o.accessLog(`${req.method} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)} ms`);
      }
      journaling?.finish(req, res, startedAt, performance.now() - started);
      if (--inFlight === 0) drained?.();
    });
    void handle(req, res, checkContinue);
  };

  // HTTP/1.1 asks for a Host header, but nothing here depends on it (media links use the listening
  // address or --public-url): a request without one is answered like any other, in JSON.
  // Slow clients are cut off: the headers within headersTimeout, the whole request (headers then
  // body) within both timeouts; node checks every connection at the interval.
  const headersTimeout = o.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const bodyTimeout = o.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const server = http.createServer(
    {
      keepAliveTimeout: 5_000,
      requireHostHeader: false,
      headersTimeout,
      requestTimeout: headersTimeout + bodyTimeout,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(Math.min(headersTimeout, bodyTimeout) / 4))),
    },
    (req, res) => track(req, res, false),
  );
  server.on("connection", (socket: Socket) => limiter.admit(socket));
  server.on("checkContinue", (req, res) => track(req, res, true));
  // Errors node finds before a request exists still get the service's JSON envelope, never a dropped socket.
  server.on("clientError", answerClientError);
  // CONNECT (a proxy tunnel) is not something this server does: say so instead of dropping the socket.
  server.on("connect", (_req, socket: Duplex) => refuseConnect(socket));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 4010, o.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  origin = o.publicUrl ? normalisePublicUrl(o.publicUrl) : originOf(server.address() as AddressInfo);

  let closing: Promise<void> | undefined;
  const close = (graceMs = 5_000) => {
    closing ??= new Promise<void>((resolve) => {
      limiter.stop();
      server.close(() => resolve());
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      force.unref();
      if (inFlight === 0) server.closeAllConnections();
      else
        drained = () => {
          server.closeAllConnections();
        };
    });
    return closing;
  };

  return {
    server,
    get origin() {
      return origin;
    },
    get baseUrl() {
      return origin + API_PREFIX;
    },
    urls,
    close,
  };
}
