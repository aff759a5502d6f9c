import type { Readable, Writable } from "node:stream";
import type { GlobalOptions, IO } from "./types.js";

export type Env = Record<string, string | undefined>;

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
}

const truthy = (v: string | undefined) => v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";

/** CI set to anything but 0/false counts: CI providers use "true", "1" or a provider name. */
export function isCI(env: Env): boolean {
  return truthy(env.CI);
}

/**
 * NO_COLOR (non-empty, per no-color.org) and --no-color always win; FORCE_COLOR turns colour on
 * off a TTY (for pagers and tests); otherwise colour needs a TTY and a TERM other than dumb.
 */
export function colorEnabled(isTTY: boolean, env: Env, flag: boolean): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined) return truthy(env.FORCE_COLOR) || env.FORCE_COLOR === "";
  if (env.TERM === "dumb") return false;
  return isTTY;
}

export function createIO(streams: Streams, env: Env, opts: Pick<GlobalOptions, "quiet" | "color" | "input">): FrameIO {
  const isStdoutTTY = streams.stdout.isTTY === true;
  const isStderrTTY = streams.stderr.isTTY === true;
  const isStdinTTY = streams.stdin.isTTY === true;
  const columns = Number(env.COLUMNS);
  const width = isStdoutTTY
    ? (streams.stdout.columns ?? (columns > 0 ? columns : 80))
    : columns > 0
      ? columns
      : Infinity;
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
    out(line) {
      streams.stdout.write(line + "\n");
    },
    info(line) {
      if (!opts.quiet) streams.stderr.write(line + "\n");
    },
    warn(line) {
      streams.stderr.write(line + "\n");
    },
  };
}
