/**
 * Checks a 2xx body against its operation's response schema before anyone reads it, so a body that
 * lacks a required field (or is empty, or is not JSON) is reported as "unexpected response from the
 * service: <field path> <problem>" instead of crashing a renderer with "Cannot read properties of
 * undefined". The body is returned as sent: extra fields are kept (the schemas are loose objects).
 */
import type { z } from "zod";

/** A 2xx answer whose body does not have the shape the contract gives its operation. */
export class UnexpectedResponseError extends Error {
  override readonly name = "UnexpectedResponseError";
  readonly code = "unexpected_response";
  constructor(
    /** Where the problem is, e.g. `models[0].capabilities`; `body` for the whole body. */
    readonly path: string,
    /** What is wrong there, e.g. `is missing`, `should be a number, got a string`. */
    readonly problem: string,
    /** The operation answered, e.g. `assetStatus`. */
    readonly op?: string,
    /** HTTP status of the answer. */
    readonly status?: number,
    /** The body received (shown with --debug). */
    readonly body?: unknown,
  ) {
    super(`unexpected response from the service: ${path} ${problem}`);
  }
}

export interface ResponseProblem {
  path: string;
  problem: string;
}

export interface CheckOptions {
  /**
   * Accept a string where the schema has an enum or a literal (a status the service added, say).
   * The hosted client does: renderers treat an unknown state as "not done yet". The two-target
   * scenario suite does not: there a value outside the contract is drift.
   */
  tolerateUnknownValues?: boolean;
}

/** `["models", 0, "name"]` → `models[0].name`; the root is `body`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || "body";
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = body;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** "a string", "an array", "null". */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  const t = typeof v;
  return t === "object" || t === "undefined" ? `an ${t}` : `a ${t}`;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

const quote = (v: unknown) => (typeof v === "string" ? `"${v}"` : String(v));

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  values?: unknown[];
}

function describe(issue: Issue, body: unknown): string {
  const value = valueAt(body, issue.path);
  if (value === undefined && ["invalid_type", "invalid_value", "invalid_union"].includes(issue.code)) return "is missing";
  switch (issue.code) {
    case "invalid_type":
      return `should be ${issue.expected ? article(issue.expected) : "of another type"}, got ${kindOf(value)}`;
    case "invalid_value":
      return issue.values?.length === 1
        ? `should be ${quote(issue.values[0])}, got ${quote(value)}`
        : `should be one of ${(issue.values ?? []).map(quote).join(", ")}, got ${quote(value)}`;
    case "invalid_union":
      return `has an unexpected shape (${kindOf(value)})`;
    default:
      return issue.message.replace(/^Invalid input:\s*/i, "");
  }
}

/** Every problem of `body` against `schema`, in the schema's order (empty when it conforms). */
export function responseProblems(schema: z.ZodType, body: unknown, opts: CheckOptions = {}): ResponseProblem[] {
  const r = schema.safeParse(body);
  if (r.success) return [];
  return (r.error.issues as unknown as Issue[])
    .filter((i) => !(opts.tolerateUnknownValues && i.code === "invalid_value" && typeof valueAt(body, i.path) === "string"))
    .map((i) => ({ path: formatPath(i.path), problem: describe(i, body) }));
}

/**
 * Throws `UnexpectedResponseError` for the first problem of `body`; returns the body unchanged
 * (not zod's copy) when it conforms.
 */
export function checkResponse<T>(schema: z.ZodType, body: unknown, ctx: { op?: string; status?: number } & CheckOptions = {}): T {
  const [first] = responseProblems(schema, body, ctx);
  if (first) throw new UnexpectedResponseError(first.path, first.problem, ctx.op, ctx.status, body);
  return body as T;
}
