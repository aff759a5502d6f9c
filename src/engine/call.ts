/**
 * What an engine call takes and gives, apart from the engine itself so the generated methods
 * (./operation-methods.ts) and the engines share it without a circle.
 */
import type { OpName, OpRequest, OpResponse } from "../features/operations.js";

export type { OpName, OpRequest, OpResponse };

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

/** A named method's arguments: the input may be left out where every field of the request is optional. */
// biome-ignore lint/complexity/noBannedTypes: `{}` is the empty object on purpose: it extends a request whose fields are all optional.
export type CallArgs<K extends OpName> = {} extends OpRequest<K> ? [input?: OpRequest<K>, opts?: CallOptions] : [input: OpRequest<K>, opts?: CallOptions];
