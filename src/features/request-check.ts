/**
 * One contract at every door: the request schema and the spec's codes of an operation, from the
 * contract of the feature it is named after, applied by the local dispatch, the hosted client before
 * it sends, the CLI's dry runs and batch lines. Loading it loads that feature's contract and zod, so
 * callers import it lazily, and only for requests that carry a body or a query.
 */
import type { z } from "zod";
import { requestProblems, problemResponse, type RequestCodes, type RequestProblem } from "../contract/request-check.js";
import type { ErrorBody } from "../contract/errors.js";
import { FEATURES } from "./index.js";
import type { OpName } from "./operations.js";

interface ContractModule {
  operations: Record<string, { request: z.ZodType }>;
  requestCodes?: Record<string, RequestCodes>;
}

const FALLBACK_CODES: RequestCodes = { missing: "missing_field", invalid: "invalid_value" };

/** The request schema and codes of `op`, or undefined for an operation no feature declares. */
export async function requestContract(op: string): Promise<{ schema: z.ZodType; codes: RequestCodes } | undefined> {
  const owner = FEATURES.find((f) => op.startsWith(f.name));
  const candidates = owner ? [owner] : FEATURES;
  for (const f of candidates) {
    const c = (await f.contract()) as unknown as ContractModule;
    const def = c.operations[op];
    if (def) return { schema: def.request, codes: c.requestCodes?.[op] ?? FALLBACK_CODES };
  }
  return undefined;
}

/** Every problem of a request to `op`, in the spec's terms (empty when it follows the contract). */
export async function requestProblemsOf(op: OpName | string, input: unknown): Promise<RequestProblem[]> {
  const contract = await requestContract(op);
  return contract ? requestProblems(contract.schema, contract.codes, input ?? {}) : [];
}

/** What the service answers for the first problem of a request to `op`; undefined when there is none. */
export async function refuseRequest(op: OpName | string, input: unknown): Promise<{ status: number; body: ErrorBody } | undefined> {
  const [first] = await requestProblemsOf(op, input);
  return first ? problemResponse(first) : undefined;
}
