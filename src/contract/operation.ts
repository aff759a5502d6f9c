import type { z } from "zod";

export const API_PREFIX = "/api/public/v1";

/**
 * An operation as the service answers it, without its schemas (each feature's `routes.ts`): light
 * enough for the route table, the hosted client's calls and the fault rules to read without zod.
 */
export interface RouteFacts {
  method: "GET" | "POST";
  /** Path under the API prefix; `{x}` segments are filled from the input field `x`. */
  path: string;
  /** Success status. */
  status: 200 | 201;
  /** Other paths the service answers for the same operation. */
  aliases?: readonly string[];
  /** One line for docs and `--help`. */
  summary: string;
  /** A GET whose query has required parameters: judged by the contract even when it is empty. */
  query?: "required";
  /** The request error codes the endpoint's section lists (beyond those any operation may answer). */
  errors?: readonly string[];
  /** A start: what its job may fail with, and at which steps. */
  job?: { readonly codes: readonly string[]; readonly steps: readonly string[] };
  /** A status read that reports `progress` (and `progress_step`). */
  progress?: true;
}

export interface OperationDef extends RouteFacts {
  request: z.ZodType;
  response: z.ZodType;
}

/** Declares one operation of a feature's contract: its route facts (its `routes.ts`) and its schemas, with their precise types. */
export function op<R extends RouteFacts, Req extends z.ZodType, Res extends z.ZodType>(
  route: R,
  schemas: { request: Req; response: Res },
): R & { request: Req; response: Res } {
  return { ...route, ...schemas };
}
