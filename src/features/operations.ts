import type { z } from "zod";
import { API_PREFIX, type OperationDef } from "../contract/operation.js";
import { FEATURE_LIST, type OpName } from "./routes.js";
import type { ScriptGenerateRequest } from "./script/contract.js";

export { API_PREFIX, type OperationDef, type OpName };

type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;
type ContractOf<F> = F extends { contract(): Promise<infer C> } ? C : never;

/** Every operation of the service, merged from the features' contracts (the feature list: ./routes.ts). */
export type Operations = UnionToIntersection<ContractOf<(typeof FEATURE_LIST)[number]>["operations"]>;

/**
 * The operation table, with the zod schemas: loading it loads every feature's contract and zod, so
 * only what validates against the schemas imports it at run time (tests, the MCP server). Routing,
 * calling and dispatching read the light route table (./routes.ts), whose entries are the same
 * route facts without the schemas; the hosted client's response check loads one feature's contract.
 *
 * The operation table: method, path, success status, request and response schemas of every endpoint.
 * The server routes, the hosted client builds requests and the `Engine` interface is typed from it.
 */
export const operations: Operations = Object.assign({}, ...(await Promise.all(FEATURE_LIST.map((f) => f.contract()))).map((c) => c.operations)) as Operations;

/**
 * What an engine call takes. Every door judges the request against the operation's schema before it
 * is sent or handled (features/request-check.ts), so callers may pass bodies they built from flags
 * or files: the type names the fields, the check enforces the rules.
 */
export type OpRequest<K extends OpName> = K extends "scriptGenerate" ? ScriptGenerateRequest : Partial<z.input<Operations[K]["request"]>> & Record<string, unknown>;
export type OpResponse<K extends OpName> = z.output<Operations[K]["response"]>;
