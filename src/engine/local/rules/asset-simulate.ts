/**
 * Deterministic failure on the local instance (`X-Local-Simulate: fail` or `fail:<CODE>`): the
 * generation is accepted and debited like any other, then ends `failed` with that code and is refunded.
 */
import { ApiError } from "../../errors.js";

export const SIMULATE_HEADER = "X-Local-Simulate";
export const DEFAULT_FAILURE_CODE = "generation_failed";

const FORMAT = /^fail(?::([A-Za-z0-9_.-]{1,64}))?$/;

/** Checks the value up front so a typo is a 400, not a generation that silently succeeds. */
export function parseSimulate(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  const v = value.trim();
  if (!FORMAT.test(v)) {
    throw ApiError.of("invalid_value", `${SIMULATE_HEADER} must be "fail" or "fail:<CODE>"`, { field: SIMULATE_HEADER });
  }
  return v;
}

/** The error code a simulated failure ends with. */
export function simulatedCode(value: string): string {
  return FORMAT.exec(value)?.[1] ?? DEFAULT_FAILURE_CODE;
}
