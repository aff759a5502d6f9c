/**
 * Any failure → exit code and what the user sees on stderr. Errors are recognised by name and shape
 * rather than `instanceof`, so this module does not import the engine (and zod) at startup.
 */
import { redact } from "../engine/redact.js";
import { CliError, EXIT } from "./types.js";
import { errStyle } from "./output.js";
import { escapeControls, terminalLine } from "./terminal-text.js";
import type { FrameIO } from "./io.js";

export interface ErrorInfo {
  exitCode: number;
  status: number | null;
  code: string;
  field: string | null;
  /** The flag that filled `field` on this command line, when the error is about it. */
  flag?: string;
  message: string;
  /** Printed by commander already: only the JSON line is added. */
  alreadyShown?: boolean;
  /** What to do about it, on its own line (e.g. how to check whether a failed request was acted on). */
  hint?: string;
  /** The JSON line too was printed (by the command): nothing more to say. */
  jsonShown?: boolean;
}

type AnyRecord = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

export function exitCodeForStatus(status: number): number {
  if (status === 400 || status === 413 || status === 422) return EXIT.usage;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 402) return EXIT.credits;
  if (status === 429) return EXIT.rateLimited;
  return EXIT.error;
}

function firstLine(s: string): string {
  const line = s.split("\n").find((l) => l.trim() !== "") ?? s;
  return line.trim();
}

/**
 * What the command knows that makes a service error speak in its own terms: which flag filled a
 * request field (so `references[0].url: file not found` reads `--ref: file not found: nofile.png`),
 * the request sent, and hints on how to fix the error.
 */
export interface Explain {
  /** The flag that filled a top-level request field on this command line (undefined: not a flag). */
  flagFor?(field: string): string | undefined;
  /** The request that was sent, to quote the value at fault. */
  body?: Record<string, unknown>;
  /** Lines said after the error (how to fix it); left out with --quiet. */
  hints?: string[];
}

/** The words that start what a message says about the field named before them. */
const PREDICATE = /^(must|is|are|should|has|have|needs?|requires?|takes|cannot|can't|was|does|only|not)\b/;

/** Fields the frame itself fills, whatever the command. */
const FRAME_FIELDS: Record<string, string> = { "X-Local-Simulate": "--simulate" };

/** `references[0].url` → ["references", 0, "url"]. */
export function fieldPath(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

function valueAt(body: unknown, path: readonly (string | number)[]): unknown {
  let v = body;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/**
 * A service error about a field given as a flag, in the flag's words: `--ref: file not found:
 * nofile.png`, `--aspect-ratio: must be one of 16:9, 9:16 (got 3:3)`. Undefined when no flag filled it.
 */
export function inFlagTerms(field: string, message: string, explain: Explain): { flag: string; message: string } | undefined {
  const path = fieldPath(field);
  const top = typeof path[0] === "string" ? path[0] : undefined;
  if (top === undefined) return undefined;
  const flag = FRAME_FIELDS[field] ?? explain.flagFor?.(top);
  if (!flag) return undefined;
  let rest = message;
  let stripped = false;
  for (const prefix of [field, top]) {
    if (rest.startsWith(prefix)) {
      // Only the field's own name goes (`prompt: …`, `prompt must …`): "prompt or images is
      // required" is a sentence about two fields and stays whole.
      const after = rest.slice(prefix.length);
      if (/^\s*:/.test(after) || PREDICATE.test(after.trimStart())) {
        rest = after.replace(/^[\s:]+/, "");
        stripped = true;
      }
      break;
    }
  }
  const value = explain.body ? valueAt(explain.body, path) : undefined;
  const last = path[path.length - 1];
  const named = typeof last === "string" && last !== top && last !== "url" && rest.includes(last);
  if (stripped && typeof value === "string" && value !== "" && !named && !rest.includes(value)) {
    rest = /not found$/i.test(rest) ? `${rest}: ${value}` : `${rest} (got ${value})`;
  }
  return { flag, message: `${flag}: ${rest}` };
}

export function describeError(err: unknown, explain: Explain = {}): ErrorInfo {
  const info = describe(err, explain);
  const hint = err && typeof err === "object" ? str((err as AnyRecord).hint) : undefined;
  return hint !== undefined ? { ...info, hint } : info;
}

function describe(err: unknown, explain: Explain): ErrorInfo {
  if (err instanceof CliError) {
    return {
      exitCode: err.exitCode,
      status: null,
      code: err.code,
      field: err.field ?? null,
      message: err.message,
      ...(err.shown ? { alreadyShown: true, jsonShown: true } : {}),
    };
  }
  const e = (err && typeof err === "object" ? err : {}) as AnyRecord;
  const name = str(e.name) ?? str((e.constructor as { name?: string } | undefined)?.name);
  const message = str(e.message) ?? (typeof err === "string" ? err : "unexpected failure");

  if (name === "ApiError" && typeof e.status === "number") {
    const field = str(e.field) ?? null;
    // Without a field, a message that starts with one (`webhook_url must be …`) is about that field.
    const named = field ?? /^([a-z]+_[a-z0-9_]*|[a-z]+\[\d+\][a-z0-9_.[\]]*)(?=[\s:])/i.exec(message)?.[1];
    const flagged = named ? inFlagTerms(named, message, explain) : undefined;
    return {
      exitCode: exitCodeForStatus(e.status),
      status: e.status,
      code: str(e.code) ?? `http_${e.status}`,
      field,
      ...(flagged ? { flag: flagged.flag, message: flagged.message } : { message }),
    };
  }
  // A 2xx body without the contract's shape (hosted/response-check.ts): `field` is where it differs.
  if (name === "UnexpectedResponseError") {
    // The status it came with (a 200 whose body fails the check) is real: say it.
    return { exitCode: EXIT.error, status: typeof e.status === "number" ? e.status : null, code: "unexpected_response", field: str(e.path) ?? null, message };
  }
  if (name === "NetworkError") {
    // `request_timeout`: the request's deadline (--request-timeout) passed before an answer.
    return { exitCode: EXIT.error, status: null, code: str(e.code) ?? "network_error", field: null, message };
  }
  if (name === "HomeError" || name === "LocalStoreError") {
    return { exitCode: EXIT.error, status: null, code: name === "HomeError" ? "home_unusable" : "local_store_error", field: null, message };
  }
  // A variable set to a value the CLI cannot use (MEDIAGEN_CONFIRM_ABOVE=lots): a usage error.
  if (name === "InvalidEnvError") {
    return { exitCode: EXIT.usage, status: null, code: "invalid_env", field: str(e.variable) ?? null, message };
  }
  if (name === "ConfigError") {
    return { exitCode: EXIT.usage, status: null, code: "config_error", field: str(e.field) ?? null, message };
  }
  if (name === "LocalAdminError") {
    const kind = str(e.kind);
    return {
      exitCode: kind === "not_found" ? EXIT.notFound : kind === "invalid" ? EXIT.usage : EXIT.error,
      status: null,
      code: kind ?? "local_error",
      field: str(e.field) ?? null,
      message,
    };
  }
  // @inquirer/prompts: Ctrl-C at a prompt is an interruption, not a failure.
  if (name === "ExitPromptError") {
    return { exitCode: EXIT.interrupted, status: null, code: "interrupted", field: null, message: "Interrupted at the prompt." };
  }
  if (typeof e.code === "string" && e.code.startsWith("commander.")) {
    const ok = e.code === "commander.helpDisplayed" || e.code === "commander.version";
    return {
      exitCode: ok ? EXIT.ok : EXIT.usage,
      status: null,
      code: "usage_error",
      field: null,
      // A group run without its subcommand: commander printed the group's help; its message is a placeholder.
      message: e.code === "commander.help" ? "a subcommand is required (see the list above)" : message.replace(/^error:\s*/i, ""),
      alreadyShown: true,
    };
  }
  if (e.code === "EPIPE") {
    return { exitCode: EXIT.ok, status: null, code: "epipe", field: null, message, alreadyShown: true };
  }
  return { exitCode: EXIT.error, status: null, code: "internal_error", field: null, message: firstLine(message) };
}

const HINTS: Record<number, string> = {
  [EXIT.auth]: "Check the key and plan with `mediagen auth status`.",
};

/**
 * Writes the error to stderr: one human line (and hints), the JSON line with --json, the stack with
 * --debug. `explain` (what the command knows) puts a service error in the command's terms.
 */
export function renderError(err: unknown, io: Pick<FrameIO, "stderr" | "quiet">, opts: { json: boolean; debug: boolean }, explain: Explain = {}): ErrorInfo {
  const info = describeError(err, explain);
  if (info.exitCode === EXIT.ok) return info;
  const write = (line: string) => io.stderr.write(terminalLine(redact(line)) + "\n");
  if (!info.alreadyShown) {
    // The service's code (and its field, unless a flag names it) help people search the docs.
    // (An unexpected response names its field in its message already.)
    const extra = info.status !== null && info.code !== "unexpected_response" ? ` (code ${info.code}${info.field && !info.flag ? `, field ${info.field}` : ""})` : "";
    // A deliberate interrupt (Ctrl-C, the draft kept, the resume command) is a notice, not a failure.
    write(info.code === "interrupted" ? `${escapeControls(info.message)}${extra}` : `${errStyle.red("Error:")} ${escapeControls(info.message)}${extra}`);
    // Said even with -q: it is about not paying twice, not a tip.
    if (info.hint) write(info.hint);
    const hints = [...(explain.hints ?? [])];
    const hint = HINTS[info.exitCode];
    if (hint && info.status !== null && !hints.length) hints.push(hint);
    if (!io.quiet) for (const h of hints) write(errStyle.dim(h));
  }
  if (opts.json && !info.jsonShown) {
    const flag = info.flag ? { flag: info.flag } : {};
    write(JSON.stringify({ error: { status: info.status, code: info.code, field: info.field, ...flag, message: info.message } }));
  }
  if (opts.debug && err instanceof Error && !info.alreadyShown && !(err instanceof CliError)) {
    const e = err as Error & { body?: unknown };
    if (e.body !== undefined) write(`[debug] body: ${JSON.stringify(e.body)}`);
    // A stack only helps with failures nobody anticipated (bugs, unexpected throws).
    if (e.stack && info.code === "internal_error") write(`[debug] ${e.stack}`);
  }
  return info;
}
