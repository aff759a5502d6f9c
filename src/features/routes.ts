/**
 * The route table: method, path, success status and summary of every operation of the service, in
 * route order (within a feature, literal paths before parameterised ones sharing a prefix). It is the
 * light half of the operation table (src/features/operations.ts): no zod, no contract module, so the
 * CLI, the local dispatch and the server route and call without loading any schema. The zod schemas
 * stay in each feature's contract.ts; test/unit/routes.test.ts keeps the two tables identical (an
 * operation added to a contract is added here too, in the same order).
 */
import { API_PREFIX, type OperationDef } from "../contract/operation.js";
import type { OpName } from "./operations.js";

export { API_PREFIX };

/** An operation without its schemas. */
export type RouteDef = Omit<OperationDef, "request" | "response">;
export type RouteTable = { readonly [K in OpName]: RouteDef };

export const ROUTES: RouteTable = {
  // folder
  folderCreate: { method: "POST", path: "/folder/create", status: 201, summary: "Create a folder" },
  folderList: { method: "GET", path: "/folder/list", status: 200, summary: "List folders" },
  // asset
  assetModels: { method: "GET", path: "/asset/models", status: 200, summary: "List models" },
  assetModel: { method: "GET", path: "/asset/models/{name}", status: 200, summary: "One model with its input_schema", aliases: ["/models/{name}"] },
  assetPricing: { method: "POST", path: "/asset/pricing", status: 200, summary: "Dry-run price of an asset generation" },
  assetStart: { method: "POST", path: "/asset/start", status: 201, summary: "Start image or video generation" },
  assetStatus: { method: "GET", path: "/asset/status/{assetId}", status: 200, summary: "Status of one asset" },
  // avatar
  avatarCreate: { method: "POST", path: "/avatar/create", status: 201, summary: "Create an avatar with its first look" },
  avatarEdit: { method: "POST", path: "/avatar/edit", status: 201, summary: "New look from an existing one" },
  avatarStatus: { method: "GET", path: "/avatar/status", status: 200, summary: "Status of a look's generation", query: "required" },
  avatarList: { method: "GET", path: "/avatar/list", status: 200, summary: "List looks, space first" },
  avatarLook: { method: "GET", path: "/avatar/{avatar_id}/look/{look_id}", status: 200, summary: "One look" },
  avatarGet: { method: "GET", path: "/avatar/{avatar_id}", status: 200, summary: "One avatar with its looks" },
  resourceAvatars: { method: "GET", path: "/resources/avatars", status: 200, summary: "Looks of the space and the public catalog (legacy listing)" },
  // voice
  voiceList: { method: "GET", path: "/voice/list", status: 200, summary: "List voices, space first" },
  voiceGet: { method: "GET", path: "/voice/{id}", status: 200, summary: "One voice" },
  resourceVoices: { method: "GET", path: "/resources/voices", status: 200, summary: "Voices with accent and preview" },
  // script
  scriptGenerate: { method: "POST", path: "/script/generate", status: 200, summary: "Generate a video script" },
  // generation
  generationStart: { method: "POST", path: "/generation/start", status: 201, summary: "Start a video generation job" },
  generationStatus: { method: "GET", path: "/generation/status/{job_id}", status: 200, summary: "Status of a generation job" },
  // video
  videoDuplicate: { method: "POST", path: "/video/duplicate", status: 201, summary: "Duplicate a completed video" },
  // export
  exportStart: { method: "POST", path: "/export/start", status: 201, summary: "Start an export job" },
  exportStatus: { method: "GET", path: "/export/status/{job_id}", status: 200, summary: "Status of an export job" },
};

/**
 * Whether a request carries anything the contract judges beyond its path: a POST body always; a
 * GET only with a query, or when its query has required parameters (`avatar/status`). A bare read
 * (`folder list`, a status by id) loads no schema.
 */
export function carriesInput(op: OpName, input: Record<string, unknown> | undefined): boolean {
  const route = ROUTES[op];
  if (!route) return true;
  if (route.method === "POST" || route.query === "required") return true;
  const params = new Set(pathParams(route.path));
  return Object.entries(input ?? {}).some(([k, v]) => v !== undefined && !params.has(k));
}

/** Names of the `{x}` parameters in a path template. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/**
 * Fills a path template from an input object; the rest of the input is returned. Throws a TypeError
 * (`missing path parameter x` / `invalid path parameter x`) for a value that would address another
 * path: empty, or `.`/`..`, which URL resolution turns into a parent path.
 */
export function fillPath(path: string, input: Record<string, unknown>): { path: string; rest: Record<string, unknown> } {
  const rest: Record<string, unknown> = { ...input };
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = rest[name];
    delete rest[name];
    if (v === undefined || v === null || v === "") throw new TypeError(`missing path parameter ${name}`);
    const s = String(v);
    if (s === "." || s === "..") throw new TypeError(`invalid path parameter ${name}: "${s}" names another path`);
    return encodeURIComponent(s);
  });
  return { path: filled, rest };
}

export interface RouteMatch {
  op: OpName;
  params: Record<string, string>;
}

/** The routes as regular expressions, compiled on first use (the CLI never routes). */
let compiled: { name: OpName; method: string; re: RegExp; names: string[] }[] | undefined;
function routes(): NonNullable<typeof compiled> {
  compiled ??= (Object.keys(ROUTES) as OpName[]).flatMap((name) => {
    const def: RouteDef = ROUTES[name];
    return [def.path, ...(def.aliases ?? [])].map((p) => {
      const names = pathParams(p);
      const re = new RegExp("^" + p.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, "([^/]+)") + "/?$");
      return { name, method: def.method, re, names };
    });
  });
  return compiled;
}

/**
 * Matches a path (under the prefix) to an operation. Returns `undefined` for unknown paths and
 * `{ allowed }` when the path exists with other methods only.
 */
export function matchRoute(method: string, path: string): RouteMatch | { allowed: string[] } | undefined {
  const allowed = new Set<string>();
  for (const r of routes()) {
    const m = r.re.exec(path);
    if (!m) continue;
    if (r.method !== method) {
      allowed.add(r.method);
      continue;
    }
    const params: Record<string, string> = {};
    r.names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1]!);
    });
    return { op: r.name, params };
  }
  return allowed.size ? { allowed: [...allowed] } : undefined;
}
