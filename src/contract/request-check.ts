/**
 * Judges a request against its operation's request schema and answers what the service answers for
 * the first problem: the spec's code for that endpoint (lower-case on asset and folder, upper-case on
 * avatar, generation, export, duplicate and script), the field's path, and a message that starts with
 * that path. The same function serves every door: the local dispatch, the hosted client before it
 * sends, the CLI's dry runs and batch lines.
 */
import type { z } from "zod";
import { ERROR_CODES, errorResponse, type ErrorBody } from "./errors.js";
import { didYouMean } from "./did-you-mean.js";

/** Which of the spec's codes an operation answers for a problem of its request. */
export interface RequestCodes {
  /** A required field is absent. */
  missing: string;
  /** Any other problem. */
  invalid: string;
  /** A value of the wrong JSON type, where the endpoint names a code for it (INVALID_TYPE). */
  type?: string;
  /** Codes of some top-level fields when absent (MISSING_VIDEO_ID). */
  missingOf?: Record<string, string>;
  /** Codes of some top-level fields for any other problem (INVALID_FORMAT on format). */
  invalidOf?: Record<string, string>;
  /** Where the spec reports a problem found deeper (element images: on `elements[i].images`). */
  fieldOf?: (field: string) => string;
  /**
   * The body the endpoint answers a problem in: `code` is `{error, code}` (the spec's INVALID_VALUE of
   * avatar create, edit and status); absent, the envelope with the field. An issue may ask for another
   * (`params: { shape }`): `envelope` (a rule of the local instance, with its field), `validation`
   * (the envelope without a top-level code: create's missing prompt, with `params.error`). A field
   * the request does not have is always answered in the envelope.
   */
  shape?: "code";
  /**
   * The endpoint's check order where it is not the schema's: a rank per problem (lower first; equal
   * ranks keep the schema's order). `issue` is the schema's issue kind (`invalid_type`, `custom`…).
   */
  rank?: (p: { field?: string; code: string; issue: string }) => number;
  /** The envelope's `error` text, with no top-level `code` (script generate: "Validation failed"). */
  error?: string;
}

export interface RequestProblem {
  code: string;
  /** The envelope's `error` text where the endpoint has a fixed one (RequestCodes.error). */
  error?: string;
  /** Path of the field at fault (`references[0].url`); absent for the body as a whole. */
  field?: string;
  message: string;
  /** The body it is answered in (see RequestCodes.shape); absent: the envelope, with `code` for upper-case codes. */
  shape?: "code" | "validation";
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
  keys?: string[];
  expected?: string;
  params?: { code?: string; shape?: "envelope" | "validation"; error?: string };
}

/** `["references", 0, "url"]` → `references[0].url`. */
export function fieldOf(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v = body;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

type Def = { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; innerType?: z.ZodType; in?: z.ZodType; options?: z.ZodType[] };
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } })?._zod?.def;

/** The keys an object schema at `path` knows (for "did you mean"). */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s: unknown = schema;
  const steps = [...path];
  for (let guard = 0; guard < 64 && s; guard++) {
    const d = defOf(s);
    if (!d) return [];
    if (d.innerType) s = d.innerType;
    else if (d.type === "pipe") s = d.in;
    else if (d.type === "union") s = d.options?.find((o) => defOf(o)?.type === "object" || defOf(o)?.type === "array") ?? d.options?.[0];
    else if (d.type === "array") {
      if (typeof steps[0] === "number") steps.shift();
      s = d.element;
      if (steps.length === 0) continue;
    } else if (d.type === "object") {
      if (steps.length === 0) return Object.keys(d.shape ?? {});
      s = d.shape?.[String(steps.shift())];
    } else return [];
  }
  return [];
}

function codeFor(issue: Issue, absent: boolean, codes: RequestCodes): string {
  if (issue.params?.code) return issue.params.code;
  const top = typeof issue.path[0] === "string" ? issue.path[0] : "";
  if (absent) return codes.missingOf?.[top] ?? codes.missing;
  if (codes.invalidOf?.[top]) return codes.invalidOf[top];
  if (issue.code === "invalid_type" && codes.type) return codes.type;
  return codes.invalid;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function problemText(issue: Issue, value: unknown): string {
  if (issue.code === "invalid_type")
    return `must be ${issue.expected === "array" || issue.expected === "object" ? "an" : "a"} ${issue.expected ?? "value of another type"}, got ${kindOf(value)}`;
  if (issue.code === "invalid_value" || issue.code === "invalid_union") {
    return /^Invalid (option|input)/i.test(issue.message) ? `has an unexpected value${typeof value === "string" ? ` (${value})` : ""}` : issue.message;
  }
  return issue.message;
}

/** Every problem of `input` against `schema`, in the schema's order, in the spec's terms. */
export function requestProblems(schema: z.ZodType, codes: RequestCodes, input: unknown): RequestProblem[] {
  const r = schema.safeParse(input);
  if (r.success) return [];
  const out: RequestProblem[] = [];
  const kinds: string[] = [];
  for (const issue of r.error.issues as unknown as Issue[]) {
    if (issue.code === "unrecognized_keys") {
      const known = knownKeys(schema, issue.path);
      for (const key of issue.keys ?? []) {
        const field = fieldOf([...issue.path, key]);
        out.push({
          code: codeFor({ ...issue, path: [...issue.path, key] }, false, codes),
          field,
          message: `${field} is not a field of this request${didYouMean(key, known)}`,
        });
        kinds.push("unrecognized_keys");
      }
      continue;
    }
    const value = valueAt(input, issue.path);
    const absent = value === undefined && issue.code !== "custom";
    const field = fieldOf(issue.path);
    const text = absent ? "is required" : problemText(issue, value);
    const message = field === "" ? text : text.startsWith(field) ? text : `${field} ${text}`;
    const reported = codes.fieldOf ? codes.fieldOf(field) : field;
    const asked = issue.params?.shape ?? codes.shape;
    const shape = asked === "envelope" ? undefined : asked;
    const form = { ...(shape ? { shape } : {}), ...(issue.params?.error ? { error: issue.params.error } : {}) };
    out.push({ code: codeFor(issue, absent, codes), ...(reported ? { field: reported } : {}), message, ...form });
    kinds.push(issue.code);
  }
  return ordered(out, kinds, codes);
}

function ordered(problems: RequestProblem[], kinds: string[], codes: RequestCodes): RequestProblem[] {
  const withError = codes.error ? problems.map((p) => ({ ...p, error: codes.error, shape: "validation" as const })) : problems;
  if (!codes.rank) return withError;
  const rank = codes.rank;
  return withError
    .map((p, i) => ({ p, i, r: rank({ ...(p.field !== undefined ? { field: p.field } : {}), code: p.code, issue: kinds[i] ?? "unrecognized_keys" }) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.p);
}

/** The status and body the service answers for a request problem (400 for every validation code). */
export function problemResponse(p: RequestProblem): { status: number; body: ErrorBody } {
  const known = (ERROR_CODES as Record<string, { status: number }>)[p.code];
  const shape = p.shape === "code" ? "code" : "envelope";
  const { status, body } = errorResponse(p.code, p.message, {
    ...(p.field ? { field: p.field } : {}),
    ...(p.error ? { error: p.error } : {}),
    shape,
    status: known?.status ?? 400,
  });
  // Upper-case codes are read from `code` by clients of those endpoints; the envelope carries the field.
  const withCode = shape === "envelope" && p.shape !== "validation" && p.code === p.code.toUpperCase();
  return { status, body: withCode ? ({ ...body, code: p.code } as ErrorBody) : body };
}

/** The answer to the first problem of `input`, or undefined when the request follows the contract. */
export function checkRequest(schema: z.ZodType, codes: RequestCodes, input: unknown): { status: number; body: ErrorBody } | undefined {
  const [first] = requestProblems(schema, codes, input);
  return first ? problemResponse(first) : undefined;
}
