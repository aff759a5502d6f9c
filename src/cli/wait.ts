/**
 * The one wait engine: every job kind (assets, looks, generations, exports) waits through here, so
 * missed polls, rate limits, timeouts and Ctrl-C behave the same everywhere. Several jobs (the
 * generations of one `asset start --count 4`) are waited on together under one deadline.
 */
import { localSchedule, type PollSchedule } from "../contract/poll.js";
import type { Target } from "../engine/engine.js";
import { CliError, EXIT, type WaitOptions, type WaitSpec } from "./types.js";
import { formatDuration } from "./parse.js";

export const DEFAULT_TIMEOUT_MS = 20 * 60_000;
/**
 * A poll is never given less than this, so the poll made at the deadline can still answer; a poll
 * that takes longer is abandoned (its call aborted) and the wait ends.
 */
export const MIN_POLL_BUDGET_MS = 1_000;
/**
 * With several jobs, a round of polls is stretched to this much per pending job: the rate limit
 * (100 a minute) is shared by every poll of the key.
 */
export const PER_JOB_ROUND_MS = 1_000;

export type WaitState = "pending" | "done" | "failed";
/** `finished`: every job ended (done, failed, or an error that ends its wait). */
export type WaitEnding = "finished" | "timeout" | "interrupted";

export interface WaitJob<T> {
  /** The id that resumes the wait for this job. */
  id: string;
  /** What is waited on, for messages: "asset 64f…", "look lk_…". */
  label: string;
  /** Reads the status; `signal` aborts when the wait stops (deadline, Ctrl-C). */
  poll(signal: AbortSignal): Promise<T>;
}

export interface MultiWaitSpec<T> {
  jobs: readonly WaitJob<T>[];
  state(t: T): WaitState;
  describe(t: T): string;
  /** The spec's schedule for this kind (the local target polls faster by itself). */
  schedule: PollSchedule;
}

export interface JobResult<T> {
  job: WaitJob<T>;
  /** `pending` after a timeout or Ctrl-C; `error` when a poll failed in a way that ends this job's wait (404, 401…). */
  state: WaitState | "error";
  /** The last polled object, if any poll answered. */
  value?: T;
  /** Description of the last polled object ("" when none answered). */
  text: string;
  error?: unknown;
}

export interface WaitOutcome<T> {
  ending: WaitEnding;
  jobs: JobResult<T>[];
}

export interface JobSummary {
  label: string;
  state: WaitState | "error";
  text: string;
}

/** Where progress goes: a spinner on a TTY, state-change lines (or NDJSON) elsewhere. */
export interface WaitReporter {
  update(label: string, state: WaitState, text: string, elapsedMs: number): void;
  missed(label: string, reason: string, elapsedMs: number): void;
  stop(ending: WaitEnding, jobs: readonly JobSummary[]): void;
}

export interface WaitDeps {
  /** Wall clock in ms (rate-limit resets are unix seconds). */
  now(): number;
  /** Resolves after `ms`, or early when `signal` aborts (the pause between polls). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Resolves after `ms`, or early when `signal` aborts: the bound on one poll. */
  timer(ms: number, signal: AbortSignal): Promise<void>;
  /** Registers the Ctrl-C handler for the duration of the wait; returns the unregister function. */
  onInterrupt(handler: () => void): () => void;
  reporter: WaitReporter;
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
      return Number.isFinite(reset) && reset > 0 ? { kind: "rate", reason: "rate limited", resetMs: reset * 1000 } : { kind: "rate", reason: "rate limited" };
    }
  }
  return { kind: "fatal" };
}

type Answer<T> = { kind: "value"; value: T } | { kind: "error"; error: unknown } | { kind: "deadline" } | { kind: "interrupted" };

const never = new Promise<never>(() => {});

/**
 * One poll, bounded: it races the time it may take and Ctrl-C. The loser is stopped: the engine
 * call gets an aborted signal, and the wait goes on (or ends) even if the engine ignores it.
 */
async function pollWithin<T>(job: WaitJob<T>, budgetMs: number, outer: AbortSignal, deps: WaitDeps): Promise<Answer<T>> {
  if (outer.aborted) return { kind: "interrupted" };
  const ac = new AbortController();
  const forward = () => ac.abort(outer.reason);
  outer.addEventListener("abort", forward, { once: true });
  try {
    const answer = await Promise.race<Answer<T>>([
      Promise.resolve()
        .then(() => job.poll(ac.signal))
        .then(
          (value): Answer<T> => ({ kind: "value", value }),
          (error: unknown): Answer<T> => ({ kind: "error", error }),
        ),
      deps.timer(budgetMs, ac.signal).then((): Answer<T> | Promise<never> => (ac.signal.aborted ? never : { kind: "deadline" })),
      new Promise<Answer<T>>((resolve) => ac.signal.addEventListener("abort", () => resolve({ kind: "interrupted" }), { once: true })),
    ]);
    // An engine that honours the signal rejects on Ctrl-C: that is the interrupt, not an error.
    return outer.aborted ? { kind: "interrupted" } : answer;
  } finally {
    outer.removeEventListener("abort", forward);
    ac.abort(new Error("poll no longer needed"));
  }
}

/** Waits on every job until each is done or failed, the deadline passes, or Ctrl-C. Never throws for those. */
export async function runWaitAll<T>(spec: MultiWaitSpec<T>, opts: WaitOptions, deps: WaitDeps): Promise<WaitOutcome<T>> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const fixed = opts.intervalMs;
  const schedule: PollSchedule = deps.target === "local" ? localSchedule : spec.schedule;
  const start = deps.now();
  const elapsed = () => deps.now() - start;
  const ac = new AbortController();
  const off = deps.onInterrupt(() => ac.abort(new Error("interrupted")));
  const results: JobResult<T>[] = spec.jobs.map((job) => ({ job, state: "pending", text: "" }));
  const shown = new Map<JobResult<T>, string>();
  let ending: WaitEnding;

  try {
    rounds: for (;;) {
      let rateDelay: number | undefined;
      for (const r of results) {
        if (r.state !== "pending") continue;
        const budget = Math.max(timeoutMs - elapsed(), MIN_POLL_BUDGET_MS);
        const answer = await pollWithin(r.job, budget, ac.signal, deps);
        if (answer.kind === "interrupted") {
          ending = "interrupted";
          break rounds;
        }
        if (answer.kind === "deadline") {
          deps.trace?.(`wait ${r.job.label}: no answer within ${formatDuration(budget)}; giving up`);
          ending = "timeout";
          break rounds;
        }
        if (answer.kind === "error") {
          const c = classifyPollError(answer.error);
          if (c.kind === "fatal") {
            r.state = "error";
            r.error = answer.error;
            continue;
          }
          deps.trace?.(`wait ${r.job.label}: missed poll (${c.reason})`);
          deps.reporter.missed(r.job.label, c.reason, elapsed());
          if (c.kind === "rate") {
            // The limit is the key's, not the job's: the other jobs wait for the window too.
            if (c.resetMs !== undefined) rateDelay = Math.max(c.resetMs - deps.now(), 1000);
            break;
          }
          continue;
        }
        const state = spec.state(answer.value);
        const text = spec.describe(answer.value);
        r.value = answer.value;
        r.text = text;
        const key = `${state}\u0000${text}`;
        if (shown.get(r) !== key) {
          shown.set(r, key);
          deps.reporter.update(r.job.label, state, text, elapsed());
        }
        if (state !== "pending") r.state = state;
      }

      const pending = results.filter((r) => r.state === "pending").length;
      if (pending === 0) {
        ending = "finished";
        break;
      }
      const spent = elapsed();
      if (spent >= timeoutMs) {
        ending = "timeout";
        break;
      }
      const next = rateDelay ?? fixed ?? Math.max(schedule(spent), pending > 1 ? pending * PER_JOB_ROUND_MS : 0);
      await deps.sleep(Math.max(0, Math.min(next, timeoutMs - spent)), ac.signal);
      if (ac.signal.aborted) {
        ending = "interrupted";
        break;
      }
    }
  } finally {
    off();
  }
  deps.reporter.stop(
    ending,
    results.map((r) => ({ label: r.job.label, state: r.state, text: r.text })),
  );
  return { ending, jobs: results };
}

export interface SingleWaitDeps extends WaitDeps {
  /** Prints the last polled object as data (failed and timed-out waits). */
  printFinal(last: unknown, text: string): void;
}

/** One job, the `Context.wait` way: the result, or CliError 7 (failed), 8 (timeout), 130 (Ctrl-C). */
export async function runWait<T>(spec: WaitSpec<T>, opts: WaitOptions, deps: SingleWaitDeps): Promise<T> {
  // WaitSpec.poll takes no argument in its type; the signal is still handed over for pollers that use it.
  const poll = spec.poll as (signal: AbortSignal) => Promise<T>;
  const outcome = await runWaitAll(
    { jobs: [{ id: spec.label, label: spec.label, poll: (signal) => poll(signal) }], state: spec.state, describe: spec.describe, schedule: spec.schedule },
    opts,
    deps,
  );
  const r = outcome.jobs[0]!;
  const lastState = r.text ? ` (last state: ${r.text})` : "";
  if (outcome.ending === "interrupted") {
    throw new CliError(`Stopped waiting for ${spec.label}${lastState}; the job continues. Resume with: ${spec.resume}`, EXIT.interrupted, "interrupted");
  }
  if (outcome.ending === "timeout") {
    if (r.value !== undefined) deps.printFinal(r.value, r.text);
    throw new CliError(
      `Timed out after ${formatDuration(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS)} waiting for ${spec.label}${lastState}; it may still finish. Resume with: ${spec.resume}`,
      EXIT.timeout,
      "timeout",
    );
  }
  if (r.state === "error") throw r.error;
  if (r.state === "failed") {
    deps.printFinal(r.value, r.text);
    throw new CliError(`${spec.label} failed: ${r.text}`, EXIT.jobFailed, "job_failed");
  }
  return r.value as T;
}

export { realSleep } from "./runtime.js";
