/**
 * Query filters shared by the avatar and voice listings. Comma lists match any of their items
 * (case-insensitive); a value outside a closed vocabulary (gender, booleans) is a 400
 * `invalid_value` naming the field, rather than a silently empty list.
 */
import { splitList } from "../contract/query.js";
import { ApiError } from "../engine/errors.js";

function invalidValue(field: string, message: string): ApiError {
  return ApiError.of("invalid_value", message, { field });
}

export function parseGender(v: unknown, field = "gender"): "male" | "female" | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const s = String(v).trim().toLowerCase();
  if (s === "male" || s === "female") return s;
  throw invalidValue(field, `${field} must be male or female`);
}

export function parseBoolParam(v: unknown, field: string): boolean | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v === "boolean") return v;
  const s = String(v).trim().toLowerCase();
  if (s === "true" || s === "1") return true;
  if (s === "false" || s === "0") return false;
  throw invalidValue(field, `${field} must be true or false`);
}

/** A comma list as a lower-case set; undefined when the filter is absent or empty. */
export function parseList(v: unknown, field: string): Set<string> | undefined {
  if (v !== undefined && v !== null && typeof v !== "string" && !Array.isArray(v)) {
    throw invalidValue(field, `${field} must be a comma-separated list`);
  }
  const items = splitList(v).map((x) => x.toLowerCase());
  return items.length ? new Set(items) : undefined;
}

/** A single-valued field passes when no filter is set or its value is in the set. */
export function matchesOne(filter: Set<string> | undefined, value: string): boolean {
  return !filter || filter.has(value.toLowerCase());
}

/** A multi-valued field (tags, accessories) passes when it holds any item of the set. */
export function matchesAny(filter: Set<string> | undefined, values: readonly string[]): boolean {
  return !filter || values.some((v) => filter.has(v.toLowerCase()));
}
