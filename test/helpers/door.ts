/**
 * A request judged as the local dispatch judges it: the operation's schema at the door first (its
 * first problem is the answer), then `then` (a handler's rules that need the model or the space).
 */
import { problemResponse, requestProblems } from "../../src/contract/request-check.js";
import { ApiError } from "../../src/engine/errors.js";
import { operations as assetOps, requestCodes as assetCodes } from "../../src/features/asset/contract.js";
import { operations as exportOps, requestCodes as exportCodes } from "../../src/features/export/contract.js";

const DOORS = {
  assetStart: { schema: assetOps.assetStart.request, codes: assetCodes.assetStart },
  assetPricing: { schema: assetOps.assetPricing.request, codes: assetCodes.assetPricing },
  exportStart: { schema: exportOps.exportStart.request, codes: exportCodes.exportStart },
};

export function throughDoor<T>(op: keyof typeof DOORS, body: unknown, then: (input: never) => T): T {
  const { schema, codes } = DOORS[op];
  const [first] = requestProblems(schema, codes, body);
  if (first) {
    const { status, body: answer } = problemResponse(first);
    throw new ApiError(status, answer);
  }
  return then(body as never);
}
