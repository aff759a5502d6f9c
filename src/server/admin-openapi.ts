/**
 * The OpenAPI 3.1 document of `mediagen serve`'s admin path, served at `GET /_mediagen/openapi.json`
 * (src/server/admin.ts, admin-routes.ts). Every endpoint of the route table is here
 * (test/http/admin-api.test.ts checks the two agree). The API itself (`/api/public/v1`) is the spec's.
 */
import { FAULT_KINDS } from "../local/fault-rule.js";

const json = (schema: Record<string, unknown>) => ({ content: { "application/json": { schema } } });
const ok = (description: string, schema: Record<string, unknown> = { type: "object" }) => ({ description, ...json(schema) });
const body = (properties: Record<string, unknown>, required: string[] = []) => ({
  required: required.length > 0,
  ...json({ type: "object", additionalProperties: false, properties, ...(required.length ? { required } : {}) }),
});
const id = (name: string, description: string) => ({ name, in: "path", required: true, description, schema: { type: "string" } });
const query = (name: string, description: string) => ({ name, in: "query", required: false, description, schema: { type: "string" } });
const errors = {
  "400": ok("Bad input: the body, a field or a parameter is named in `details[0].message`", { $ref: "#/components/schemas/Error" }),
  "403": ok("Not a loopback client (and no valid X-Mediagen-Admin-Token), or a web page of another site", { $ref: "#/components/schemas/Error" }),
  "404": ok("No such endpoint, or no such rule, snapshot, key, space or delivery", { $ref: "#/components/schemas/Error" }),
};
const op = (summary: string, responses: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ summary, ...extra, responses: { ...responses, ...errors } });

const faultRule = {
  type: "object",
  additionalProperties: false,
  required: ["op", "action"],
  properties: {
    op: { type: "string", description: "operation (assetStatus…), webhook task (video_generate…) or *" },
    action: { enum: [...FAULT_KINDS] },
    status: { type: "integer", minimum: 400, maximum: 599, description: "error" },
    code: { type: "string", description: "error: the spec's code; job_fail: the job's error code" },
    message: { type: "string", description: "error" },
    retry_after: { type: "integer", minimum: 0, maximum: 3600, description: "error: Retry-After seconds (a 429's X-RateLimit-Reset follows)" },
    ms: { type: ["string", "integer"], description: "latency (a range 200-800), job_stall, webhook_delay, webhook_reorder hold; at most 1h" },
    step: { type: "string", description: "job_fail" },
    by: { type: "integer", minimum: 1, maximum: 100, description: "progress_backwards" },
    probability: { type: "number", exclusiveMinimum: 0, maximum: 1 },
    times: { type: "integer", minimum: 1, maximum: 1_000_000 },
    expires_in: { type: "string" },
    expires_at: { type: "string", format: "date-time" },
    space: { type: "string" },
    key: { type: "string" },
  },
};

export const ADMIN_OPENAPI = {
  openapi: "3.1.0",
  info: {
    title: "mediagen serve admin API",
    version: "1",
    description:
      "The local instance's controls, outside /api/public/v1: loopback clients only (no web page of another site), unless serve --admin-token lets a remote client in with X-Mediagen-Admin-Token. An API key opens nothing here.",
  },
  servers: [{ url: "/_mediagen" }],
  components: {
    schemas: {
      Error: {
        type: "object",
        properties: {
          error: { type: "string" },
          details: { type: "array", items: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } } },
        },
      },
      FaultRule: faultRule,
    },
    securitySchemes: { adminToken: { type: "apiKey", in: "header", name: "X-Mediagen-Admin-Token" } },
  },
  paths: {
    "/faults": {
      get: op("Fault rules with their state", { "200": ok("{rules}") }),
      post: op(
        "Add fault rules (one, an array, or {rules}); all or none",
        { "201": ok("{rules} as stored") },
        {
          requestBody: {
            required: true,
            ...json({ oneOf: [{ $ref: "#/components/schemas/FaultRule" }, { type: "array", items: { $ref: "#/components/schemas/FaultRule" } }] }),
          },
        },
      ),
      delete: op("Remove every rule", { "200": ok("{removed}") }),
    },
    "/faults/{id}": { delete: op("Remove one rule", { "200": ok("{removed}") }, { parameters: [id("id", "flt_…")] }) },
    "/clock": {
      get: op("The instance clock", { "200": ok("clock state") }),
      post: op(
        "Move, freeze or reset the clock",
        { "200": ok("clock state") },
        { requestBody: body({ advance: { type: "string", description: "8d, 90m…" }, freeze: { const: true }, reset: { const: true } }) },
      ),
    },
    "/snapshots": {
      get: op("Snapshots", { "200": ok("{snapshots}") }),
      post: op("Save a snapshot", { "201": ok("{snapshot}") }, { requestBody: body({ name: { type: "string" }, replace: { type: "boolean" } }, ["name"]) }),
    },
    "/snapshots/{name}": { delete: op("Delete a snapshot", { "200": ok("{deleted}") }, { parameters: [id("name", "snapshot name")] }) },
    "/snapshots/{name}/restore": { post: op("Restore a snapshot", { "200": ok("{restored}") }, { parameters: [id("name", "snapshot name")] }) },
    "/keys": {
      get: op("API keys (masked)", { "200": ok("{keys}") }, { parameters: [query("space", "only this space's")] }),
      post: op(
        "Create a space with a plan and credits, and its first key (shown once)",
        { "201": ok("{api_key, space_id, space}") },
        {
          requestBody: body({ plan: { type: "string", description: "free, start, PRO or ENTREPRISE" }, credits: { type: "number" }, name: { type: "string" } }, [
            "plan",
            "credits",
          ]),
        },
      ),
    },
    "/keys/{id}": { delete: op("Revoke a key", { "200": ok("{revoked}") }, { parameters: [id("id", "key_… or the key")] }) },
    "/keys/{id}/regenerate": { post: op("Revoke a key and make its replacement", { "200": ok("{api_key}") }, { parameters: [id("id", "key_… or the key")] }) },
    "/spaces": { get: op("Spaces with plan and balance", { "200": ok("{spaces}") }) },
    "/spaces/{id}": { get: op("One space", { "200": ok("{space}") }, { parameters: [id("id", "space id")] }) },
    "/spaces/{id}/ledger": { get: op("A space's ledger", { "200": ok("{entries}") }, { parameters: [id("id", "space id")] }) },
    "/credits": {
      post: op(
        "Grant credits to a space",
        { "200": ok("{space}") },
        { requestBody: body({ space: { type: "string" }, credits: { type: "number" }, note: { type: "string" } }, ["space", "credits"]) },
      ),
    },
    "/webhook-secret": {
      get: op("The webhook signing secret (null: deliveries unsigned)", { "200": ok("{webhook_secret}") }),
      post: op("Set the signing secret (a new whsec_ one when none is given)", { "200": ok("{webhook_secret}") }, { requestBody: body({ secret: { type: "string" } }) }),
      delete: op("Remove the secret: deliveries go unsigned (still with a webhook-id)", { "200": ok("{webhook_secret: null}") }),
    },
    "/webhooks": {
      get: op("Webhook deliveries with their attempts and webhook_id", { "200": ok("{deliveries}") }, { parameters: [query("space", "only this space's")] }),
    },
    "/webhooks/{id}": { get: op("One delivery", { "200": ok("{delivery}") }, { parameters: [id("id", "whd_…")] }) },
    "/webhooks/{id}/resend": {
      post: op(
        "Send the same delivery again (same webhook-id: a repeat)",
        { "200": ok("{delivery}") },
        { parameters: [id("id", "whd_…")], requestBody: body({ to: { type: "string" } }) },
      ),
    },
    "/webhooks/{id}/redeliver": {
      post: op(
        "Send its payload as a new delivery (new webhook-id)",
        { "201": ok("{delivery}") },
        { parameters: [id("id", "whd_…")], requestBody: body({ to: { type: "string" } }) },
      ),
    },
    "/webhooks/trigger": {
      post: op(
        "Send a sample delivery of a task",
        { "201": ok("{delivery}") },
        {
          requestBody: body(
            {
              task: { type: "string" },
              to: { type: "string" },
              status: { enum: ["completed", "failed"] },
              code: { type: "string" },
              data: { type: "object" },
              space: { type: "string" },
            },
            ["task", "to"],
          ),
        },
      ),
    },
    "/requests": {
      get: op(
        "The request journal: API and media requests, oldest first (the last 10,000 per home)",
        { "200": ok("{requests: [{seq, at, method, path, query, op, status, error, duration_ms, request_id, body, body_truncated}]}") },
        {
          parameters: [
            query("op", "operation name(s), comma-separated"),
            query("status", "429, 4xx, or a comma-separated list"),
            query("since", "ISO 8601 time: entries at or after it"),
            query("after", "seq: entries after it"),
            query("method", "GET or POST"),
            query("limit", "the newest N"),
          ],
        },
      ),
      delete: op("Empty the journal", { "200": ok("{removed}") }),
    },
    "/reset": { post: op("Delete everything (a new default space and key)", { "200": ok("{reset: true, api_key}") }) },
    "/openapi.json": { get: op("This document", { "200": ok("OpenAPI 3.1") }) },
  },
} as const;
