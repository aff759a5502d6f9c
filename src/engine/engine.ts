import type { OpName, OpRequest, OpResponse } from "../features/operations.js";
import { ROUTES } from "../features/routes.js";
import type { RateLimitInfo } from "../contract/rate-limit.js";

export type { OpName, OpRequest, OpResponse, RateLimitInfo };

export interface CallOptions {
  /**
   * Local-only deterministic failure: `fail` or `fail:<CODE>` makes the job end `failed`.
   * Over HTTP it travels as the `X-Local-Simulate` header; the hosted service ignores it.
   */
  simulate?: string;
  signal?: AbortSignal;
  /**
   * Told, before each wait, that the call waits out a 429 for `waitMs` (both targets), so the
   * caller can say why nothing happens meanwhile.
   */
  onRateLimited?: (waitMs: number) => void;
}

export type Target = "local" | "hosted";

/**
 * The service, whichever target answers it. One method per API operation, typed by the contract.
 * Errors are thrown as `ApiError` (service answered) or `NetworkError` (it could not be reached).
 */
/** One method per operation, named after it: `engine.assetStart(input)` is `engine.call("assetStart", input)`. */
export type OperationMethods = {
  // biome-ignore lint/complexity/noBannedTypes: `{}` is the empty object on purpose: it extends a request whose fields are all optional.
  [K in OpName]: {} extends OpRequest<K>
    ? (input?: OpRequest<K>, opts?: CallOptions) => Promise<OpResponse<K>>
    : (input: OpRequest<K>, opts?: CallOptions) => Promise<OpResponse<K>>;
};

/**
 * The service, whichever target answers it. One method per API operation, typed by the contract.
 * Errors are thrown as `ApiError` (service answered) or `NetworkError` (it could not be reached).
 */
export interface Engine extends OperationMethods {
  readonly target: Target;
  /** Generic entry point: every named method is `call(op, input, opts)`. */
  call<K extends OpName>(op: K, input: OpRequest<K>, opts?: CallOptions): Promise<OpResponse<K>>;
  /** Rate-limit headers of the last response, when the target reports them. */
  lastRateLimit(): RateLimitInfo | undefined;
  close(): Promise<void>;
}

/**
 * Implements every named method through `call`, so a target only writes `call`. The methods are
 * installed from the operation table, so a new operation needs no code here.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the named methods are installed on the prototype from the operation table below; this interface types them.
export abstract class BaseEngine {
  abstract readonly target: Target;
  abstract call<K extends OpName>(op: K, input: OpRequest<K>, opts?: CallOptions): Promise<OpResponse<K>>;
  lastRateLimit(): RateLimitInfo | undefined {
    return undefined;
  }
  async close(): Promise<void> {}
}
export interface BaseEngine extends OperationMethods {}

for (const name of Object.keys(ROUTES) as OpName[]) {
  Object.defineProperty(BaseEngine.prototype, name, {
    value: function (this: BaseEngine, input: unknown = {}, opts?: CallOptions) {
      return this.call(name, input as never, opts);
    },
    writable: true,
    configurable: true,
  });
}
