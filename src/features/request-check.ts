/**
 * One contract at every door: the request schema and the spec's codes of an operation, from the
 * contract of the feature it is named after, applied by the local dispatch, the hosted client before
 * it sends, the CLI's dry runs and batch lines. Loading it loads that feature's contract and zod, so
 * callers import it lazily, and only for requests that carry a body or a query.
 */
import type { z } from "zod";
import { knownKeys, requestProblems, problemResponse, type RequestCodes, type RequestProblem } from "../contract/request-check.js";
import { ROUTES, featureOf } from "./routes.js";
import type { ErrorBody } from "../contract/errors.js";
import type { OpName } from "./routes.js";

interface ContractModule {
  operations: Record<string, { request: z.ZodType }>;
  requestCodes?: Record<string, RequestCodes>;
}

const FALLBACK_CODES: RequestCodes = { missing: "missing_field", invalid: "invalid_value" };

/** The request schema and codes of `op`, or undefined for an operation no contract declares. */
export async function requestContract(op: string): Promise<{ schema: z.ZodType; codes: RequestCodes } | undefined> {
  const feature = featureOf(op);
  if (!feature) return undefined;
  const c = (await ("door" in feature ? feature.door() : feature.contract())) as ContractModule;
  const def = c.operations[op];
  return def ? { schema: def.request, codes: c.requestCodes?.[op] ?? FALLBACK_CODES } : undefined;
}

/**
 * A read's query parameters that neither the spec nor the service's docs name: a read is not refused
 * for them (the service's answer to one is not documented, and apps written from its docs send some);
 * they are left out of the check, and `onIgnored` is told. Parameters the schema names are checked.
 */
function withoutUnknownQuery(op: string, schema: z.ZodType, input: unknown, onIgnored?: (keys: string[]) => void): unknown {
  if ((ROUTES as Record<string, { method: string }>)[op]?.method !== "GET" || !input || typeof input !== "object") return input;
  const known = new Set(knownKeys(schema, []));
  if (!known.size) return input;
  const ignored = Object.keys(input).filter((k) => !known.has(k));
  if (!ignored.length) return input;
  onIgnored?.(ignored);
  return Object.fromEntries(Object.entries(input).filter(([k]) => known.has(k)));
}

/** Every problem of a request to `op`, in the spec's terms (empty when it follows the contract). */
export async function requestProblemsOf(op: OpName | string, input: unknown, onIgnored?: (keys: string[]) => void): Promise<RequestProblem[]> {
  const contract = await requestContract(op);
  return contract ? requestProblems(contract.schema, contract.codes, withoutUnknownQuery(op, contract.schema, input ?? {}, onIgnored)) : [];
}

/**
 * What the service answers for the first problem of a request to `op`; undefined when there is none.
 * `onIgnored` hears the query parameters of a read that were left out (see withoutUnknownQuery).
 */
export async function refuseRequest(op: OpName | string, input: unknown, onIgnored?: (keys: string[]) => void): Promise<{ status: number; body: ErrorBody } | undefined> {
  const [first] = await requestProblemsOf(op, input, onIgnored);
  return first ? problemResponse(first) : undefined;
}
