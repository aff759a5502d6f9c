import { operations, type OpName, type OpRequest, type OpResponse } from "../features/operations.js";
import { BaseEngine, type CallOptions, type RateLimitInfo } from "../engine/engine.js";
import { fillPathOrRefuse } from "../engine/path-params.js";
import { HttpClient, type HttpClientOptions } from "./client.js";
import { checkResponse } from "./response-check.js";

export type HostedEngineOptions = HttpClientOptions;

/**
 * The service over HTTP: each operation of the contract table becomes one request (GET with a query
 * string, POST with a JSON body). Works against the hosted service and against `mediagen serve`.
 */
export class HostedEngine extends BaseEngine {
  readonly target = "hosted" as const;
  private readonly http: HttpClient;

  constructor(options: HostedEngineOptions) {
    super();
    this.http = new HttpClient(options);
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  async call<K extends OpName>(op: K, input: OpRequest<K>, opts: CallOptions = {}): Promise<OpResponse<K>> {
    const def = operations[op];
    const filled = fillPathOrRefuse(def.path, (input ?? {}) as Record<string, unknown>);
    const headers: Record<string, string> = {};
    if (opts.simulate) headers["x-local-simulate"] = opts.simulate;
    const res = await this.http.send({
      method: def.method,
      path: filled.path,
      ...(def.method === "GET" ? { query: filled.rest } : { body: filled.rest }),
      headers,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onRateLimited ? { onRateLimited: opts.onRateLimited } : {}),
    });
    // Checked before anyone reads it: a sparse or malformed body is an UnexpectedResponseError naming
    // the field, never a crash in a renderer. Unknown enum strings pass (the service may add states).
    return checkResponse<OpResponse<K>>(def.response, res.body, { op, status: res.status, tolerateUnknownValues: true });
  }

  override lastRateLimit(): RateLimitInfo | undefined {
    return this.http.lastRateLimit();
  }

  override async close(): Promise<void> {
    await this.http.close();
  }
}
