import type { Readable, Writable } from "node:stream";
import { readEnv, type Env } from "../config/env.js";
import { redact } from "../engine/redact.js";
import { terminalLine } from "./terminal-text.js";
import type { GlobalOptions, IO } from "./types.js";

export type { Env };

export interface Streams {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable & { isTTY?: boolean };
}

/** The IO the frame hands to commands, plus what the frame itself needs (stderr colour, width). */
export interface FrameIO extends IO {
  quiet: boolean;
  /** Colour allowed on stderr (errors, warnings, spinner). */
  stderrColor: boolean;
  /** Columns human tables may use (Infinity off a TTY, so piped text is never cut). */
  width: number;
  /** stderr can redraw a line (a TTY of a known width, TERM not dumb, not CI): spinners allowed. */
  animate: boolean;
}

/** CI set to anything but 0/false counts: CI providers use "true", "1" or a provider name. */
export function isCI(env: Env): boolean {
  return readEnv("CI", env);
}

/**
 * NO_COLOR (non-empty, per no-color.org) and --no-color always win; FORCE_COLOR turns colour on
 * off a TTY (for pagers and tests); otherwise colour needs a TTY and a TERM other than dumb.
 */
export function colorEnabled(isTTY: boolean, env: Env, flag: boolean): boolean {
  if (!flag) return false;
  if (readEnv("NO_COLOR", env)) return false;
  const forced = readEnv("FORCE_COLOR", env);
  if (forced !== undefined) return forced;
  if (readEnv("TERM", env) === "dumb") return false;
  return isTTY;
}

/**
 * Width of a terminal: its reported columns, else COLUMNS, else 80. A pty that reports 0 columns
 * (some CI runners, `script`) has no known width, not a width of 0.
 */
export function terminalWidth(columns: number | undefined, env: Env): number {
  if (typeof columns === "number" && columns > 0) return columns;
  return readEnv("COLUMNS", env) ?? 80;
}

/**
 * A terminal that reports its width. One of 0 columns (`stty cols 0`, a `script`-wrapped CI job,
 * `ssh -tt` from cron) cannot show a spinner: ora divides by the width and would redraw forever.
 */
export function hasWidth(columns: number | undefined): boolean {
  return typeof columns === "number" && columns > 0;
}

export function createIO(streams: Streams, env: Env, opts: Pick<GlobalOptions, "quiet" | "color" | "input">): FrameIO {
  const isStdoutTTY = streams.stdout.isTTY === true;
  const isStderrTTY = streams.stderr.isTTY === true;
  const isStdinTTY = streams.stdin.isTTY === true;
  const width = isStdoutTTY ? terminalWidth(streams.stdout.columns, env) : Infinity;
  return {
    stdout: streams.stdout,
    stderr: streams.stderr,
    stdin: streams.stdin,
    isStdoutTTY,
    isStderrTTY,
    canPrompt: isStdinTTY && isStdoutTTY && opts.input && !isCI(env),
    color: colorEnabled(isStdoutTTY, env, opts.color),
    stderrColor: colorEnabled(isStderrTTY, env, opts.color),
    quiet: opts.quiet,
    width,
    animate: isStderrTTY && hasWidth(streams.stderr.columns) && readEnv("TERM", env) !== "dumb" && !isCI(env),
    // Text quoted from the service, the store or a webhook never runs as a terminal command (terminal-text.ts).
    out(line) {
      streams.stdout.write(terminalLine(line) + "\n");
    },
    // Talk may quote the service (an error, a job's failure), which may quote the key.
    info(line) {
      if (!opts.quiet) streams.stderr.write(terminalLine(redact(line)) + "\n");
    },
    warn(line) {
      streams.stderr.write(terminalLine(redact(line)) + "\n");
    },
  };
}
