/**
 * The admin path of `mediagen serve` (`/_mediagen/…`, outside `/api/public/v1`): what a test suite
 * sets without the CLI — fault rules, snapshots, the clock. It is not part of the service: an API key
 * opens nothing here. Only loopback peers may use it (and no browser page: a request whose Origin or
 * Host names another site is refused, against DNS rebinding), unless `serve --admin-token` lets a
 * remote peer in with `X-Mediagen-Admin-Token`.
 */
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import { errorResponse } from "../contract/errors.js";
import { LocalAdminError } from "../local/admin-error.js";
import type { LocalInstance } from "../local/instance.js";
import { ADMIN_PREFIX, type AdminHandler } from "./routes.js";
import { moreAdminRoutes } from "./admin-routes.js";
import type { RequestJournal } from "../local/request-journal.js";

export interface AdminOptions {
  instance: LocalInstance;
  /** Lets non-loopback peers in when they send this token (`serve --admin-token`). */
  token?: string;
  /** Called after a snapshot restore, so the server serves the restored instance. */
  restored?: () => void;
  /** The request journal the server records into (default: the instance's home's). */
  journal?: RequestJournal;
}

const BODY_LIMIT = 256 * 1024;

function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.replace(/^::ffff:/, "");
  return a === "::1" || /^127\.\d+\.\d+\.\d+$/.test(a);
}

function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined || hostHeader === "") return true;
  let host: string;
  try {
    host = new URL(`http://${hostHeader}`).hostname;
  } catch {
    return false;
  }
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function tokenMatches(given: string | string[] | undefined, token: string): boolean {
  if (typeof given !== "string") return false;
  const a = crypto.createHash("sha256").update(given).digest();
  const b = crypto.createHash("sha256").update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

/** Why this request may not use the admin path, if it may not. */
function refusal(req: IncomingMessage, token: string | undefined): string | undefined {
  if (token !== undefined && tokenMatches(req.headers["x-mediagen-admin-token"], token)) return undefined;
  if (!isLoopbackPeer(req.socket.remoteAddress)) {
    return token === undefined ? "the admin path answers loopback clients only" : "the admin path needs X-Mediagen-Admin-Token from this address";
  }
  const origin = req.headers.origin;
  // Any page's request carries an Origin (a sandboxed one "null"); tools (curl, test suites) send none.
  // Another local origin (a page on localhost:9999) is another site too: only this server's own.
  if (origin !== undefined && !isLoopbackHost(safeHost(origin))) return "the admin path does not answer web pages of other sites";
  if (!isLoopbackHost(req.headers.host)) return "the admin path answers requests addressed to a loopback host only";
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ""}`) return "the admin path does not answer web pages of other origins";
  return undefined;
}

/**
 * A body must be JSON, said so: a page's form or `text/plain` request (no CORS preflight) never is.
 * A request without a body (curl -X POST …/restore) needs no type.
 */
function badType(req: IncomingMessage): string | undefined {
  if (req.method === "GET" || req.method === "HEAD") return undefined;
  const type = req.headers["content-type"];
  const hasBody = (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0") || req.headers["transfer-encoding"] !== undefined;
  if (type === undefined ? !hasBody : /^application\/json\s*(;|$)/i.test(type)) return undefined;
  return "the admin path takes JSON bodies only: send Content-Type: application/json";
}

function safeHost(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return "invalid host";
  }
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > BODY_LIMIT) throw new LocalAdminError("invalid", `the body exceeds ${BODY_LIMIT} bytes`);
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new LocalAdminError("invalid", `the body is not valid JSON: ${(e as Error).message}`);
  }
}

type Route = (body: () => Promise<unknown>, rest: string[], url: URL) => Promise<{ status: number; body: unknown }> | { status: number; body: unknown };

function routesOf(o: AdminOptions): Record<string, Route> {
  const inst = o.instance;
  return {
    "GET faults": () => ({ status: 200, body: { rules: inst.faults.list() } }),
    "POST faults": async (body) => {
      const b = await body();
      const rules = Array.isArray(b) ? b : b && typeof b === "object" && Array.isArray((b as { rules?: unknown }).rules) ? (b as { rules: unknown[] }).rules : b;
      return { status: 201, body: { rules: inst.faults.add(rules as never, "http") } };
    },
    "DELETE faults": (_b, rest) => ({ status: 200, body: { removed: inst.faults.clear(rest[0]) } }),
    "GET clock": () => ({ status: 200, body: inst.clockState() }),
    "POST clock": async (body) => {
      const b = ((await body()) ?? {}) as { advance?: unknown; freeze?: unknown; reset?: unknown };
      if (b.advance !== undefined) return { status: 200, body: inst.advanceClock(b.advance as string) };
      if (b.freeze === true) return { status: 200, body: inst.freezeClock() };
      if (b.reset === true) return { status: 200, body: inst.resetClock() };
      throw new LocalAdminError("invalid", 'send {"advance": "8d"}, {"freeze": true} or {"reset": true}');
    },
    "GET snapshots": () => ({ status: 200, body: { snapshots: inst.listSnapshots() } }),
    "POST snapshots": async (body, rest) => {
      if (rest.length === 2 && rest[1] === "restore") {
        // This process is the server: the restore takes effect here, its workers paused meanwhile.
        const snapshot = await inst.restoreSnapshot(rest[0]!);
        o.restored?.();
        return { status: 200, body: { restored: snapshot } };
      }
      if (rest.length) throw new LocalAdminError("not_found", `No admin endpoint POST /_mediagen/snapshots/${rest.join("/")}`);
      const b = (await body()) as { name?: unknown; replace?: unknown };
      if (typeof b?.name !== "string") throw new LocalAdminError("invalid", "name (string) is required");
      return { status: 201, body: { snapshot: await inst.saveSnapshot(b.name, { replace: b.replace === true }) } };
    },
    "DELETE snapshots": (_b, rest) => {
      if (rest.length !== 1) throw new LocalAdminError("invalid", "DELETE /_mediagen/snapshots/<name>");
      inst.deleteSnapshot(rest[0]!);
      return { status: 200, body: { deleted: rest[0] } };
    },
    // Keys, spaces, credits, webhooks, reset, the request journal, the OpenAPI document (admin-routes.ts).
    ...moreAdminRoutes(inst, o.journal ?? inst.requests),
  };
}

export function createAdminHandler(o: AdminOptions): AdminHandler {
  const routes = routesOf(o);
  return async (req, _res, url, send) => {
    const fail = (status: number, code: string, message: string) => send(status, errorResponse(code, message, { status }).body);
    const why = refusal(req, o.token);
    if (why) return fail(403, "forbidden", why);
    const type = badType(req);
    if (type) return fail(415, "unsupported_media_type", type);
    let parts: string[];
    try {
      parts = url.pathname.slice(ADMIN_PREFIX.length).split("/").filter(Boolean).map(decodeURIComponent);
    } catch {
      return fail(400, "invalid_value", "The admin path has a malformed %-escape");
    }
    const [resource = "", ...rest] = parts;
    const route = routes[`${req.method ?? "GET"} ${resource}`];
    if (!route) return fail(404, "not_found", `No admin endpoint ${req.method} ${url.pathname}`);
    try {
      const out = await route(() => readBody(req), rest, url);
      send(out.status, out.body);
    } catch (e) {
      if (e instanceof LocalAdminError) return fail(e.kind === "not_found" ? 404 : 400, e.kind === "not_found" ? "not_found" : "invalid_value", e.message);
      throw e;
    }
  };
}
