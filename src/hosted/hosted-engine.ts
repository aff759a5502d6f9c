import type { z } from "zod";
import type { OpName, OpRequest, OpResponse } from "../features/operations.js";
import { ROUTES } from "../features/routes.js";
import { FEATURES } from "../features/index.js";
import { BaseEngine, type CallOptions, type RateLimitInfo } from "../engine/engine.js";
import { fillPathOrRefuse } from "../engine/path-params.js";
import { HttpClient, type HttpClientOptions } from "./client.js";
import { checkResponse } from "./response-check.js";
import { checkStartCount } from "./start-count.js";

export type HostedEngineOptions = HttpClientOptions;

/**
 * The response schema of `op`: from the contract of the feature the operation is named after (one
 * contract, not all of them), else from the whole operation table.
 */
async function responseSchema(op: OpName): Promise<z.ZodType> {
  const owner = FEATURES.find((f) => op.startsWith(f.name));
  const own = owner ? ((await owner.contract()).operations as Record<string, { response: z.ZodType }>)[op] : undefined;
  if (own) return own.response;
  return (await import("../features/operations.js")).operations[op].response;
}

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
    const def = ROUTES[op];
    // The schemas (zod) are only needed for the response check: loaded while the request is in
    // flight, so a command that never calls the hosted target never loads them.
    const schemas = responseSchema(op);
    schemas.catch(() => undefined);
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
    const checked = checkResponse<OpResponse<K>>(await schemas, res.body, { op, status: res.status, tolerateUnknownValues: true });
    checkStartCount(op, input, checked, res.status);
    return checked;
  }

  override lastRateLimit(): RateLimitInfo | undefined {
    return this.http.lastRateLimit();
  }

  override async close(): Promise<void> {
    await this.http.close();
  }
}
