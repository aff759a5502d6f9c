/**
 * Any failure → exit code and what the user sees on stderr. Errors are recognised by name and shape
 * rather than `instanceof`, so this module does not import the engine (and zod) at startup.
 */
import { redact } from "../engine/redact.js";
import { CliError, EXIT } from "./types.js";
import { errStyle } from "./output.js";
import type { FrameIO } from "./io.js";

export interface ErrorInfo {
  exitCode: number;
  status: number | null;
  code: string;
  field: string | null;
  message: string;
  /** Printed by commander already: only the JSON line is added. */
  alreadyShown?: boolean;
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

export function describeError(err: unknown): ErrorInfo {
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
    return {
      exitCode: exitCodeForStatus(e.status),
      status: e.status,
      code: str(e.code) ?? `http_${e.status}`,
      field: str(e.field) ?? null,
      message,
    };
  }
  // A 2xx body without the contract's shape (hosted/response-check.ts): `field` is where it differs.
  if (name === "UnexpectedResponseError") {
    return { exitCode: EXIT.error, status: null, code: "unexpected_response", field: str(e.path) ?? null, message };
  }
  if (name === "NetworkError") {
    return { exitCode: EXIT.error, status: null, code: "network_error", field: null, message };
  }
  if (name === "HomeError" || name === "LocalStoreError") {
    return { exitCode: EXIT.error, status: null, code: name === "HomeError" ? "home_unusable" : "local_store_error", field: null, message };
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

/** Writes the error to stderr: one human line, the JSON line with --json, the stack with --debug. */
export function renderError(err: unknown, io: Pick<FrameIO, "stderr" | "quiet">, opts: { json: boolean; debug: boolean }): ErrorInfo {
  const info = describeError(err);
  if (info.exitCode === EXIT.ok) return info;
  const write = (line: string) => io.stderr.write(redact(line) + "\n");
  if (!info.alreadyShown) {
    // The service's code and field help people search the docs; CLI errors already name the flag.
    const extra = info.status !== null ? ` (code ${info.code}${info.field ? `, field ${info.field}` : ""})` : "";
    write(`${errStyle.red("Error:")} ${info.message}${extra}`);
    const hint = HINTS[info.exitCode];
    if (hint && !io.quiet && info.status !== null) write(errStyle.dim(hint));
  }
  if (opts.json && !info.jsonShown) {
    write(JSON.stringify({ error: { status: info.status, code: info.code, field: info.field, message: info.message } }));
  }
  if (opts.debug && err instanceof Error && !info.alreadyShown && !(err instanceof CliError)) {
    const e = err as Error & { body?: unknown };
    if (e.body !== undefined) write(`[debug] body: ${JSON.stringify(e.body)}`);
    // A stack only helps with failures nobody anticipated (bugs, unexpected throws).
    if (e.stack && info.code === "internal_error") write(`[debug] ${e.stack}`);
  }
  return info;
}
