import { createRequire } from "node:module";
import type { LookupFunction } from "node:net";
import { request, type Dispatcher } from "undici";
import { ApiError, NetworkError } from "../engine/errors.js";
import { readRateLimit, type RateLimitInfo } from "../contract/rate-limit.js";
import { redact } from "../engine/redact.js";
import { abortableSleep } from "../engine/sleep.js";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../engine/timeouts.js";
import { rateLimitedPastTimeout } from "../engine/rate-wait.js";
import { createDispatcher } from "./proxy.js";
import { UnexpectedResponseError } from "./response-check.js";
import { backoffMs, errorCode, MAX_RATE_WAIT_MS, neverSent, rateLimitWaitMs, retryAfterMs, serverNowMs, shouldRetry } from "./retry.js";

export interface HttpClientOptions {
  /** Ends with the API prefix, e.g. `https://api.example.com/api/public/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omitted when empty. */
  apiKey: string | undefined;
  userAgent?: string;
  /** Receives one trace line per request, response and retry; keys are redacted. */
  debug?: (line: string) => void;
  /** Proxy variables; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** A dispatcher to use instead of the engine's own pool (not closed by `close`). */
  dispatcher?: Dispatcher;
  /** Extra trusted CA for the service's certificate. */
  ca?: string | Buffer;
  /** Name resolution for direct connections (tests map a name to 127.0.0.1 without DNS). */
  lookup?: LookupFunction;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /**
   * The deadline of one request, its retries and the pauses between them included (default 60 s):
   * past it the request is abandoned (NetworkError `request_timeout`), and a 429 whose window resets
   * later is not waited for.
   */
  requestTimeoutMs?: number;
  /** The user set the request timeout (flag or environment): it bounds the 429 waits too. */
  rateWaitsBounded?: boolean;
  /** Retries of GETs after network errors and 5xx (default 3). */
  retries?: number;
  /** Retries of any request after 429 (default 3). */
  rateLimitRetries?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

export interface HttpRequest {
  method: "GET" | "POST";
  /** Path under the base URL, starting with `/`. */
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Called before each wait on a 429, with its length. */
  onRateLimited?: (waitMs: number) => void;
}

export { DEFAULT_REQUEST_TIMEOUT_MS };

export interface HttpResponse {
  status: number;
  /** Parsed JSON; `undefined` when a 2xx body is empty or not JSON (`send` refuses those). */
  body: unknown;
  headers: Record<string, string>;
  /** The 2xx body was empty. */
  empty?: boolean;
  /** The body as received (for `mediagen api`, which prints it unchanged). */
  text?: string;
}

const require = createRequire(import.meta.url);

/** `mediagen/<version> node/<version>`, read from the package that ships this file. */
export function defaultUserAgent(): string {
  let version = "0.0.0";
  try {
    version = (require("../../package.json") as { version: string }).version;
  } catch {
    // A bundled copy without package.json still identifies itself.
  }
  return `mediagen/${version} node/${process.versions.node}`;
}

/** Serialises a GET's input as a query string: lists comma-separated, as the service reads them. */
export function toQueryString(query: Record<string, unknown> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) params.append(k, v.map(String).join(","));
    else if (typeof v === "object") params.append(k, JSON.stringify(v));
    else params.append(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** Headers worth keeping on an ApiError: rate limit and request id. */
function errorHeaders(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (k.startsWith("x-ratelimit-") || k === "x-request-id") out[k] = v;
  return out;
}

function parseBody(status: number, text: string): unknown {
  if (text === "") return status >= 400 ? { error: `HTTP ${status}` } : undefined;
  try {
    return JSON.parse(text);
  } catch {
    if (status >= 400) return { error: text.slice(0, 200).trim() || `HTTP ${status}` };
    return undefined;
  }
}

/**
 * The hosted target's HTTP layer: one pool, Bearer auth, JSON in and out, timeouts, retries that
 * never repeat a POST which may have reached the server, waits on 429, and redacted debug traces.
 */
export class HttpClient {
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly headers: Record<string, string>;
  private readonly debugFn: ((line: string) => void) | undefined;
  private readonly retries: number;
  private readonly rateLimitRetries: number;
  private readonly requestTimeoutMs: number;
  private readonly rateWaitsBounded: boolean;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;
  private rate: RateLimitInfo | undefined;

  constructor(o: HttpClientOptions) {
    let url: URL;
    try {
      url = new URL(o.baseUrl);
    } catch {
      throw new TypeError(`Invalid base URL: ${redact(o.baseUrl)}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`Base URL must be http(s): ${redact(o.baseUrl)}`);
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, "");
    this.baseUrl = this.origin + this.prefix;
    if (o.dispatcher) {
      this.dispatcher = o.dispatcher;
      this.ownsDispatcher = false;
    } else {
      this.dispatcher = createDispatcher({
        baseUrl: url,
        env: o.env ?? process.env,
        connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
        // A longer deadline lets one attempt take longer too (a slow POST is not retried).
        headersTimeoutMs: o.headersTimeoutMs ?? Math.max(60_000, o.requestTimeoutMs ?? 0),
        bodyTimeoutMs: o.bodyTimeoutMs ?? Math.max(60_000, o.requestTimeoutMs ?? 0),
        ...(o.ca ? { ca: o.ca } : {}),
        ...(o.lookup ? { lookup: o.lookup } : {}),
      }).dispatcher;
      this.ownsDispatcher = true;
    }
    this.headers = { accept: "application/json", "user-agent": o.userAgent ?? defaultUserAgent() };
    if (o.apiKey) this.headers.authorization = `Bearer ${o.apiKey}`;
    this.debugFn = o.debug;
    this.retries = o.retries ?? 3;
    this.rateLimitRetries = o.rateLimitRetries ?? 3;
    this.requestTimeoutMs = o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.rateWaitsBounded = o.rateWaitsBounded === true;
    this.sleep = o.sleep ?? abortableSleep;
    this.now = o.now ?? Date.now;
    this.random = o.random ?? Math.random;
  }

  lastRateLimit(): RateLimitInfo | undefined {
    return this.rate;
  }

  private trace(line: string): void {
    if (this.debugFn) this.debugFn(redact(line));
  }

  /**
   * Sends a request, retrying as policy allows, within the request's deadline. Resolves on 2xx only;
   * throws ApiError or NetworkError (`request_timeout` once the deadline passed).
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const deadline = new Deadline(this.requestTimeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline.signal]) : deadline.signal;
    try {
      return await this.attempt(req, signal, deadline);
    } catch (err) {
      // The caller's own abort (Ctrl-C, a wait's deadline) is theirs to report.
      if (!deadline.signal.aborted || req.signal?.aborted) throw err;
      const where = `${req.method} ${this.origin}${this.prefix}${req.path}`;
      this.trace(`✗ ${where}: no answer within ${this.requestTimeoutMs} ms (request deadline)`);
      throw new NetworkError(
        `No answer from the service within ${formatSeconds(this.requestTimeoutMs)} (${where}, retries included; ` +
          "raise it with --request-timeout or MEDIAGEN_REQUEST_TIMEOUT)" +
          (req.method !== "GET" ? "; the request may have reached the service" : ""),
        err,
        "request_timeout",
      );
    } finally {
      deadline.clear();
    }
  }

  private async attempt(req: HttpRequest, signal: AbortSignal, deadline: Deadline): Promise<HttpResponse> {
    const url = `${this.origin}${this.prefix}${req.path}${req.method === "GET" ? toQueryString(req.query) : ""}`;
    const headers: Record<string, string> = { ...this.headers, ...req.headers };
    let body: string | undefined;
    if (req.method === "POST") {
      body = JSON.stringify(req.body ?? {});
      headers["content-type"] = "application/json";
    }
    let failures = 0;
    let rateLimited = 0;
    for (;;) {
      const started = this.now();
      this.trace(`→ ${req.method} ${url}`);
      let res: HttpResponse;
      try {
        res = await this.once(url, req.method, headers, body, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        // An answer over the size limit came from the service: reading it again would not shrink it.
        if (err instanceof UnexpectedResponseError) throw err;
        const code = errorCode(err) ?? "network error";
        this.trace(`✗ ${req.method} ${url} failed after ${this.now() - started} ms: ${code}`);
        const verdict = shouldRetry({ method: req.method, attempt: failures, maxRetries: this.retries, error: err });
        if (!verdict.retry) {
          // A POST is never repeated here, so say what the user must check before repeating it.
          const mayHaveLanded = req.method !== "GET" && !neverSent(err);
          throw new NetworkError(
            `Could not complete ${req.method} ${this.origin}${this.prefix}${req.path}: ${describeNetworkError(err)}` +
              (mayHaveLanded ? "; the request may have reached the service; check its status (or the ledger) before retrying" : ""),
            err,
          );
        }
        await this.pause(backoffMs(failures++, this.random), verdict.reason, req, signal);
        continue;
      }
      const rate = readRateLimit(res.headers);
      if (rate) this.rate = rate;
      this.trace(`← ${res.status} in ${this.now() - started} ms` + (rate ? `, rate ${rate.remaining}/${rate.limit} reset ${rate.reset}` : ""));
      if (res.status >= 300 && res.status < 400) {
        // undici does not follow redirects, and following one would resend a POST: report it instead.
        throw redirectError(res);
      }
      if (res.status < 300) {
        // A 2xx without JSON cannot be the answer the contract promises: say so, exit 1, no retry
        // (the request was handled; repeating a POST would debit twice).
        if (res.body === undefined) throw new UnexpectedResponseError("body", res.empty ? "is empty" : "is not JSON", undefined, res.status);
        return res;
      }
      if (res.status === 429 && rateLimited < this.rateLimitRetries) {
        const wait = rateLimitWaitMs({
          resetHeader: res.headers["x-ratelimit-reset"],
          retryAfterHeader: res.headers["retry-after"],
          lastReset: this.rate?.reset,
          nowMs: serverNowMs(res.headers.date, this.now()),
          attempt: rateLimited++,
          random: this.random,
        });
        if (this.rateWaitsBounded) {
          // The user bounded the request: the wait must fit in what is left of it, or the 429 stands.
          if (wait > deadline.remaining()) {
            this.trace(`✗ HTTP 429: the window resets in ${wait} ms, past the request deadline`);
            throw rateLimitedPastTimeout(new ApiError(res.status, res.body, errorHeaders(res.headers)), wait, this.requestTimeoutMs);
          }
          req.onRateLimited?.(wait);
          await this.pause(wait, "HTTP 429 rate limited", req, signal);
          continue;
        }
        // The service answered and said when to come back: that wait is announced, bounded on its
        // own (MAX_RATE_WAIT_MS, rateLimitRetries) and not counted against the request's deadline.
        req.onRateLimited?.(wait);
        deadline.pause();
        try {
          await this.pause(wait, "HTTP 429 rate limited", req, signal);
        } finally {
          deadline.resume();
        }
        continue;
      }
      const verdict = shouldRetry({ method: req.method, attempt: failures, maxRetries: this.retries, status: res.status });
      if (verdict.retry) {
        // A 5xx that says when to come back (Retry-After) is retried then, within a rate wait's bound.
        const after = retryAfterMs(res.headers["retry-after"], serverNowMs(res.headers.date, this.now()));
        const backoff = backoffMs(failures++, this.random);
        await this.pause(after === undefined ? backoff : Math.min(MAX_RATE_WAIT_MS, Math.max(after, backoff)), verdict.reason, req, signal);
        continue;
      }
      throw new ApiError(res.status, res.body, errorHeaders(res.headers));
    }
  }

  private async pause(ms: number, reason: string, req: HttpRequest, signal: AbortSignal): Promise<void> {
    this.trace(`… ${reason}: retrying ${req.method} ${req.path} in ${ms} ms`);
    await this.sleep(ms, signal);
  }

  private async once(url: string, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal | undefined): Promise<HttpResponse> {
    const res = await request(url, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      dispatcher: this.dispatcher,
      ...(signal ? { signal } : {}),
    });
    const h = flatHeaders(res.headers);
    const text = await readCapped(res.body, h, res.statusCode);
    return { status: res.statusCode, headers: h, body: parseBody(res.statusCode, text), text, ...(text.trim() === "" ? { empty: true } : {}) };
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/**
 * The most of one API answer the client reads. The contract's largest answers (model and avatar
 * catalogs) are well under a megabyte; a server sending more, or without end, is stopped here.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The body as text, refused (and the connection dropped) once it passes MAX_RESPONSE_BYTES. */
async function readCapped(body: Dispatcher.ResponseData["body"], headers: Record<string, string>, status: number): Promise<string> {
  const tooLarge = (): UnexpectedResponseError => {
    body.destroy();
    return new UnexpectedResponseError("body", `is over the ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB limit of an API answer`, undefined, status);
  };
  const declared = Number(headers["content-length"] ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > MAX_RESPONSE_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  // As undici's text(): UTF-8, a byte-order mark dropped.
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function redirectError(res: HttpResponse): ApiError {
  const location = res.headers.location ? redact(res.headers.location) : "(no Location header)";
  return new ApiError(
    res.status,
    {
      error: `Unexpected redirect to ${location}`,
      details: [{ code: "unexpected_redirect", message: `The service answered HTTP ${res.status} with a redirect to ${location}: check the base URL (https?)` }],
    },
    errorHeaders(res.headers),
  );
}

/**
 * The deadline of one request on real timers: its signal aborts once `ms` have passed, not counting
 * the time between pause() and resume().
 */
class Deadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private left: number;
  private since = 0;

  constructor(ms: number) {
    this.left = ms;
    this.resume();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  pause(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.left -= Date.now() - this.since;
  }

  resume(): void {
    if (this.timer !== undefined || this.controller.signal.aborted) return;
    this.since = Date.now();
    this.timer = setTimeout(() => this.controller.abort(new Error("request deadline")), Math.max(0, this.left));
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** What is left of the deadline, in ms. */
  remaining(): number {
    return this.left - (this.timer !== undefined ? Date.now() - this.since : 0);
  }
}

/** 2000 → "2 s", 1500 → "1.5 s". */
function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function describeNetworkError(err: unknown): string {
  const code = errorCode(err);
  const msg = err instanceof Error ? err.message : String(err);
  return redact(code && !msg.includes(code) ? `${code} ${msg}` : msg);
}
