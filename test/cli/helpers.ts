/**
 * Runs the BUILT CLI (bin/mediagen.js → dist/) the way users do: a real process, a temp
 * MEDIAGEN_HOME, CI=1, no inherited MEDIAGEN_* variables, stdin closed unless `input` is given.
 * Build first (`npx tsc -p .`; `npm test` does it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = path.join(ROOT, "bin", "mediagen.js");

if (!fs.existsSync(path.join(ROOT, "dist", "cli", "main.js"))) {
  throw new Error("dist/cli/main.js is missing: build first with `npx tsc -p .`");
}

export interface RunOptions {
  /** Extra environment (MEDIAGEN_HOME defaults to this file's shared temp home). */
  env?: Record<string, string | undefined>;
  /** Text written to stdin (stdin is otherwise empty and closed). */
  input?: string;
  home?: string;
  timeoutMs?: number;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  home: string;
  /** stdout parsed as JSON (throws when it is not JSON). */
  json<T = unknown>(): T;
  /** The `{"error":{…}}` line printed on stderr with --json, if any. */
  errorLine(): { status: number | null; code: string; field: string | null; message: string } | undefined;
}

/** A fresh, empty MEDIAGEN_HOME. */
export function newHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
}

let shared: string | undefined;
/** One home per test file (per worker process), created on first use. */
export function sharedHome(): string {
  shared ??= newHome();
  return shared;
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k.startsWith("MEDIAGEN_") || k === "NO_COLOR" || k === "FORCE_COLOR" || k.startsWith("VITEST") || k === "NODE_OPTIONS") continue;
    env[k] = v;
  }
  return env;
}

function launch(args: string[], opts: RunOptions) {
  const home = opts.home ?? sharedHome();
  const env: Record<string, string> = { ...cleanEnv(), CI: "1", MEDIAGEN_HOME: home };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = execa(process.execPath, [BIN, ...args], {
    env,
    extendEnv: false,
    reject: false,
    timeout: opts.timeoutMs ?? 20_000,
    stripFinalNewline: false,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: "ignore" as const }),
  });
  return { child, home };
}

/** Starts the CLI without waiting for it: for tests that signal it (Ctrl-C) while it runs. */
export function start(args: string[], opts: RunOptions = {}): { kill(signal: NodeJS.Signals): void; result: Promise<RunResult> } {
  const { child, home } = launch(args, opts);
  return { kill: (signal) => child.kill(signal), result: settle(args, child, home) };
}

export async function run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const { child, home } = launch(args, opts);
  return settle(args, child, home);
}

async function settle(args: string[], child: ReturnType<typeof execa>, home: string): Promise<RunResult> {
  const r = await child;
  const stdout = String(r.stdout ?? "");
  const stderr = String(r.stderr ?? "");
  if (r.timedOut) throw new Error(`mediagen ${args.join(" ")} timed out\nstderr: ${stderr}`);
  return {
    exitCode: r.exitCode ?? -1,
    stdout,
    stderr,
    home,
    json<T>() {
      return JSON.parse(stdout) as T;
    },
    errorLine() {
      const line = stderr.split("\n").find((l) => l.startsWith('{"error":'));
      return line ? (JSON.parse(line) as { error: ReturnType<RunResult["errorLine"]> }).error : undefined;
    },
  };
}

/** Creates a space and key on the local instance of `home`; returns them. */
export async function localKey(plan: string, credits: number, home?: string): Promise<{ api_key: string; space_id: string }> {
  const r = await run(["local", "keys", "create", "--plan", plan, "--credits", String(credits), "--json"], home ? { home } : {});
  if (r.exitCode !== 0) throw new Error(`local keys create failed: ${r.stderr}`);
  return r.json();
}
