/**
 * Query filters shared by the avatar and voice listings, read from a query the contract accepted
 * (its schemas judge the values: a gender outside male/female, a boolean that is not one, is a 400
 * `invalid_value` there). Comma lists match any of their items, case-insensitively.
 */
import { parseQueryBool, splitList } from "../contract/query.js";

/** male, female, or undefined for no filter (absent or empty). */
export function genderOf(v: unknown): "male" | "female" | undefined {
  const s = typeof v === "string" ? v.trim().toLowerCase() : "";
  return s === "male" || s === "female" ? s : undefined;
}

/** A query boolean; undefined when absent or empty. */
export function boolOf(v: unknown): boolean | undefined {
  return v === undefined || v === null || v === "" ? undefined : parseQueryBool(v);
}

/** A comma list as a lower-case set; undefined when the filter is absent or empty. */
export function listOf(v: unknown): Set<string> | undefined {
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
