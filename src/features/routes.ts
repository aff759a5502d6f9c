/**
 * The list of features, at the level of their operations: each feature's route facts (its
 * `routes.ts`: method, path, success status, summary, error codes, what its jobs fail with), the life
 * of each operation and job (its `life.ts`) and how to load its contract (the zod schemas).
 * Everything that spans operations derives from it: the route table below, the operation names and
 * types (./operations.ts), the table of lives (./lives.ts), the contract each door judges a request
 * by (./request-check.ts), the hosted client's response check and the fault rules' codes.
 * It loads no schema, so the CLI, the local dispatch and the server route and call without zod.
 * Within a feature, literal paths come before parameterised ones sharing a prefix (route order).
 * The commands (./index.ts) and the emulators (./emulators.ts) are keyed by its names, so the type
 * checker refuses a feature missing from either, and follow its order (test/unit/routes.test.ts).
 */
import { API_PREFIX, type RouteFacts } from "../contract/operation.js";
import { folderRoutes } from "./folder/routes.js";
import { folderLife } from "./folder/life.js";
import { assetRoutes } from "./asset/routes.js";
import { assetLife } from "./asset/life.js";
import { avatarRoutes } from "./avatar/routes.js";
import { avatarLife } from "./avatar/life.js";
import { voiceRoutes } from "./voice/routes.js";
import { voiceLife } from "./voice/life.js";
import { scriptRoutes } from "./script/routes.js";
import { scriptLife } from "./script/life.js";
import { generationRoutes } from "./generation/routes.js";
import { generationLife } from "./generation/life.js";
import { videoRoutes } from "./video/routes.js";
import { videoLife } from "./video/life.js";
import { exportRoutes } from "./export/routes.js";
import { exportLife } from "./export/life.js";

export { API_PREFIX };

export const FEATURE_LIST = [
  { name: "folder", routes: folderRoutes, life: folderLife, contract: () => import("./folder/contract.js") },
  { name: "asset", routes: assetRoutes, life: assetLife, contract: () => import("./asset/contract.js") },
  { name: "avatar", routes: avatarRoutes, life: avatarLife, contract: () => import("./avatar/contract.js") },
  { name: "voice", routes: voiceRoutes, life: voiceLife, contract: () => import("./voice/contract.js") },
  { name: "script", routes: scriptRoutes, life: scriptLife, contract: () => import("./script/contract.js") },
  // Generation start's request rules include the plan's, which its contract file may not load.
  { name: "generation", routes: generationRoutes, life: generationLife, contract: () => import("./generation/contract.js"), door: () => import("./generation/door.js") },
  { name: "video", routes: videoRoutes, life: videoLife, contract: () => import("./video/contract.js") },
  { name: "export", routes: exportRoutes, life: exportLife, contract: () => import("./export/contract.js") },
] as const;

/** The name of each feature of the list. */
export type FeatureName = (typeof FEATURE_LIST)[number]["name"];

type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;
type AllRoutes = UnionToIntersection<(typeof FEATURE_LIST)[number]["routes"]>;

/** The name of every operation of the service. */
export type OpName = keyof AllRoutes;

/** An operation without its schemas. */
export type RouteDef = RouteFacts;
export type RouteTable = { readonly [K in OpName]: RouteDef };

/** The route table: every operation's route facts, in route order. */
export const ROUTES: RouteTable = Object.assign({}, ...FEATURE_LIST.map((f) => f.routes)) as RouteTable;

/** The feature an operation belongs to (undefined for a name no feature declares). */
export function featureOf(op: string): (typeof FEATURE_LIST)[number] | undefined {
  return FEATURE_LIST.find((f) => Object.hasOwn(f.routes, op));
}

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
