/**
 * Deterministic failure on the local instance (`X-Local-Simulate: fail` or `fail:<CODE>`): the
 * generation is accepted and debited like any other, then ends `failed` with that code and is refunded.
 * One syntax for every request that starts a job (asset start, avatar create and edit).
 */
import { ApiError } from "../../../../engine/errors.js";

export const SIMULATE_HEADER = "X-Local-Simulate";
export const DEFAULT_FAILURE_CODE = "generation_failed";

/** `fail`, `fail:<CODE>`, `fail:<CODE>@<STEP>` (a fault rule's failure at a step of a generation or export). */
const FORMAT = /^fail(?::([A-Za-z0-9_.-]{1,64}))?(?:@([A-Za-z0-9_-]{1,64}))?$/;

/** Checks the value up front so a typo is a 400, not a generation that silently succeeds. */
export function parseSimulate(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  const v = value.trim();
  if (!FORMAT.test(v)) {
    throw ApiError.of("invalid_value", `${SIMULATE_HEADER} must be "fail", "fail:<CODE>" or "fail:<CODE>@<STEP>"`, { field: SIMULATE_HEADER });
  }
  return v;
}

/** The `<CODE>` of `fail:<CODE>`; undefined for a bare `fail`. */
export function simulatedCustomCode(value: string): string | undefined {
  return FORMAT.exec(value)?.[1];
}

/** The `<STEP>` of `fail:<CODE>@<STEP>`: where a generation or export stops. */
export function simulatedStep(value: string): string | undefined {
  return FORMAT.exec(value)?.[2];
}

/** The error code a simulated asset failure ends with. */
export function simulatedCode(value: string): string {
  return simulatedCustomCode(value) ?? DEFAULT_FAILURE_CODE;
}
