/**
 * The one wait engine: every job kind (assets, looks, generations, exports) waits through here, so
 * missed polls, rate limits, timeouts and Ctrl-C behave the same everywhere.
 */
import { localSchedule, type PollSchedule } from "../contract/poll.js";
import type { Target } from "../engine/engine.js";
import { CliError, EXIT, type WaitOptions, type WaitSpec } from "./types.js";
import { formatDuration } from "./parse.js";

export const DEFAULT_TIMEOUT_MS = 20 * 60_000;

export type WaitState = "pending" | "done" | "failed";

/** Where progress goes: a spinner on a TTY, state-change lines (or NDJSON) elsewhere. */
export interface WaitReporter {
  update(state: WaitState, text: string, elapsedMs: number): void;
  missed(reason: string, elapsedMs: number): void;
  stop(outcome: WaitState | "timeout" | "interrupted" | "error", text: string): void;
}

export interface WaitDeps {
  /** Wall clock in ms (rate-limit resets are unix seconds). */
  now(): number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Registers the Ctrl-C handler for the duration of the wait; returns the unregister function. */
  onInterrupt(handler: () => void): () => void;
  reporter: WaitReporter;
  /** Prints the last polled object as data (failed and timed-out waits). */
  printFinal(last: unknown, text: string): void;
  target: Target;
  trace?: (line: string) => void;
}

type Classified = { kind: "missed"; reason: string } | { kind: "rate"; reason: string; resetMs?: number } | { kind: "fatal" };

function header(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== "object") return undefined;
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? String(v[0]) : String(v);
  }
  return undefined;
}

/** A network error or a 5xx is a missed poll; a 429 waits for the window; anything else ends the wait. */
export function classifyPollError(e: unknown): Classified {
  const err = (e && typeof e === "object" ? e : {}) as { name?: string; status?: number; message?: string; headers?: unknown };
  if (err.name === "NetworkError") return { kind: "missed", reason: `network error: ${err.message ?? "unreachable"}` };
  if (err.name === "ApiError" && typeof err.status === "number") {
    if (err.status >= 500) return { kind: "missed", reason: `HTTP ${err.status}` };
    if (err.status === 429) {
      const reset = Number(header(err.headers, "x-ratelimit-reset"));
      return Number.isFinite(reset) && reset > 0
        ? { kind: "rate", reason: "rate limited", resetMs: reset * 1000 }
        : { kind: "rate", reason: "rate limited" };
    }
  }
  return { kind: "fatal" };
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export async function runWait<T>(spec: WaitSpec<T>, opts: WaitOptions, deps: WaitDeps): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const schedule: PollSchedule =
    opts.intervalMs !== undefined ? () => opts.intervalMs! : deps.target === "local" ? localSchedule : spec.schedule;
  const start = deps.now();
  const elapsed = () => deps.now() - start;
  const ac = new AbortController();
  const off = deps.onInterrupt(() => ac.abort(new Error("interrupted")));
  let last: { value: T; text: string } | undefined;
  let lastShown: string | undefined;

  const interrupted = () => {
    deps.reporter.stop("interrupted", last?.text ?? "");
    return new CliError(
      `Stopped waiting for ${spec.label}${last ? ` (last state: ${last.text})` : ""}; the job continues. Resume with: ${spec.resume}`,
      EXIT.interrupted,
      "interrupted",
    );
  };

  try {
    for (;;) {
      let delay: number | undefined;
      let value: T | undefined;
      let polled = false;
      try {
        value = await abortable(spec.poll(), ac.signal);
        polled = true;
      } catch (e) {
        if (ac.signal.aborted) throw interrupted();
        const c = classifyPollError(e);
        if (c.kind === "fatal") {
          deps.reporter.stop("error", last?.text ?? "");
          throw e;
        }
        deps.trace?.(`wait ${spec.label}: missed poll (${c.reason})`);
        deps.reporter.missed(c.reason, elapsed());
        if (c.kind === "rate") delay = c.resetMs !== undefined ? Math.max(c.resetMs - deps.now(), 1000) : undefined;
      }

      if (polled) {
        const state = spec.state(value as T);
        const text = spec.describe(value as T);
        last = { value: value as T, text };
        const shown = `${state}\u0000${text}`;
        if (shown !== lastShown) {
          lastShown = shown;
          deps.reporter.update(state, text, elapsed());
        }
        if (state === "done") {
          deps.reporter.stop("done", text);
          return value as T;
        }
        if (state === "failed") {
          deps.reporter.stop("failed", text);
          deps.printFinal(value, text);
          throw new CliError(`${spec.label} failed: ${text}`, EXIT.jobFailed, "job_failed");
        }
      }

      const spent = elapsed();
      if (spent >= timeoutMs) {
        deps.reporter.stop("timeout", last?.text ?? "");
        if (last) deps.printFinal(last.value, last.text);
        throw new CliError(
          `Timed out after ${formatDuration(timeoutMs)} waiting for ${spec.label}${last ? ` (last state: ${last.text})` : ""}; it may still finish. Resume with: ${spec.resume}`,
          EXIT.timeout,
          "timeout",
        );
      }
      delay = Math.max(0, Math.min(delay ?? schedule(spent), timeoutMs - spent));
      await deps.sleep(delay, ac.signal);
      if (ac.signal.aborted) throw interrupted();
    }
  } finally {
    off();
  }
}

/** Real timers: a sleep that ends early on Ctrl-C. */
export function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export function processInterrupt(handler: () => void): () => void {
  process.on("SIGINT", handler);
  return () => process.off("SIGINT", handler);
}
