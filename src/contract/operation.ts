import type { z } from "zod";

export const API_PREFIX = "/api/public/v1";

export interface OperationDef {
  method: "GET" | "POST";
  /** Path under the API prefix; `{x}` segments are filled from the input field `x`. */
  path: string;
  /** Success status. */
  status: 200 | 201;
  request: z.ZodType;
  response: z.ZodType;
  /** Other paths the service answers for the same operation. */
  aliases?: string[];
  /** One line for docs and `--help`. */
  summary: string;
  /** A GET whose query has required parameters: judged by the contract even when it is empty. */
  query?: "required";
}

/** Declares one operation of a feature's contract (keeps the schemas' precise types). */
export function op<Req extends z.ZodType, Res extends z.ZodType>(def: Omit<OperationDef, "request" | "response"> & { request: Req; response: Res }) {
  return def;
}
