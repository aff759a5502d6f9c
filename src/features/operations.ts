import type { z } from "zod";
import { API_PREFIX, type OperationDef } from "../contract/operation.js";
import { FEATURES, type Features } from "./index.js";
import type { ScriptGenerateRequest } from "./script/contract.js";

export { API_PREFIX, type OperationDef };

type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;
type ContractOf<F> = F extends { contract(): Promise<infer C> } ? C : never;

/** Every operation of the service, merged from the features' contracts (see features/index.ts). */
export type Operations = UnionToIntersection<ContractOf<Features[number]>["operations"]>;

/**
 * The operation table: method, path, success status, request and response schemas of every endpoint.
 * The server routes, the hosted client builds requests and the `Engine` interface is typed from it.
 * Within a feature, literal paths come before parameterised ones sharing a prefix (route order).
 */
export const operations: Operations = Object.assign(
  {},
  ...(await Promise.all(FEATURES.map((f) => f.contract()))).map((c) => c.operations),
) as Operations;

export type OpName = keyof Operations;
export type OpRequest<K extends OpName> = K extends "scriptGenerate"
  ? ScriptGenerateRequest
  : z.input<Operations[K]["request"]>;
export type OpResponse<K extends OpName> = z.output<Operations[K]["response"]>;

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

const compiled = (Object.keys(operations) as OpName[]).flatMap((name) => {
  const def: OperationDef = operations[name];
  return [def.path, ...(def.aliases ?? [])].map((p) => {
    const names = pathParams(p);
    const re = new RegExp("^" + p.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, "([^/]+)") + "/?$");
    return { name, method: def.method, re, names };
  });
});

/**
 * Matches a path (under the prefix) to an operation. Returns `undefined` for unknown paths and
 * `{ allowed }` when the path exists with other methods only.
 */
export function matchRoute(
  method: string,
  path: string,
): RouteMatch | { allowed: string[] } | undefined {
  const allowed = new Set<string>();
  for (const r of compiled) {
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
