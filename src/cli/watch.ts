/**
 * `--watch`/`--download` for start and status commands: every job is waited on under one deadline,
 * completed results are saved, and every job is reported whatever the ending, so nothing that was
 * paid for disappears from the output:
 * - `--json`: stdout holds the object of each job (one object for one job, an array for several),
 *   with `saved` (the path) when its file was saved; a job whose status was never read is
 *   `{ <id field>: id, status: "unknown" }`; each saved file is also an NDJSON line `{"id","saved"}`
 *   on stderr;
 * - `-q`: one line per job: the saved path, else the id;
 * - otherwise: one block per job on stdout (the saved path, or its last state).
 * Exit: 130 (Ctrl-C) > an error that ended a job's wait (404…) > 8 (timeout) > 7 (failed) > a failed
 * download; the resume command lists every job that still needs it.
 */
import type { PollSchedule } from "../contract/poll.js";
import type { Target } from "../engine/engine.js";
import type { JobKind } from "./journal.js";
import type { CommandContext } from "./command-context.js";
import { CliError, EXIT } from "./types.js";
import { DEFAULT_TIMEOUT_MS, type JobResult, type WaitJob, type WaitState } from "./wait.js";
import { waitOptionsFrom, formatDuration } from "./parse.js";
import { prepareDir } from "./download.js";
import { resumeCommand } from "./resume.js";
import { toJson } from "./output.js";
import { serviceBody } from "../engine/service-body.js";

export interface WatchKind<T> {
  state(t: T): WaitState;
  /** A short state for progress lines and the spinner ("generating", "failed"). */
  describe(t: T): string;
  /**
   * Why a failed job failed and what happened to its credits, said once, in the error that ends the
   * command ("generation_failed: out of memory; 32 credits refunded"). Default: `describe`.
   */
  failure?(t: T, target: Target): string;
  schedule: PollSchedule;
  /** The object printed for a job whose status was never read. */
  unknown(job: WaitJob<T>): Record<string, unknown>;
  /** Human lines for a job's last object. */
  human(value: T): string[];
  /** What --download saves from a completed job; undefined when it has nothing to save. */
  file?(value: T): { url: string; name: string } | undefined;
  /** The words after `mediagen` that resume the wait for these jobs (download flags are added). */
  resumeArgs(jobs: readonly WaitJob<T>[]): string[];
  /** The journal's kind for these jobs: their ending and saved file are recorded there (history). */
  journal?: JobKind;
  /** What the journal keeps of a job's last object (default: its `status`). */
  journalFields?(value: T): { status?: string; video_id?: string };
}

export interface WatchFlags {
  download?: string;
  force?: boolean;
  timeout?: string;
  interval?: string;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

function labelsOf<T>(results: readonly JobResult<T>[]): string {
  return results.map((r) => `${r.job.label}${r.text ? ` (last state: ${r.text})` : ""}`).join(", ");
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function watchJobs<T>(ctx: CommandContext, jobs: readonly WaitJob<T>[], kind: WatchKind<T>, flags: WatchFlags): Promise<void> {
  const waitOpts = waitOptionsFrom(flags);
  const dir = flags.download !== undefined ? prepareDir(flags.download) : undefined;
  // One Ctrl-C handler for the wait and the downloads after it: no moment where SIGINT kills silently.
  const ac = new AbortController();
  const off = ctx.onInterrupt(() => ac.abort(new Error("interrupted")));
  let offTerminate = () => {};
  try {
    const outcome = await ctx.waitAll({ jobs, state: kind.state, describe: kind.describe, schedule: kind.schedule }, waitOpts, ac.signal);
    let interrupted = outcome.ending === "interrupted";
    const saved = new Map<WaitJob<T>, string>();
    const saveErrors: unknown[] = [];
    // While files are saved, SIGTERM stops too (a partial file is removed, not left behind).
    if (dir !== undefined && !interrupted) offTerminate = ctx.onInterrupt(() => ac.abort(new Error("interrupted")), { terminate: true });
    if (dir !== undefined && !interrupted) {
      for (const r of outcome.jobs) {
        if (r.state !== "done") continue;
        const file = kind.file?.(r.value as T);
        if (!file) {
          saveErrors.push(new CliError(`${r.job.label} completed without a file to download`, EXIT.error, "no_url"));
          continue;
        }
        try {
          saved.set(r.job, await ctx.save(file.url, dir, file.name, { force: flags.force === true, signal: ac.signal }));
        } catch (e) {
          if (e instanceof CliError && e.exitCode === EXIT.interrupted) {
            interrupted = true;
            break;
          }
          saveErrors.push(e);
        }
      }
    }
    offTerminate();
    offTerminate = () => {};

    printJobs(ctx, outcome.jobs, kind, saved);
    if (kind.journal) await journalOutcome(ctx, kind, kind.journal, outcome.jobs, saved);

    const resume = (rs: readonly JobResult<T>[]) => {
      const words = kind.resumeArgs(rs.map((r) => r.job));
      if (dir !== undefined) words.push("--download", dir, ...(flags.force ? ["--force"] : []));
      return resumeCommand(ctx.opts, words);
    };
    // A job needs resuming while it may still change, or when its file is still to be saved.
    const unfinished = outcome.jobs.filter((r) => r.state === "pending" || (r.state === "done" && dir !== undefined && !saved.has(r.job)));
    const problems: unknown[] = [];
    if (interrupted) {
      problems.push(
        new CliError(
          `Stopped waiting for ${labelsOf(unfinished)}; ${plural(unfinished.length, "the job continues", "the jobs continue")}. Resume with: ${resume(unfinished)}`,
          EXIT.interrupted,
          "interrupted",
        ),
      );
    }
    const errored = outcome.jobs.filter((r) => r.state === "error");
    // With one job the service's error is reported as it is (a 404 stays a 404).
    for (const r of errored) problems.push(outcome.jobs.length === 1 ? r.error : annotate(r));
    const pending = outcome.jobs.filter((r) => r.state === "pending");
    if (outcome.ending === "timeout" && !interrupted) {
      problems.push(
        new CliError(
          `Timed out after ${formatDuration(waitOpts.timeoutMs ?? DEFAULT_TIMEOUT_MS)} waiting for ${labelsOf(pending)}; ${plural(pending.length, "it", "they")} may still finish. Resume with: ${resume(unfinished)}`,
          EXIT.timeout,
          "timeout",
        ),
      );
    }
    const target = await ctx.target();
    for (const r of outcome.jobs.filter((x) => x.state === "failed")) {
      const why = kind.failure && r.value !== undefined ? kind.failure(r.value, target) : r.text;
      problems.push(new CliError(`${r.job.label} failed: ${why}`, EXIT.jobFailed, "job_failed"));
    }
    problems.push(...saveErrors);
    if (!problems.length) return;
    // The first problem decides the exit code; the others still reach the user.
    for (const p of problems.slice(1)) ctx.io.warn(`Also: ${messageOf(p)}`);
    throw problems[0];
  } finally {
    offTerminate();
    off();
  }
}

/** What the wait learnt, into the journal: each job's last status, and the file saved for it. */
async function journalOutcome<T>(ctx: CommandContext, kind: WatchKind<T>, journal: JobKind, results: readonly JobResult<T>[], saved: Map<WaitJob<T>, string>) {
  const updates = results
    .filter((r) => r.value !== undefined)
    .map((r) => {
      const status = (r.value as { status?: unknown }).status;
      const fields: { status?: string; video_id?: string } = kind.journalFields ? kind.journalFields(r.value as T) : typeof status === "string" ? { status } : {};
      const p = saved.get(r.job);
      return {
        kind: journal,
        id: r.job.id,
        ...(fields.status !== undefined ? { status: fields.status } : {}),
        ...(fields.video_id ? { video_id: fields.video_id } : {}),
        ...(p !== undefined ? { saved: p } : {}),
      };
    });
  await ctx.recordUpdates(updates);
}

/** An error that ended one of several jobs, named after the job (the exit code still follows the error). */
function annotate<T>(r: JobResult<T>): unknown {
  const e = r.error as { message?: unknown };
  if (e && typeof e === "object" && typeof e.message === "string" && !e.message.includes(r.job.id)) {
    try {
      e.message = `${r.job.label}: ${e.message}`;
    } catch {
      // a frozen error keeps its message
    }
  }
  return r.error;
}

function printJobs<T>(ctx: CommandContext, results: readonly JobResult<T>[], kind: WatchKind<T>, saved: Map<WaitJob<T>, string>): void {
  if (ctx.opts.json) {
    // One document: the service's bodies as sent (an odd field a command read as absent is still
    // printed), and a saved file in its job's object (`saved`), as well as on stderr.
    const objects = results.map((r) => {
      const o = r.value !== undefined ? serviceBody(r.value) : kind.unknown(r.job);
      const p = saved.get(r.job);
      return p !== undefined && o && typeof o === "object" ? { ...o, saved: p } : o;
    });
    ctx.io.out(toJson(objects.length === 1 ? objects[0] : objects));
    for (const r of results) {
      const p = saved.get(r.job);
      if (p !== undefined) ctx.io.info(JSON.stringify({ id: r.job.id, saved: p }));
    }
    return;
  }
  if (ctx.opts.quiet) {
    for (const r of results) ctx.io.out(saved.get(r.job) ?? r.job.id);
    return;
  }
  for (const r of results) {
    const p = saved.get(r.job);
    if (p !== undefined) ctx.io.out(p);
    else if (r.value !== undefined) for (const line of kind.human(r.value)) ctx.io.out(line);
    else ctx.io.out(`${r.job.label}: status unknown`);
  }
}
