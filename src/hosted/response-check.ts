/**
 * Checks a 2xx body against its operation's response schema before anyone reads it, so a body that
 * lacks a required field (or is empty, or is not JSON) is reported as "unexpected response from the
 * service: <field path> <problem>" instead of crashing a renderer with "Cannot read properties of
 * undefined". The body is returned as sent: extra fields are kept (the schemas are loose objects).
 *
 * Tolerant in reading: the schemas leave optional (and nullable) every field a command does not need
 * to go on, so only a problem in a needed field (a status, the id of what was paid for) stops a
 * command; a problem elsewhere is a warning and the field is read as absent (`readResponse`).
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
  return issuesOf(schema, body, opts).map((i) => ({ path: formatPath(i.path), problem: describe(i, body) }));
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
};
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"]);

/** The schema under its optional/nullable/default/pipe/lazy wrappers. */
function unwrap(s: z.ZodType): z.ZodType {
  for (let i = 0; i < 32; i++) {
    const d = defOf(s);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === "pipe" && d.in) s = d.in;
    else if (d.type === "lazy" && d.getter) s = d.getter();
    else break;
  }
  return s;
}

/** The schema of `key` inside `s` (an object's field, an array's item, a record's value, a union's option's). */
function childOf(s: z.ZodType, key: PropertyKey): z.ZodType | undefined {
  const d = defOf(unwrap(s));
  if (d.type === "object") return typeof key === "string" ? d.shape?.[key] : undefined;
  if (d.type === "array") return typeof key === "number" ? d.element : undefined;
  if (d.type === "record") return d.valueType;
  if (d.type === "union") {
    for (const o of d.options ?? []) {
      const c = childOf(o, key);
      if (c) return c;
    }
  }
  return undefined;
}

/**
 * How much of `path` to drop so that the problem there is one of a field the schema lets be absent:
 * the deepest such field on the path (an object key), or undefined when every field on the way is
 * needed (the problem is then fatal).
 */
function optionalPrefix(schema: z.ZodType, path: readonly PropertyKey[]): number | undefined {
  let at: number | undefined;
  let s: z.ZodType | undefined = schema;
  for (let i = 0; i < path.length && s; i++) {
    s = childOf(s, path[i]!);
    if (!s) break;
    // An optional field reads as absent; an object in a list (a listing's entry) is left out of it.
    const droppable = typeof path[i] === "string" ? s.safeParse(undefined).success : defOf(unwrap(s)).type === "object";
    if (droppable) at = i + 1;
  }
  return at;
}

function issuesOf(schema: z.ZodType, body: unknown, opts: CheckOptions): Issue[] {
  const r = schema.safeParse(body);
  if (r.success) return [];
  return (r.error.issues as unknown as Issue[]).filter((i) => !(opts.tolerateUnknownValues && i.code === "invalid_value" && typeof valueAt(body, i.path) === "string"));
}

/** A body read tolerantly: what to read, and what was odd about it. */
export interface ReadResponse<T> {
  /** The body itself, or (when something was odd) a copy without the odd optional fields. */
  value: T;
  /** One problem per odd field: "cost should be a number, got a string (read as absent)", or an entry left out of a list. */
  warnings: ResponseProblem[];
}

/**
 * Reads a body the way a command should: a problem in a field the schema lets be absent (a field no
 * command needs to go on) is a warning, and the field is read as absent in a copy; a problem in a
 * needed field (a status, the id of what was paid for) throws `UnexpectedResponseError`. `null` in an
 * optional field is absent already (the schemas make such fields nullish).
 */
export function readResponse<T>(schema: z.ZodType, body: unknown, ctx: { op?: string; status?: number } & CheckOptions = {}): ReadResponse<T> {
  const issues = issuesOf(schema, body, ctx);
  if (!issues.length) return { value: body as T, warnings: [] };
  const cuts: PropertyKey[][] = [];
  const warnings: ResponseProblem[] = [];
  for (const issue of issues) {
    const at = optionalPrefix(schema, issue.path);
    if (at === undefined) throw new UnexpectedResponseError(formatPath(issue.path), describe(issue, body), ctx.op, ctx.status, body);
    cuts.push(issue.path.slice(0, at));
    const problem = describe(issue, body);
    warnings.push({
      path: formatPath(issue.path),
      problem: typeof issue.path[at - 1] === "number" ? `${problem} (entry ${formatPath(issue.path.slice(0, at))} left out)` : `${problem} (read as absent)`,
    });
  }
  const copy = structuredClone(body);
  const lists = new Set<unknown[]>();
  for (const cut of cuts) dropAt(copy, cut, lists);
  for (const list of lists) {
    const kept = list.filter((v) => v !== DROPPED);
    list.splice(0, list.length, ...kept);
  }
  // What is left must conform; if it does not, the first problem stands.
  const [left] = issuesOf(schema, copy, ctx);
  if (left) throw new UnexpectedResponseError(formatPath(left.path), describe(left, copy), ctx.op, ctx.status, body);
  return { value: copy as T, warnings };
}

const DROPPED = Symbol("dropped");

/** Removes the field at `path`, or marks the list entry there for removal (indexes stay put until every cut is made). */
function dropAt(body: unknown, path: readonly PropertyKey[], lists: Set<unknown[]>): void {
  const parent = valueAt(body, path.slice(0, -1));
  const key = path[path.length - 1]!;
  if (Array.isArray(parent) && typeof key === "number") {
    parent[key] = DROPPED;
    lists.add(parent);
  } else if (parent && typeof parent === "object") delete (parent as Record<PropertyKey, unknown>)[key];
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
