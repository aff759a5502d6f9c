import type { CallOptions, OpName, OpRequest, OpResponse } from "./call.js";
import { OperationCalls } from "./operation-methods.js";
import type { RateLimitInfo } from "../contract/rate-limit.js";

export type { CallArgs } from "./call.js";
export type { CallOptions, OpName, OpRequest, OpResponse, RateLimitInfo };

export type Target = "local" | "hosted";

/**
 * The service, whichever target answers it. One method per API operation (./operation-methods.ts),
 * typed by the contract.
 * Errors are thrown as `ApiError` (service answered) or `NetworkError` (it could not be reached).
 */
export interface Engine extends OperationCalls {
  readonly target: Target;
  /** Generic entry point: every named method is `call(op, input, opts)`. */
  call<K extends OpName>(op: K, input: OpRequest<K>, opts?: CallOptions): Promise<OpResponse<K>>;
  /** Rate-limit headers of the last response, when the target reports them. */
  lastRateLimit(): RateLimitInfo | undefined;
  close(): Promise<void>;
}

/** Implements every named method through `call` (./operation-methods.ts), so a target only writes `call`. */
export abstract class BaseEngine extends OperationCalls {
  abstract readonly target: Target;
  lastRateLimit(): RateLimitInfo | undefined {
    return undefined;
  }
  async close(): Promise<void> {}
}
