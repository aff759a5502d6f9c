/**
 * The `Next:` line after a start on a terminal: the command that follows what was started, from
 * the job's life (a job with a status is followed by `download <id> --watch`; a video is exported).
 * Talk on stderr, for people only: not with --json or -q, not off a terminal.
 */
import type { Context } from "./types.js";
import { resumeCommand } from "./resume.js";

export async function printNext(ctx: Context, op: string, input: Record<string, unknown>, res: unknown): Promise<void> {
  if (ctx.opts.json || ctx.opts.quiet || !ctx.io.isStderrTTY) return;
  const { jobLife, startedBy } = await import("../features/lives.js");
  const job = startedBy(op, input, res)[0];
  if (!job) return;
  const life = jobLife(job.kind);
  const next = life.nextStep ? life.nextStep(job.id) : life.status ? resumeCommand(ctx.opts, ["download", job.id, "--watch"]) : undefined;
  if (next) ctx.io.info(`Next: ${next}`);
}
