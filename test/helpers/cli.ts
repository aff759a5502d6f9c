/**
 * Runs the CLI in this test process (src/cli/run.ts `runCli`), with in-memory streams and an
 * environment of its own: the same environment a spawned `bin/mediagen.js` gets from
 * test/cli/helpers.ts (CI=1, a temp MEDIAGEN_HOME, no inherited MEDIAGEN_ or colour variables), built
 * without touching `process.env`. Jobs of the local target run in the detached worker process the
 * local instance starts from dist/, as for a real command: build first (`npx tsc -p .`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { expect } from "vitest";
import { runCli } from "../../src/cli/run.js";
import type { Engine } from "../../src/engine/engine.js";
import type { Clock } from "../../src/cli/runtime.js";
import { seedCatalogPictures } from "./catalog-seed.js";
import { trackHome } from "./leftover-workers.js";
import { TEST_POLL_INTERVAL, TEST_RATE_LIMIT } from "./poll-interval.js";

export interface RunOptions {
  /** Extra environment; a value of undefined removes the variable. */
  env?: Record<string, string | undefined>;
  /** Text on stdin (stdin is otherwise empty and closed). */
  input?: string;
  /** MEDIAGEN_HOME (default: one shared temp home per test file). */
  home?: string;
  /** The run fails the test (and is interrupted) after this long. */
  timeoutMs?: number;
  /** Terminal streams: isTTY on stdout/stderr/stdin and the reported width. Off by default, as in a pipe. */
  tty?: { stdout?: boolean; stderr?: boolean; stdin?: boolean; columns?: number };
  /** Ctrl-C: aborting it interrupts the command as SIGINT interrupts the real process. */
  interrupt?: AbortSignal;
  clock?: Clock;
  engine?: () => Promise<Engine>;
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

/** A fresh MEDIAGEN_HOME, with the avatar catalog's pictures already drawn (test/helpers/catalog-seed.ts). */
export function newHome(): string {
  const home = emptyHome();
  seedCatalogPictures(home);
  return home;
}

/** A fresh home without the catalog's pictures: its first catalog read draws them, as a user's first run does. */
export function emptyHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  trackHome(home);
  return home;
}

const shared = new Map<string, string>();
/**
 * One home per test file, created on first use. Keyed by the file: a worker runs several files
 * one after another in one module cache (vitest `isolate: false`), and each file starts afresh.
 */
export function sharedHome(): string {
  const file = expect.getState().testPath ?? "";
  let home = shared.get(file);
  if (!home) {
    home = newHome();
    shared.set(file, home);
  }
  return home;
}

/** The parent environment without what would steer the CLI (a copy: process.env is never changed). */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k.startsWith("MEDIAGEN_") || k.startsWith("MG_TEST_") || k === "NO_COLOR" || k === "FORCE_COLOR" || k.startsWith("VITEST") || k === "NODE_OPTIONS") continue;
    env[k] = v;
  }
  return env;
}

/** The environment of one run: clean, CI=1, the test poll interval and rate limit, MEDIAGEN_HOME, then `extra` (undefined deletes). */
export function runEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    ...cleanEnv(),
    CI: "1",
    MEDIAGEN_POLL_INTERVAL: TEST_POLL_INTERVAL,
    MEDIAGEN_LOCAL_RATE_LIMIT: TEST_RATE_LIMIT,
    MEDIAGEN_HOME: home,
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** A stream that keeps what is written, as a terminal or a pipe would show it. */
class Capture extends Writable {
  private chunks: Buffer[] = [];
  isTTY?: boolean;
  columns?: number;
  override _write(chunk: Buffer | string, encoding: BufferEncoding, done: (e?: Error | null) => void): void {
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk);
    done();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

export function result(exitCode: number, stdout: string, stderr: string, home: string): RunResult {
  return {
    exitCode,
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

/** Starts a run without waiting for it; `interrupt()` is Ctrl-C. */
export function startInProcess(args: string[], opts: RunOptions = {}): { interrupt(): void; result: Promise<RunResult> } {
  const home = opts.home ?? sharedHome();
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = Readable.from(opts.input !== undefined ? [Buffer.from(opts.input)] : []) as Readable & { isTTY?: boolean };
  if (opts.tty?.stdout) stdout.isTTY = true;
  if (opts.tty?.stderr) stderr.isTTY = true;
  if (opts.tty?.stdin) stdin.isTTY = true;
  if (opts.tty?.columns !== undefined) stdout.columns = stderr.columns = opts.tty.columns;
  const ctrlC = new AbortController();
  opts.interrupt?.addEventListener("abort", () => ctrlC.abort(), { once: true });
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const run = runCli(args, {
    stdout,
    stderr,
    stdin,
    env: runEnv(home, opts.env),
    interrupt: ctrlC.signal,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.engine ? { engine: opts.engine } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // A command stuck in a wait or a download stops, so it does not linger after the test.
      ctrlC.abort();
      reject(new Error(`mediagen ${args.join(" ")} timed out after ${timeoutMs} ms\nstderr: ${stderr.text()}`));
    }, timeoutMs);
  });
  const done = Promise.race([run, timedOut])
    .then((code) => result(code, stdout.text(), stderr.text(), home))
    .finally(() => clearTimeout(timer));
  return { interrupt: () => ctrlC.abort(), result: done };
}

/** Runs `mediagen <args>` in process: the same result as the spawned binary's. */
export function runInProcess(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return startInProcess(args, opts).result;
}
