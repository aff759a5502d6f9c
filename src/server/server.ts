import http from "node:http";
import type { AddressInfo } from "node:net";
import { API_PREFIX } from "../features/operations.js";
import type { LocalInstance } from "../local/instance.js";
import type { UrlBuilder } from "../local/types.js";
import { loadMediaSecret, MediaSigner } from "./media.js";
import { localPrecheck } from "./precheck.js";
import { createRequestHandler } from "./routes.js";

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
  /** Lets requests use files on this machine as media inputs (`serve --allow-local-files`); default false. */
  allowLocalFiles?: boolean;
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

/** Starts the HTTP adapter over a local instance. Resolves once listening. */
export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const inst = o.instance;
  const signer = new MediaSigner(loadMediaSecret(inst), () => inst.clock.now());
  let origin = "";
  const urls: UrlBuilder = { media: (rel, ttl) => origin + signer.signedPath(rel, ttl) };
  const handle = createRequestHandler({
    service: inst.service,
    urls: () => urls,
    media: { dir: inst.mediaDir, signer },
    ...(o.bodyLimit ? { bodyLimit: o.bodyLimit } : {}),
    precheck: localPrecheck(inst),
    ...(o.onError ? { onError: o.onError } : {}),
    allowLocalFiles: o.allowLocalFiles ?? false,
    now: () => inst.clock.now(),
  });

  let inFlight = 0;
  let drained: (() => void) | undefined;
  const track = (req: http.IncomingMessage, res: http.ServerResponse, checkContinue: boolean) => {
    inFlight++;
    const started = o.accessLog ? performance.now() : 0;
    res.on("close", () => {
      if (o.accessLog) {
        const path = (req.url ?? "/").split("?")[0];
        o.accessLog(`${req.method} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)} ms`);
      }
      if (--inFlight === 0) drained?.();
    });
    void handle(req, res, checkContinue);
  };

  const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => track(req, res, false));
  server.on("checkContinue", (req, res) => track(req, res, true));
  // A malformed request line gets a plain 400 rather than a dropped socket.
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (err.code === "ECONNRESET" || !socket.writable) return socket.destroy();
    const body = JSON.stringify({ error: "Bad request", details: [{ code: "invalid_value", message: "Malformed HTTP request" }] });
    socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });

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
