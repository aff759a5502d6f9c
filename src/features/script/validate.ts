/**
 * The request rules of POST /script/generate, in the spec's order: prompt, duration, urls,
 * webSearch; within a field, missing, then type, then value. Pure: the handler debits nothing
 * before this has passed.
 */
import { ApiError } from "../../engine/errors.js";
import { SCRIPT_DURATION_DEFAULT, SCRIPT_DURATION_MAX, SCRIPT_DURATION_MIN, SCRIPT_PROMPT_MAX, WEB_URLS_MAX, type ScriptGenerateRequest } from "./contract.js";

/** A request that passed every rule, with the defaults filled in. */
export interface ScriptPlan {
  prompt: string;
  duration: number;
  urls: string[];
  webSearch: boolean;
}

type Code = "MISSING_FIELD" | "INVALID_TYPE" | "INVALID_VALUE";

/**
 * The spec's envelope with the upper-case code and the field, as avatar create answers a missing
 * prompt: `{error, details:[{code, message, field}]}`. The field is what a caller needs to fix.
 */
function fail(code: Code, field: string, message: string): ApiError {
  return ApiError.of(code, message, { field, shape: "envelope", error: "Validation failed" });
}

/** JSON null is "not given", as for every optional field of the local instance. */
const absent = (v: unknown): v is undefined | null => v === undefined || v === null;

/** Characters as people count them (code points), so an emoji is one character, not two. */
export function characterCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function parsePrompt(v: unknown): string {
  if (absent(v)) throw fail("MISSING_FIELD", "prompt", "prompt is required");
  if (typeof v !== "string") throw fail("INVALID_TYPE", "prompt", "prompt must be a string");
  if (v.trim() === "") throw fail("MISSING_FIELD", "prompt", "prompt is required (it is empty)");
  const n = characterCount(v);
  if (n > SCRIPT_PROMPT_MAX) {
    throw fail("INVALID_VALUE", "prompt", `prompt is ${n} characters; the limit is ${SCRIPT_PROMPT_MAX.toLocaleString("en-US")}`);
  }
  return v;
}

function parseDuration(v: unknown): number {
  if (absent(v)) return SCRIPT_DURATION_DEFAULT;
  if (typeof v !== "number" || !Number.isFinite(v)) throw fail("INVALID_TYPE", "duration", "duration must be a number of seconds");
  if (v < SCRIPT_DURATION_MIN || v > SCRIPT_DURATION_MAX) {
    throw fail("INVALID_VALUE", "duration", `duration must be from ${SCRIPT_DURATION_MIN} to ${SCRIPT_DURATION_MAX} seconds, got ${v}`);
  }
  return v;
}

function parseUrl(v: unknown, i: number): string {
  const field = `urls[${i}]`;
  if (typeof v !== "string") throw fail("INVALID_TYPE", field, `${field} must be a string (a URL)`);
  let u: URL;
  try {
    u = new URL(v.trim());
  } catch {
    throw fail("INVALID_VALUE", field, `${field} is not a URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw fail("INVALID_VALUE", field, `${field} must be an http(s) URL, got ${u.protocol}`);
  }
  return u.href;
}

function parseUrls(v: unknown): string[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw fail("INVALID_TYPE", "urls", "urls must be an array of URLs");
  if (v.length > WEB_URLS_MAX) throw fail("INVALID_VALUE", "urls", `urls has ${v.length} URLs; the limit is ${WEB_URLS_MAX}`);
  return v.map(parseUrl);
}

function parseWebSearch(v: unknown): boolean {
  if (absent(v)) return false;
  if (typeof v !== "boolean") throw fail("INVALID_TYPE", "webSearch", "webSearch must be true or false");
  return v;
}

export function validateScriptRequest(input: ScriptGenerateRequest | Record<string, unknown>): ScriptPlan {
  const body = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  return {
    prompt: parsePrompt(body.prompt),
    duration: parseDuration(body.duration),
    urls: parseUrls(body.urls),
    webSearch: parseWebSearch(body.webSearch),
  };
}
