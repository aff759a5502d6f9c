/**
 * Errors of generation start and video duplicate. The spec names upper-case codes for these
 * endpoints, whose body the local instance writes `{error, code}`; when a field is at fault it adds
 * the envelope's `details: [{code, message, field}]`, so both kinds of readers find the code and the
 * field (docs/local-differences.md). Statuses come from the shared table (contract/errors.ts).
 */
import { ERROR_CODES } from "../../../../contract/errors.js";
import { ApiError } from "../../../../engine/errors.js";

export function codeError(code: keyof typeof ERROR_CODES | string, message: string, field?: string): ApiError {
  const known = (ERROR_CODES as Record<string, { status: number }>)[code];
  const body: Record<string, unknown> = { error: message, code };
  if (field !== undefined) body.details = [{ code, message, field }];
  return new ApiError(known?.status ?? 400, body);
}

/** 402 with the amounts, as the spec's credit-shortage shape `{error, required, available}` (plus `code`). */
export function creditsError(required: number, available: number): ApiError {
  return new ApiError(402, {
    error: `Insufficient credits: ${required} required, ${available} available`,
    code: "INSUFFICIENT_CREDITS",
    required,
    available,
  });
}
