/**
 * A fault rule as written by a user (CLI flags, a `serve --faults` file, the admin HTTP path) and
 * its checked, stored form. One parser for the three, so they accept and refuse the same things.
 */
import { ERROR_CODES } from "../contract/errors.js";
import { LocalAdminError } from "./admin-error.js";
import { parseDurationMs } from "./duration.js";
import { ANY_OPERATION_CODES, defaultCodeFor, jobFaults, operationCodes, progressOperations, WEBHOOK_TASKS, type Routes } from "./fault-codes.js";

export type FaultAction =
  | { kind: "error"; status: number; code: string; message?: string; retry_after?: number }
  | { kind: "latency"; min_ms: number; max_ms: number }
  | { kind: "reset" }
  | { kind: "empty" }
  | { kind: "job_fail"; code: string; step?: string }
  | { kind: "job_stall"; ms: number }
  | { kind: "progress_backwards"; by: number }
  | { kind: "webhook_drop" }
  | { kind: "webhook_duplicate" }
  | { kind: "webhook_delay"; ms: number }
  | { kind: "webhook_reorder"; hold_ms: number };

export type FaultKind = FaultAction["kind"];

export const FAULT_KINDS: readonly FaultKind[] = [
  "error",
  "latency",
  "reset",
  "empty",
  "job_fail",
  "job_stall",
  "progress_backwards",
  "webhook_drop",
  "webhook_duplicate",
  "webhook_delay",
  "webhook_reorder",
];

/** Where a rule is looked at: a request, a started job, a status read, a webhook delivery. */
export type FaultStage = "request" | "job" | "progress" | "webhook";

export function stageOf(kind: FaultKind): FaultStage {
  if (kind.startsWith("webhook_")) return "webhook";
  if (kind.startsWith("job_")) return "job";
  if (kind === "progress_backwards") return "progress";
  return "request";
}

/** A rule as given: flat, every value a string or a number (JSON, CLI flags, HTTP). */
export interface FaultRuleInput {
  op?: unknown;
  action?: unknown;
  space?: unknown;
  key?: unknown;
  status?: unknown;
  code?: unknown;
  message?: unknown;
  /** Latency (`500`, `"500ms"`, `"200-800"` for a range), stall, webhook delay or reorder hold. */
  ms?: unknown;
  step?: unknown;
  by?: unknown;
  probability?: unknown;
  times?: unknown;
  /** How long the rule lives (`"10m"`); or `expires_at` (ISO 8601). */
  expires_in?: unknown;
  expires_at?: unknown;
  /** Error rules: seconds the answer tells the client to wait (`Retry-After`; a 429's `X-RateLimit-Reset` too). */
  retry_after?: unknown;
}

/** Fields every rule may carry, whatever its action. */
const COMMON_FIELDS = ["op", "action", "space", "key", "probability", "times", "expires_in", "expires_at"] as const;

/** The fields each action reads beyond COMMON_FIELDS: any other field is refused, named. */
const ACTION_FIELDS: Record<FaultKind, readonly string[]> = {
  error: ["status", "code", "message", "retry_after"],
  latency: ["ms"],
  reset: [],
  empty: [],
  job_fail: ["code", "step"],
  job_stall: ["ms"],
  progress_backwards: ["by"],
  webhook_drop: [],
  webhook_duplicate: [],
  webhook_delay: ["ms"],
  webhook_reorder: ["ms"],
};

/** Largest `times`: past it a rule is as good as unlimited (leave `times` out for that). */
export const MAX_TIMES = 1_000_000;
/** Longest wait a rule may ask for (latency, stall, webhook delay and hold), and longest `retry_after`. */
export const MAX_RULE_MS = 3_600_000;

export interface CheckedRule {
  op: string;
  space_id: string | null;
  key_id: string | null;
  action: FaultAction;
  probability: number;
  remaining: number | null;
  expires_at: number | null;
}

const invalid = (message: string) => new LocalAdminError("invalid", message);

function optionalText(v: unknown, what: string): string | null {
  if (v === undefined || v === null || v === "") return null;
  if (typeof v !== "string") throw invalid(`${what} must be a string`);
  return v;
}

/** A duration of at most MAX_RULE_MS (an hour). */
function ruleMs(v: unknown, what: string): number {
  const ms = parseDurationMs(v, what);
  if (ms > MAX_RULE_MS) throw invalid(`${what} must be at most 1h, got ${JSON.stringify(v)}`);
  return ms;
}

function msRange(v: unknown): { min_ms: number; max_ms: number } {
  if (typeof v === "string" && v.includes("-")) {
    const [a, b] = v.split("-", 2);
    const min = ruleMs(a, "ms");
    const max = ruleMs(b, "ms");
    if (max < min) throw invalid(`ms: the range ${v} ends before it starts`);
    return { min_ms: min, max_ms: max };
  }
  const ms = ruleMs(v, "ms");
  return { min_ms: ms, max_ms: ms };
}

function errorAction(op: string, r: FaultRuleInput, routes: Routes): FaultAction {
  let status = r.status === undefined ? undefined : Number(r.status);
  let code = optionalText(r.code, "code");
  if (status !== undefined && !(Number.isInteger(status) && status >= 400 && status <= 599))
    throw invalid(`status must be an HTTP error status (400-599), got ${String(r.status)}`);
  if (!code) {
    if (status === undefined) throw invalid("an error rule needs a status or a code (e.g. status 503, code asset_not_found)");
    code = defaultCodeFor(op, status, routes) ?? null;
    if (!code) throw invalid(`${op} answers no ${status} in the spec; give a code (${allowedCodes(op, routes).join(", ")})`);
  }
  const allowed = allowedCodes(op, routes);
  if (op !== "*" && !allowed.includes(code)) throw invalid(`${op} never answers ${code} in the spec; it answers ${allowed.join(", ")}`);
  const known = (ERROR_CODES as Record<string, { status: number }>)[code];
  if (!known) throw invalid(`unknown error code ${code}`);
  // not_eligible is 402 for credits and 403 for a plan-gated model; the rest have one status.
  const statuses = code === "not_eligible" ? [402, 403] : [known.status];
  status ??= statuses[0]!;
  if (!statuses.includes(status)) throw invalid(`${code} is answered with ${statuses.join(" or ")}, not ${status}`);
  const message = optionalText(r.message, "message");
  const retryAfter = retryAfterOf(r.retry_after);
  return { kind: "error", status, code, ...(message ? { message } : {}), ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}) };
}

/** `retry_after`: whole seconds from 0 to 3600 (a number, or digits). */
function retryAfterOf(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > MAX_RULE_MS / 1000) {
    throw invalid(`retry_after must be a whole number of seconds from 0 to 3600, got ${JSON.stringify(v)}`);
  }
  return n;
}

function allowedCodes(op: string, routes: Routes): string[] {
  return [...operationCodes(op, routes), ...ANY_OPERATION_CODES];
}

function jobFailAction(op: string, r: FaultRuleInput, routes: Routes): FaultAction {
  const spec = routes[op]!.job!;
  const code = optionalText(r.code, "code") ?? spec.codes[0]!;
  if (!spec.codes.includes(code)) throw invalid(`a job started by ${op} fails with ${spec.codes.join(", ")}, not ${code}`);
  const step = optionalText(r.step, "step");
  if (step && !spec.steps.includes(step)) {
    throw invalid(spec.steps.length ? `step must be one of ${spec.steps.join(", ")}` : `a job started by ${op} has no steps`);
  }
  return { kind: "job_fail", code, ...(step ? { step } : {}) };
}

function actionOf(kind: FaultKind, op: string, r: FaultRuleInput, routes: Routes): FaultAction {
  switch (kind) {
    case "error":
      return errorAction(op, r, routes);
    case "latency":
      return { kind, ...msRange(r.ms ?? "1s") };
    case "reset":
    case "empty":
    case "webhook_drop":
    case "webhook_duplicate":
      return { kind };
    case "job_fail":
      return jobFailAction(op, r, routes);
    case "job_stall":
      return { kind, ms: ruleMs(r.ms ?? "30s", "ms") };
    case "progress_backwards": {
      const by = r.by === undefined ? 30 : Number(r.by);
      if (!(Number.isInteger(by) && by >= 1 && by <= 100)) throw invalid("by must be a whole number of points from 1 to 100");
      return { kind, by };
    }
    case "webhook_delay":
      return { kind, ms: ruleMs(r.ms ?? "5s", "ms") };
    case "webhook_reorder":
      return { kind, hold_ms: ruleMs(r.ms ?? "30s", "ms") };
  }
}

function checkOp(kind: FaultKind, op: string, routes: Routes): void {
  const stage = stageOf(kind);
  const valid =
    stage === "request"
      ? [...Object.keys(routes), "*"]
      : stage === "job"
        ? Object.keys(jobFaults(routes))
        : stage === "progress"
          ? progressOperations(routes)
          : [...WEBHOOK_TASKS, "*"];
  if (!valid.includes(op)) {
    const what = stage === "webhook" ? "webhook task" : "operation";
    throw invalid(`${kind} rules match the ${what}s ${valid.join(", ")}; got "${op}"`);
  }
}

function expiryOf(r: FaultRuleInput, now: number): number | null {
  if (r.expires_at !== undefined && r.expires_at !== null) {
    const t = typeof r.expires_at === "string" ? Date.parse(r.expires_at) : NaN;
    if (!Number.isFinite(t)) throw invalid(`expires_at must be an ISO 8601 time, got ${JSON.stringify(r.expires_at)}`);
    return t;
  }
  if (r.expires_in !== undefined && r.expires_in !== null) return now + parseDurationMs(r.expires_in, "expires_in");
  return null;
}

/** A number given as a number or as its digits (CLI flags are strings). */
function numberOf(v: unknown, what: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  throw invalid(`${what} must be a number, got ${JSON.stringify(v)}`);
}

/** Refuses a field no rule has (a misspelling: `probabilty`), and one this action does not read. */
function checkFields(kind: FaultKind, r: FaultRuleInput): void {
  const own = ACTION_FIELDS[kind];
  const given = Object.keys(r).filter((k) => (r as Record<string, unknown>)[k] !== undefined);
  const unknown = given.filter((k) => !(COMMON_FIELDS as readonly string[]).includes(k) && !own.includes(k));
  if (!unknown.length) return;
  const everyField = new Set<string>([...COMMON_FIELDS, ...Object.values(ACTION_FIELDS).flat()]);
  const names = unknown.map((k) => (everyField.has(k) ? `${k} (not read by ${kind} rules)` : k));
  throw invalid(
    `unknown field${unknown.length > 1 ? "s" : ""} ${names.join(", ")}; ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} rule takes ${[...COMMON_FIELDS, ...own].join(", ")}`,
  );
}

/** Checks a rule as given; throws LocalAdminError("invalid") naming the part at fault. */
/** `routes`: every operation's route facts (which request rules must name, with their codes). */
export function checkRule(r: FaultRuleInput, routes: Routes, now: number): CheckedRule {
  if (!r || typeof r !== "object" || Array.isArray(r)) throw invalid("a fault rule must be an object");
  const op = optionalText(r.op, "op");
  if (!op) throw invalid("op is required: an operation (e.g. assetStatus), a webhook task, or *");
  const kind = optionalText(r.action, "action") as FaultKind | null;
  if (!kind || !FAULT_KINDS.includes(kind)) throw invalid(`action must be one of ${FAULT_KINDS.join(", ")}`);
  checkFields(kind, r);
  checkOp(kind, op, routes);
  const action = actionOf(kind, op, r, routes);
  const probability = r.probability === undefined ? 1 : numberOf(r.probability, "probability");
  if (!(probability > 0 && probability <= 1)) throw invalid(`probability must be above 0 and at most 1, got ${String(r.probability)}`);
  let remaining: number | null = null;
  if (r.times !== undefined && r.times !== null) {
    remaining = numberOf(r.times, "times");
    if (!(Number.isInteger(remaining) && remaining >= 1 && remaining <= MAX_TIMES)) {
      throw invalid(`times must be a whole number from 1 to ${MAX_TIMES} (leave it out for no limit), got ${String(r.times)}`);
    }
  }
  return {
    op,
    space_id: optionalText(r.space, "space"),
    key_id: optionalText(r.key, "key"),
    action,
    probability,
    remaining,
    expires_at: expiryOf(r, now),
  };
}
