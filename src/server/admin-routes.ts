/**
 * The admin path's endpoints beyond faults, snapshots and the clock (src/server/admin.ts holds the
 * gate and those): everything `mediagen local` does, for a test suite that has no CLI pointed at the
 * server's home — spaces, keys (a space with plan and credits and its first key), credits, the
 * webhook secret and deliveries, a reset, and the request journal. Bodies are checked strictly: an
 * unknown field or a value of the wrong type is a 400 naming it. Described by ADMIN_OPENAPI
 * (`GET /_mediagen/openapi.json`, src/server/admin-openapi.ts).
 */
import crypto from "node:crypto";
import { LocalAdminError } from "../local/admin-error.js";
import type { LocalInstance } from "../local/instance.js";
import type { RequestJournal } from "../local/request-journal.js";
import { ADMIN_OPENAPI } from "./admin-openapi.js";

export type AdminRoute = (body: () => Promise<unknown>, rest: string[], url: URL) => Promise<{ status: number; body: unknown }> | { status: number; body: unknown };

const invalid = (message: string) => new LocalAdminError("invalid", message);

/** The body as an object whose fields are all among `allowed` (each named when not). */
async function fields(body: () => Promise<unknown>, allowed: readonly string[]): Promise<Record<string, unknown>> {
  const b = await body();
  if (!b || typeof b !== "object" || Array.isArray(b)) throw invalid("the body must be a JSON object");
  const unknown = Object.keys(b).filter((k) => !allowed.includes(k));
  if (unknown.length) throw invalid(`unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; this endpoint takes ${allowed.join(", ") || "no fields"}`);
  return b as Record<string, unknown>;
}

function text(b: Record<string, unknown>, field: string, required: true): string;
function text(b: Record<string, unknown>, field: string, required?: false): string | undefined;
function text(b: Record<string, unknown>, field: string, required = false): string | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (required) throw invalid(`${field} is required`);
    return undefined;
  }
  if (typeof v !== "string") throw invalid(`${field} must be a string`);
  return v;
}

function credits(b: Record<string, unknown>, field: string): number {
  const v = b[field];
  if (v === undefined) throw invalid(`${field} is required (a number of credits)`);
  if (typeof v !== "number" || !Number.isFinite(v)) throw invalid(`${field} must be a number of credits, got ${JSON.stringify(v)}`);
  return v;
}

/** `rest` must be exactly `n` segments, or the endpoint is not one. */
function segments(method: string, resource: string, rest: string[], n: number): void {
  if (rest.length !== n) throw new LocalAdminError("not_found", `No admin endpoint ${method} /_mediagen/${[resource, ...rest].join("/")}`);
}

function keyRoutes(inst: LocalInstance): Record<string, AdminRoute> {
  return {
    "GET keys": (_b, rest, url) => {
      segments("GET", "keys", rest, 0);
      return { status: 200, body: { keys: inst.listKeys(url.searchParams.get("space") ?? undefined) } };
    },
    // A space with its plan and credits, and its first key: `local keys create`.
    "POST keys": async (body, rest) => {
      if (rest.length === 2 && rest[1] === "regenerate") return { status: 200, body: { api_key: inst.regenerateKey(rest[0]!) } };
      segments("POST", "keys", rest, 0);
      const b = await fields(body, ["plan", "credits", "name"]);
      const name = text(b, "name");
      const { space, api_key } = inst.createSpace({ plan: text(b, "plan", true), credits: credits(b, "credits"), ...(name !== undefined ? { name } : {}) });
      return { status: 201, body: { api_key, space_id: space.id, space } };
    },
    "DELETE keys": (_b, rest) => {
      segments("DELETE", "keys", rest, 1);
      inst.revokeKey(rest[0]!);
      return { status: 200, body: { revoked: rest[0] } };
    },
    "GET spaces": (_b, rest) => {
      if (rest.length === 0) return { status: 200, body: { spaces: inst.listSpaces() } };
      if (rest.length === 2 && rest[1] === "ledger") return { status: 200, body: { entries: inst.ledgerEntries(rest[0]!) } };
      segments("GET", "spaces", rest, 1);
      const space = inst.getSpace(rest[0]!);
      if (!space) throw new LocalAdminError("not_found", `No space ${rest[0]}`);
      return { status: 200, body: { space } };
    },
    "POST credits": async (body, rest) => {
      segments("POST", "credits", rest, 0);
      const b = await fields(body, ["space", "credits", "note"]);
      return { status: 200, body: { space: inst.addCredits(text(b, "space", true), credits(b, "credits"), text(b, "note")) } };
    },
  };
}

function webhookRoutes(inst: LocalInstance): Record<string, AdminRoute> {
  return {
    "GET webhook-secret": () => ({ status: 200, body: { webhook_secret: inst.getSetting("webhook_secret") ?? null } }),
    // Sets the signing secret (a new whsec_ one when none is given): deliveries are signed from now on.
    "POST webhook-secret": async (body) => {
      const b = await fields(body, ["secret"]);
      const secret = text(b, "secret") ?? `whsec_${crypto.randomBytes(24).toString("base64")}`;
      if (secret.trim() === "") throw invalid("secret must not be empty");
      inst.setSetting("webhook_secret", secret);
      return { status: 200, body: { webhook_secret: secret } };
    },
    "DELETE webhook-secret": () => {
      inst.setSetting("webhook_secret", null);
      return { status: 200, body: { webhook_secret: null } };
    },
    "GET webhooks": (_b, rest, url) => {
      if (rest.length === 0) return { status: 200, body: { deliveries: inst.webhookDeliveries(url.searchParams.get("space") ?? undefined) } };
      segments("GET", "webhooks", rest, 1);
      const d = inst.webhookDelivery(rest[0]!);
      if (!d) throw new LocalAdminError("not_found", `No webhook delivery ${rest[0]}`);
      return { status: 200, body: { delivery: d } };
    },
    "POST webhooks": async (body, rest) => {
      if (rest.length === 1 && rest[0] === "trigger") {
        const b = await fields(body, ["task", "to", "status", "code", "data", "space"]);
        const status = text(b, "status");
        if (status !== undefined && status !== "completed" && status !== "failed") throw invalid(`status must be completed or failed, got "${status}"`);
        const data = b.data;
        if (data !== undefined && (!data || typeof data !== "object" || Array.isArray(data))) throw invalid("data must be a JSON object");
        const code = text(b, "code");
        const space = text(b, "space");
        const id = inst.triggerWebhook(text(b, "task", true), {
          to: text(b, "to", true),
          ...(status ? { status } : {}),
          ...(code ? { code } : {}),
          ...(data ? { data: data as Record<string, unknown> } : {}),
          ...(space ? { spaceId: space } : {}),
        });
        return { status: 201, body: { delivery: inst.webhookDelivery(id) } };
      }
      segments("POST", "webhooks", rest, 2);
      const [id, action] = rest as [string, string];
      if (action !== "resend" && action !== "redeliver") throw new LocalAdminError("not_found", `No admin endpoint POST /_mediagen/webhooks/${id}/${action}`);
      const to = text(await fields(body, ["to"]), "to");
      // resend: the same delivery, the same webhook-id (a repeat); redeliver: a new delivery, a new webhook-id.
      const sent = action === "resend" ? inst.resendWebhook(id, to) : inst.redeliverWebhook(id, to);
      return { status: action === "resend" ? 200 : 201, body: { delivery: inst.webhookDelivery(sent) } };
    },
  };
}

function journalRoutes(journal: RequestJournal): Record<string, AdminRoute> {
  return {
    "GET requests": (_b, rest, url) => {
      segments("GET", "requests", rest, 0);
      const q = url.searchParams;
      const known = ["op", "status", "since", "after", "method", "limit"];
      const unknown = [...q.keys()].filter((k) => !known.includes(k));
      if (unknown.length) throw invalid(`unknown query parameter${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; this endpoint takes ${known.join(", ")}`);
      const get = (k: string) => q.get(k) ?? undefined;
      return {
        status: 200,
        body: { requests: journal.list({ op: get("op"), status: get("status"), since: get("since"), after: get("after"), method: get("method"), limit: get("limit") }) },
      };
    },
    "DELETE requests": (_b, rest) => {
      segments("DELETE", "requests", rest, 0);
      return { status: 200, body: { removed: journal.clear() } };
    },
  };
}

/** The endpoints of this file, keyed `METHOD resource` as admin.ts's route table. */
export function moreAdminRoutes(inst: LocalInstance, journal: RequestJournal): Record<string, AdminRoute> {
  return {
    ...keyRoutes(inst),
    ...webhookRoutes(inst),
    ...journalRoutes(journal),
    // Everything deleted: spaces, keys, jobs, files, rules, the journal; a new default space and key.
    "POST reset": async (body, rest) => {
      segments("POST", "reset", rest, 0);
      await fields(body, []);
      await inst.reset();
      journal.clear();
      return { status: 200, body: { reset: true, api_key: inst.defaultKey() } };
    },
    "GET openapi.json": () => ({ status: 200, body: ADMIN_OPENAPI }),
  };
}
