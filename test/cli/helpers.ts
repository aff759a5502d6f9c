/**
 * Two ways to run `mediagen` in the CLI tests, with one result shape:
 * - `run` (the default): the CLI in this process (test/helpers/cli.ts), in-memory streams, its own
 *   environment and a temp MEDIAGEN_HOME. Fast: no node start-up per command.
 * - `runBin`/`startBin`: the BUILT CLI (bin/mediagen.js → dist/bundle/) as users run it, a real process, for
 *   what only a process shows: its exit status, signals, a closed stdin, a broken pipe, start-up.
 * Both: CI=1, no inherited MEDIAGEN_* variables, stdin empty and closed unless `input` is given.
 * Build first (`npm run build`: tsc, then the bundle; `npm test` does it): the local instance's worker
 * runs from dist/.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { newHome, result, runEnv, runInProcess, sharedHome, startInProcess, type RunOptions, type RunResult } from "../helpers/cli.js";

export { newHome, sharedHome, startInProcess, type RunOptions, type RunResult };

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = path.join(ROOT, "bin", "mediagen.js");

for (const built of ["dist/cli/main.js", "dist/bundle/mediagen.js"]) {
  if (!fs.existsSync(path.join(ROOT, built))) throw new Error(`${built} is missing: build first with \`npm run build\``);
}

/** `mediagen <args>` in this process. */
export const run = runInProcess;

/** Options of a real process: those of `run`, and the working directory. */
export interface BinOptions extends Omit<RunOptions, "tty" | "interrupt" | "clock" | "engine"> {
  /** Working directory (default: the test process's). */
  cwd?: string;
}

/** The result of a real process: also the signal that ended it, if one did. */
export interface BinResult extends RunResult {
  signal: string | undefined;
}

function launch(args: string[], opts: BinOptions) {
  const home = opts.home ?? sharedHome();
  const child = execa(process.execPath, [BIN, ...args], {
    env: runEnv(home, opts.env),
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    extendEnv: false,
    reject: false,
    timeout: opts.timeoutMs ?? 20_000,
    stripFinalNewline: false,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: "ignore" as const }),
  });
  return { child, home };
}

/** Starts the built CLI without waiting for it: for tests that signal it (Ctrl-C) while it runs. */
export function startBin(args: string[], opts: BinOptions = {}): { kill(signal: NodeJS.Signals): void; result: Promise<BinResult> } {
  const { child, home } = launch(args, opts);
  return { kill: (signal) => child.kill(signal), result: settle(args, child, home) };
}

/** The name startBin had when every CLI test spawned the binary (kept for branches written against it). */
export const start = startBin;

/** `mediagen <args>` as a real process of the built binary. */
export async function runBin(args: string[], opts: BinOptions = {}): Promise<BinResult> {
  const { child, home } = launch(args, opts);
  return settle(args, child, home);
}

async function settle(args: string[], child: ReturnType<typeof execa>, home: string): Promise<BinResult> {
  const r = await child;
  const stdout = String(r.stdout ?? "");
  const stderr = String(r.stderr ?? "");
  if (r.timedOut) throw new Error(`mediagen ${args.join(" ")} timed out\nstderr: ${stderr}`);
  return { ...result(r.exitCode ?? -1, stdout, stderr, home), signal: r.signal ?? undefined };
}

/** Creates a space and key on the local instance of `home`; returns them. */
export async function localKey(plan: string, credits: number, home?: string): Promise<{ api_key: string; space_id: string }> {
  const r = await run(["local", "keys", "create", "--plan", plan, "--credits", String(credits), "--json"], home ? { home } : {});
  if (r.exitCode !== 0) throw new Error(`local keys create failed: ${r.stderr}`);
  return r.json();
}

/**
 * Env for a built CLI that SIGKILLs itself between the answer to line `line`'s start and the record
 * of its job ids in the batch manifest (fixtures/kill-in-start-window.cjs, preloaded).
 */
export function killInStartWindow(line: number): Record<string, string> {
  const fixture = fileURLToPath(new URL("./fixtures/kill-in-start-window.cjs", import.meta.url));
  return { NODE_OPTIONS: `--require ${JSON.stringify(fixture)}`, KILL_BATCH_LINE: String(line) };
}
