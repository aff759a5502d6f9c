import { ApiError } from "../../src/engine/errors.js";

/** Runs `fn`, which must throw an ApiError, and returns that error (any other outcome fails the test). */
export function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}
