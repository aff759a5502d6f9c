import type { Readable, Writable } from "node:stream";
import type { Engine, Target } from "../engine/engine.js";
import type { PollSchedule } from "../contract/poll.js";
import type { JobStart, JobUpdate } from "./journal.js";

export interface IO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  /** stdin and stdout are TTYs, and neither `--no-input` nor `CI` is set. */
  canPrompt: boolean;
  /** Colour allowed on stdout (TTY, no NO_COLOR, TERM != dumb, no --no-color). */
  color: boolean;
  /** Writes one line of data to stdout. */
  out(line: string): void;
  /** Writes one line of talk (hints, warnings, progress) to stderr; suppressed by --quiet. */
  info(line: string): void;
  /** Writes one line to stderr even under --quiet (warnings that matter). */
  warn(line: string): void;
}

export interface GlobalOptions {
  json: boolean;
  quiet: boolean;
  debug: boolean;
  color: boolean;
  /** false with --no-input. */
  input: boolean;
  target?: Target;
  baseUrl?: string;
  profile?: string;
  /** `--request-timeout` as given (checked when the hosted client is made). */
  requestTimeout?: string;
}

/** Where the key in use came from, for `auth status` (never the key itself). */
export type KeySource = "flag" | "env" | "profile" | "local-default" | "none";

export interface ResolvedConfig {
  profile: string;
  target: Target;
  /** Base URL ending in /api/public/v1 (hosted target; for local, undefined). */
  baseUrl: string | undefined;
  keySource: KeySource;
  /** Home of all state: config, credentials, the local instance. */
  home: string;
}

export interface WaitSpec<T> {
  /** What is waited on, for messages: "asset 64f…", "look lk_…". */
  label: string;
  /** One status read; `signal` aborts it when the wait's deadline passes or the user interrupts. */
  poll: (signal: AbortSignal) => Promise<T>;
  /** Maps a status object to the wait's states. */
  state: (t: T) => "pending" | "done" | "failed";
  /** One short line describing the current state, e.g. "generating" or "processing 40%". */
  describe: (t: T) => string;
  /** The spec's schedule for this kind (the local target polls faster by itself). */
  schedule: PollSchedule;
  /** Command that resumes the wait, printed on timeout and on Ctrl-C. */
  resume: string;
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

export interface DownloadOptions {
  force?: boolean;
}

export interface Context {
  io: IO;
  opts: GlobalOptions;
  /** Resolved target, base URL, profile and key source (no key). */
  config(): Promise<ResolvedConfig>;
  /** The engine of the resolved target (local instance or hosted client). Created once. */
  engine(): Promise<Engine>;
  /** Which target answers (`local` or `hosted`), without making the engine when it need not be made. */
  target(): Promise<Target>;
  /**
   * Prints a result: with --json the object as JSON on stdout; with --quiet `quietLines` (ids or a
   * path, one per line); otherwise `human(result)` lines.
   */
  print<T>(result: T, human: (r: T) => string[], quietLines?: (r: T) => string[]): void;
  /** Polls until done/failed/timeout. Throws CliError with exit 7 (failed) or 8 (timeout). */
  wait<T>(spec: WaitSpec<T>, opts?: WaitOptions): Promise<T>;
  /**
   * Saves a media URL (file:// or http(s)) into `dir` as `<name>`: temp file then rename, never
   * overwriting without force. Returns the final absolute path.
   */
  download(url: string, dir: string, name: string, opts?: DownloadOptions): Promise<string>;
  /**
   * Which flag filled each request field (and the request), so a service error about a field names
   * the flag (`--ref: file not found: nofile.png`). Optional for contexts other than the frame's.
   */
  explainWith?(flagFor: (field: string) => string | undefined, body?: Record<string, unknown>): void;
  /** Records jobs this command started in the journal (`mediagen history`); never fails the command. */
  recordJobs?(jobs: ReadonlyArray<Omit<JobStart, "target" | "base_url" | "profile">>): Promise<void>;
  /** Records what became of jobs the journal knows (status, saved file). */
  recordUpdates?(updates: ReadonlyArray<Omit<JobUpdate, "target" | "kind"> & { kind?: JobUpdate["kind"] }>): Promise<void>;
  /** `plan preview`: renders a plan on the local instance whatever the target (the frame's context only). */
  previewPlan?(input: import("../features/generation/preview-types.js").PreviewInput): Promise<import("../features/generation/preview-types.js").PreviewResult>;
  /** Reads a JSON body from a file path or `-` (stdin). Usage error (exit 2) when it does not parse. */
  readBody(pathOrDash: string): Promise<Record<string, unknown>>;
}

/** Exit codes (CLI-CONVENTIONS.md). */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  credits: 5,
  rateLimited: 6,
  jobFailed: 7,
  timeout: 8,
  interrupted: 130,
} as const;

/** An error the CLI reports with a chosen exit code (usage errors, failed waits, timeouts). */
export class CliError extends Error {
  override readonly name = "CliError";
  /** Already reported on stderr by the command: the frame only exits with its code. */
  shown = false;
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code: string = "usage_error",
    readonly field?: string,
  ) {
    super(message);
  }
}
