/**
 * Bounds the local instance puts on free text the spec leaves unbounded (docs/local-differences.md),
 * so that one request cannot make every later listing carry megabytes; and on request bodies.
 */
import { errorResponse, type ErrorBody } from "./errors.js";

/** Names and places (folders, avatars, looks): characters. */
export const NAME_MAX = 255;
/** Prompts of models and endpoints that state no cap of their own: characters (the spec's script cap). */
export const PROMPT_MAX = 10_000;

/**
 * The largest request body, in bytes (1 MiB): what `serve` reads, what the in-process engine takes,
 * and what the CLI's `--body` reads from a file or stdin, whatever the target.
 */
export const BODY_MAX_BYTES = 1024 * 1024;

/** The 413 a body over `limit` bytes gets, over HTTP and in process alike. */
export function payloadTooLarge(limit = BODY_MAX_BYTES): { status: number; body: ErrorBody } {
  return errorResponse("payload_too_large", `Request body exceeds ${limit} bytes`, { status: 413, error: "Payload too large" });
}
