import type { OpName, OpRequest, OpResponse } from "../contract/operations.js";
import type { RateLimitInfo } from "../contract/rate-limit.js";

export type { OpName, OpRequest, OpResponse, RateLimitInfo };

export interface CallOptions {
  /**
   * Local-only deterministic failure: `fail` or `fail:<CODE>` makes the job end `failed`.
   * Over HTTP it travels as the `X-Local-Simulate` header; the hosted service ignores it.
   */
  simulate?: string;
  signal?: AbortSignal;
}

export type Target = "local" | "hosted";

/**
 * The service, whichever target answers it. One method per API operation, typed by the contract.
 * Errors are thrown as `ApiError` (service answered) or `NetworkError` (it could not be reached).
 */
export interface Engine {
  readonly target: Target;
  /** Generic entry point: every named method is `call(op, input, opts)`. */
  call<K extends OpName>(op: K, input: OpRequest<K>, opts?: CallOptions): Promise<OpResponse<K>>;
  /** Rate-limit headers of the last response, when the target reports them. */
  lastRateLimit(): RateLimitInfo | undefined;
  close(): Promise<void>;

  assetModels(input?: OpRequest<"assetModels">, opts?: CallOptions): Promise<OpResponse<"assetModels">>;
  assetModel(input: OpRequest<"assetModel">, opts?: CallOptions): Promise<OpResponse<"assetModel">>;
  assetPricing(input: OpRequest<"assetPricing">, opts?: CallOptions): Promise<OpResponse<"assetPricing">>;
  assetStart(input: OpRequest<"assetStart">, opts?: CallOptions): Promise<OpResponse<"assetStart">>;
  assetStatus(input: OpRequest<"assetStatus">, opts?: CallOptions): Promise<OpResponse<"assetStatus">>;
  avatarCreate(input: OpRequest<"avatarCreate">, opts?: CallOptions): Promise<OpResponse<"avatarCreate">>;
  avatarEdit(input: OpRequest<"avatarEdit">, opts?: CallOptions): Promise<OpResponse<"avatarEdit">>;
  avatarStatus(input: OpRequest<"avatarStatus">, opts?: CallOptions): Promise<OpResponse<"avatarStatus">>;
  avatarList(input?: OpRequest<"avatarList">, opts?: CallOptions): Promise<OpResponse<"avatarList">>;
  avatarLook(input: OpRequest<"avatarLook">, opts?: CallOptions): Promise<OpResponse<"avatarLook">>;
  avatarGet(input: OpRequest<"avatarGet">, opts?: CallOptions): Promise<OpResponse<"avatarGet">>;
  voiceList(input?: OpRequest<"voiceList">, opts?: CallOptions): Promise<OpResponse<"voiceList">>;
  voiceGet(input: OpRequest<"voiceGet">, opts?: CallOptions): Promise<OpResponse<"voiceGet">>;
  resourceVoices(input?: OpRequest<"resourceVoices">, opts?: CallOptions): Promise<OpResponse<"resourceVoices">>;
  folderCreate(input: OpRequest<"folderCreate">, opts?: CallOptions): Promise<OpResponse<"folderCreate">>;
  folderList(input?: OpRequest<"folderList">, opts?: CallOptions): Promise<OpResponse<"folderList">>;
  generationStart(input: OpRequest<"generationStart">, opts?: CallOptions): Promise<OpResponse<"generationStart">>;
  generationStatus(input: OpRequest<"generationStatus">, opts?: CallOptions): Promise<OpResponse<"generationStatus">>;
  exportStart(input: OpRequest<"exportStart">, opts?: CallOptions): Promise<OpResponse<"exportStart">>;
  exportStatus(input: OpRequest<"exportStatus">, opts?: CallOptions): Promise<OpResponse<"exportStatus">>;
  videoDuplicate(input: OpRequest<"videoDuplicate">, opts?: CallOptions): Promise<OpResponse<"videoDuplicate">>;
  scriptGenerate(input: OpRequest<"scriptGenerate">, opts?: CallOptions): Promise<OpResponse<"scriptGenerate">>;
}

/** Implements every named method through `call`, so a target only writes `call`. */
export abstract class BaseEngine implements Engine {
  abstract readonly target: Target;
  abstract call<K extends OpName>(op: K, input: OpRequest<K>, opts?: CallOptions): Promise<OpResponse<K>>;
  lastRateLimit(): RateLimitInfo | undefined {
    return undefined;
  }
  async close(): Promise<void> {}

  assetModels(input: OpRequest<"assetModels"> = {}, opts?: CallOptions) { return this.call("assetModels", input, opts); }
  assetModel(input: OpRequest<"assetModel">, opts?: CallOptions) { return this.call("assetModel", input, opts); }
  assetPricing(input: OpRequest<"assetPricing">, opts?: CallOptions) { return this.call("assetPricing", input, opts); }
  assetStart(input: OpRequest<"assetStart">, opts?: CallOptions) { return this.call("assetStart", input, opts); }
  assetStatus(input: OpRequest<"assetStatus">, opts?: CallOptions) { return this.call("assetStatus", input, opts); }
  avatarCreate(input: OpRequest<"avatarCreate">, opts?: CallOptions) { return this.call("avatarCreate", input, opts); }
  avatarEdit(input: OpRequest<"avatarEdit">, opts?: CallOptions) { return this.call("avatarEdit", input, opts); }
  avatarStatus(input: OpRequest<"avatarStatus">, opts?: CallOptions) { return this.call("avatarStatus", input, opts); }
  avatarList(input: OpRequest<"avatarList"> = {}, opts?: CallOptions) { return this.call("avatarList", input, opts); }
  avatarLook(input: OpRequest<"avatarLook">, opts?: CallOptions) { return this.call("avatarLook", input, opts); }
  avatarGet(input: OpRequest<"avatarGet">, opts?: CallOptions) { return this.call("avatarGet", input, opts); }
  voiceList(input: OpRequest<"voiceList"> = {}, opts?: CallOptions) { return this.call("voiceList", input, opts); }
  voiceGet(input: OpRequest<"voiceGet">, opts?: CallOptions) { return this.call("voiceGet", input, opts); }
  resourceVoices(input: OpRequest<"resourceVoices"> = {}, opts?: CallOptions) { return this.call("resourceVoices", input, opts); }
  folderCreate(input: OpRequest<"folderCreate">, opts?: CallOptions) { return this.call("folderCreate", input, opts); }
  folderList(input: OpRequest<"folderList"> = {}, opts?: CallOptions) { return this.call("folderList", input, opts); }
  generationStart(input: OpRequest<"generationStart">, opts?: CallOptions) { return this.call("generationStart", input, opts); }
  generationStatus(input: OpRequest<"generationStatus">, opts?: CallOptions) { return this.call("generationStatus", input, opts); }
  exportStart(input: OpRequest<"exportStart">, opts?: CallOptions) { return this.call("exportStart", input, opts); }
  exportStatus(input: OpRequest<"exportStatus">, opts?: CallOptions) { return this.call("exportStatus", input, opts); }
  videoDuplicate(input: OpRequest<"videoDuplicate">, opts?: CallOptions) { return this.call("videoDuplicate", input, opts); }
  scriptGenerate(input: OpRequest<"scriptGenerate">, opts?: CallOptions) { return this.call("scriptGenerate", input, opts); }
}
