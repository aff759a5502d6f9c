import type { z } from "zod";
import type { OpName, OpRequest, OpResponse } from "../features/operations.js";
import { ROUTES, carriesInput, featureOf } from "../features/routes.js";
import { BaseEngine, type CallOptions, type RateLimitInfo } from "../engine/engine.js";
import { refusedBeforeSending } from "../engine/errors.js";
import { fillPathOrRefuse } from "../engine/path-params.js";
import { HttpClient, type HttpClientOptions } from "./client.js";
import { readResponse } from "./response-check.js";
import { rememberServiceBody } from "../engine/service-body.js";
import { checkStartCount } from "./start-count.js";

export type HostedEngineOptions = HttpClientOptions & {
  /**
   * Judge each request against the contract before sending it (default true). The two-target
   * scenario suite turns it off to put every request, the forbidden ones too, to the served instance.
   */
  checkRequests?: boolean;
  /**
   * Told, once per distinct problem, about an odd field a command does not need (read as absent):
   * "unexpected response from the service (assetStatus): cost should be a number, got a string (read as absent)".
   */
  warn?: (line: string) => void;
};

/** The response schema of `op`, from the contract of the feature it belongs to (one contract, not all of them). */
async function responseSchema(op: OpName): Promise<z.ZodType> {
  const feature = featureOf(op);
  if (!feature) throw new Error(`no contract declares the operation ${op}`);
  return ((await feature.contract()).operations as Record<string, { response: z.ZodType }>)[op]!.response;
}

/**
 * A request the spec forbids never leaves the machine: it is judged by the same contract the local
 * instance applies and refused with the service's 400 (exit 2) before anything is sent. A request
 * with neither body nor query (a bare list, a read by id) has nothing to judge and loads no schema.
 */
async function refuseBeforeSending(op: OpName, input: unknown): Promise<void> {
  const wire = JSON.parse(JSON.stringify(input ?? {})) as Record<string, unknown>;
  if (!carriesInput(op, wire)) return;
  const refused = await (await import("../features/request-check.js")).refuseRequest(op, wire);
  if (refused) throw refusedBeforeSending(refused.status, refused.body);
}

/**
 * The service over HTTP: each operation of the contract table becomes one request (GET with a query
 * string, POST with a JSON body). Works against the hosted service and against `mediagen serve`.
 */
export class HostedEngine extends BaseEngine {
  readonly target = "hosted" as const;
  private readonly http: HttpClient;
  private readonly checkRequests: boolean;
  private readonly warn: ((line: string) => void) | undefined;
  private readonly warned = new Set<string>();

  constructor(options: HostedEngineOptions) {
    super();
    const { checkRequests, warn, ...http } = options;
    this.http = new HttpClient(http);
    this.checkRequests = checkRequests ?? true;
    this.warn = warn;
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
    if (this.checkRequests) await refuseBeforeSending(op, input);
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
    // A field no command needs to go on (a cost, a thumbnail) may be absent, null or odd: that is a
    // warning and the field reads as absent, never a failure after the money was spent.
    const read = readResponse<OpResponse<K>>(await schemas, res.body, { op, status: res.status, tolerateUnknownValues: true });
    for (const w of read.warnings) this.warnOnce(`unexpected response from the service (${op}): ${w.path} ${w.problem}`);
    rememberServiceBody(read.value, res.body);
    const odd = checkStartCount(op, input, read.value, res.status);
    if (odd) this.warnOnce(`unexpected response from the service (${op}): ${odd}`);
    return read.value;
  }

  private warnOnce(line: string): void {
    if (!this.warn || this.warned.has(line)) return;
    this.warned.add(line);
    this.warn(line);
  }

  override lastRateLimit(): RateLimitInfo | undefined {
    return this.http.lastRateLimit();
  }

  override async close(): Promise<void> {
    await this.http.close();
  }
}
