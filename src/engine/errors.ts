import { describeErrorBody, errorResponse, type ErrorBody, type ErrorOptions } from "../contract/errors.js";

/**
 * An error answered by the service (either target). Carries the HTTP status, the spec's code and
 * field, and the raw body exactly as the service sent it.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly body: ErrorBody;
  /** Extra response headers that belong with the error (rate-limit headers on a 429). */
  headers: Record<string, string>;
  /** What to do about it, said on its own line (see `refusedBeforeSending`). */
  hint?: string;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    const d = describeErrorBody(status, body);
    super(d.message);
    this.status = status;
    this.code = d.code;
    this.field = d.field;
    this.body = (body && typeof body === "object" ? body : { error: d.message }) as ErrorBody;
    this.headers = headers;
  }

  /** Builds the error the service answers for a code (see contract/errors.ts). */
  static of(code: string, message: string, opts: ErrorOptions = {}): ApiError {
    const { status, body } = errorResponse(code, message, opts);
    return new ApiError(status, body);
  }

  toJSON() {
    return { status: this.status, code: this.code, field: this.field, message: this.message };
  }
}

/**
 * Said with every request the contract's check refuses on this machine, before anything is sent: the
 * schemas may lag behind the service, and `mediagen api` sends any request as it is.
 */
export const REFUSED_HERE_HINT = "If the service accepts this, send it with `mediagen api` (see `mediagen api --help`).";

/** The service's answer to a request refused here, before sending (exit 2 as the service's 400), with the `mediagen api` hint. */
export function refusedBeforeSending(status: number, body: unknown): ApiError {
  const e = new ApiError(status, body);
  e.hint = REFUSED_HERE_HINT;
  return e;
}

/** A failure to reach the service at all (DNS, refused, reset, timeout). */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  constructor(
    message: string,
    override readonly cause?: unknown,
    /** `network_error`, or `request_timeout` when the request's deadline passed first. */
    readonly code: "network_error" | "request_timeout" = "network_error",
  ) {
    super(message);
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
