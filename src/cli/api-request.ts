/**
 * `mediagen api`: how a command line becomes one request, as `gh api` does it. The path is relative
 * to the target's base URL (never an absolute URL to another host); `-f key=value` adds a string
 * field, `-F key=value` a typed one (true, false, null, numbers, JSON objects and arrays; `@file`
 * reads a file); a GET's fields become its query string, a POST's its JSON body, unless `--input`
 * gives the body (the fields then go in the query string). No schema is applied here: only that a
 * body is well-formed JSON.
 */
import { API_PREFIX } from "../contract/operation.js";
import { CliError, EXIT } from "./types.js";

export type ApiMethod = "GET" | "POST";

export interface ApiRequest {
  method: ApiMethod;
  /** Under the base URL, starting with `/`, without a query string. */
  path: string;
  query: Record<string, unknown>;
  /** The JSON body of a POST (undefined: none given, `{}` is sent). */
  body?: unknown;
}

const usage = (message: string, field?: string) => new CliError(message, EXIT.usage, "usage_error", field);

/** GET or POST (the service's methods), in any case. */
export function apiMethod(word: string): ApiMethod {
  const m = word.toUpperCase();
  if (m === "GET" || m === "POST") return m;
  throw usage(`method must be GET or POST (the service takes no other), got "${word}"`, "method");
}

/**
 * `/asset/models`, `asset/models` or `/api/public/v1/asset/models` → `/asset/models`, and its query
 * string apart. A URL with a scheme (or `//host`) is refused: the key goes to the target's base URL only.
 */
export function apiPath(raw: string): { path: string; query: Record<string, string> } {
  const text = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith("//") || text.startsWith("\\\\")) {
    throw usage(`the path must be relative to the target's base URL (e.g. /asset/models), not an absolute URL: ${text}`, "path");
  }
  if (text === "" || text === "/") throw usage("a path is required, e.g. /asset/models", "path");
  const [beforeQuery, queryText = ""] = text.split(/\?(.*)/s, 2) as [string, string?];
  let path = beforeQuery.startsWith("/") ? beforeQuery : `/${beforeQuery}`;
  if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) path = path.slice(API_PREFIX.length) || "/";
  if (path.split("/").some((seg) => seg === ".." || seg === ".")) throw usage(`the path must not contain . or .. segments: ${text}`, "path");
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(queryText)) query[k] = k in query ? `${query[k]},${v}` : v;
  return { path, query };
}

/** `key=value` → [key, value]; the key is required. */
function splitField(flag: string, pair: string): [string, string] {
  const at = pair.indexOf("=");
  if (at <= 0) throw usage(`${flag}: expected key=value, got "${pair}"`, flag);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

/** A -F value: true, false, null, a number, a JSON object or array; else the text itself. */
export function typedValue(text: string): unknown {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return Number(text);
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw usage(`-F: ${text.slice(0, 40)} looks like JSON but is not well-formed`, "-F");
    }
  }
  return text;
}

export interface FieldFlags {
  /** `-f key=value`: strings. */
  raw?: string[];
  /** `-F key=value`: typed; `key=@file` reads the file's text. */
  typed?: string[];
}

/** The fields of -f and -F, in the order given (a later one wins); `readFile` reads `@file` values. */
export async function apiFields(flags: FieldFlags, readFile: (file: string) => Promise<string>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const pair of flags.raw ?? []) {
    const [k, v] = splitField("-f", pair);
    out[k] = v;
  }
  for (const pair of flags.typed ?? []) {
    const [k, v] = splitField("-F", pair);
    out[k] = v.startsWith("@") && v.length > 1 ? (await readFile(v.slice(1))).replace(/\r?\n$/, "") : typedValue(v);
  }
  return out;
}

/** The text of `--input`, which must be well-formed JSON (the only check made on the client). */
export function inputBody(text: string, from: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw usage(`--input: ${from} is not well-formed JSON: ${(e as Error).message}`, "--input");
  }
}

/** Puts the pieces together: a GET's fields (and a POST's beside --input) go in the query string. */
export function buildApiRequest(method: ApiMethod, rawPath: string, fields: Record<string, unknown>, input: { body: unknown } | undefined): ApiRequest {
  const { path, query } = apiPath(rawPath);
  if (method === "GET") {
    if (input) throw usage("--input gives a request body, which a GET does not have", "--input");
    return { method, path, query: { ...query, ...fields } };
  }
  if (input) return { method, path, query: { ...query, ...fields }, body: input.body };
  return { method, path, query, body: fields };
}

/** Query values as the wire carries them: text (lists comma-separated, objects as JSON). */
export function queryStrings(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    out[k] = v === null ? "null" : Array.isArray(v) ? v.map(String).join(",") : typeof v === "object" ? JSON.stringify(v) : String(v);
  }
  return out;
}
