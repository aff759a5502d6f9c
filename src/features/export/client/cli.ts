/**
 * `mediagen export <video_id>` (POST /export/start; `export start` is the same command spelled out)
 * and `mediagen export status <job_id>` (GET /export/status/{job_id}). `--watch` follows the job on
 * stderr with its step, percent and a progress bar (one line per change when stderr is not a
 * terminal), on the spec's export schedule (3 s, 5 s after 30 s, 10 s after 2 min; the local target
 * polls faster); `--download file.mp4|dir` saves the MP4 once it is done. `runExport` is also what
 * `mediagen generate --export` calls once its video is done.
 */
import path from "node:path";
import type { Command } from "commander";
import { CliError, EXIT } from "../../../cli/types.js";
import type { CommandModule } from "../../../cli/command-context.js";
import { examples, SHOW_HELP, waitTimingFlags } from "../../../cli/help-text.js";
import { addWebhookListen } from "../../../cli/webhook-listen.js";
import { keyValues } from "../../../cli/output.js";
import { BODY_FLAG, defineFlags, flagError, type FlagInput } from "../../../cli/flags.js";
import { START_GUARD_FLAGS } from "../../../cli/cost-guard.js";
import { parseSimulate, waitOptionsFrom } from "../../../cli/parse.js";
import { shellQuote, withGlobalFlags } from "../../../cli/resume.js";
import { exportSchedule } from "../../../contract/poll.js";
import type { Engine } from "../../../engine/engine.js";
import type { CommandContext } from "../../../cli/command-context.js";
import type { ExportJob, ExportStartResponse } from "../contract.js";
import { exportLife } from "../life.js";
import { jobErrorText, lifeState } from "../../life.js";

import { EXPORT_FORMATS as FORMATS } from "../../../contract/export-formats.js";

export const EXPORT_FLAGS = defineFlags({
  format: {
    flag: "--format <format>",
    type: "choice",
    choices: FORMATS,
    help: "vertical (1080x1920), square (1080x1080), ads (1080x1350), horizontal (1920x1080) or custom; default: the video's own",
    field: "format",
  },
  width: { flag: "--width <px>", type: "integer", help: "with --format custom: width, 1 to 5000 (default 1080; odd sizes are rounded up to even)", field: "width" },
  height: { flag: "--height <px>", type: "integer", help: "with --format custom: height, 1 to 5000 (default 1920; odd sizes are rounded up to even)", field: "height" },
  avatarModel: {
    flag: "--avatar-model <model>",
    type: "string",
    help: "avatar_model: one of the video's looks' model_available (see `mediagen avatar look`), sent as given; the service picks a default when omitted",
    field: "avatar_model",
  },
  webhook: { flag: "--webhook <url>", type: "string", help: "webhook_url: notified when the export completes or fails", field: "webhook_url" },
  body: BODY_FLAG,
  ...START_GUARD_FLAGS,
  simulate: {
    flag: "--simulate <mode>",
    type: "string",
    to: (value: string) => parseSimulate(value)!,
    help: "local instance only: fail or fail:<CODE> makes the export fail (refunded)",
  },
});
export type ExportFlags = FlagInput<typeof EXPORT_FLAGS>;

/** The flags that follow a job: shared by `export`, `export status` and `generate --export`. */
export interface ExportWaitFlags {
  watch?: boolean;
  download?: string;
  force?: boolean;
  timeout?: string;
  interval?: string;
}

/** `--watch`, `--download`, `--force`, `--show`, `--timeout`, `--interval` of an export's wait. */
export const EXPORT_WAIT_FLAGS = defineFlags({
  watch: { flag: "--watch", type: "boolean", help: "wait until the export completes (or fails), with a progress bar on stderr" },
  download: {
    flag: "--download <file.mp4|dir>",
    type: "string",
    help: "save the MP4 as this file (a path ending in .mp4) or into this directory as <job_id>.mp4 (implies --watch)",
  },
  force: { flag: "--force", type: "boolean", help: "overwrite an existing file when downloading" },
  show: { flag: "--show", type: "boolean", help: SHOW_HELP },
  ...waitTimingFlags("the spec's export schedule; faster on the local target"),
});

// ---- output ---------------------------------------------------------------------------------------

/** "2 credits"; a figure the service's answer left out reads "? credits". */
const credits = (n: number | null | undefined) => (typeof n === "number" ? `${n} credit${n === 1 ? "" : "s"}` : "? credits");
const BAR = 24;

/** `[██████░░░░…]`: the part done of a fixed-width bar. */
export function progressBar(pct: number, width = BAR): string {
  const done = Math.max(0, Math.min(width, Math.round((pct / 100) * width)));
  return `[${"█".repeat(done)}${"░".repeat(width - done)}]`;
}

/** One short line for a status: the step and percent while it runs (with a bar for a terminal). */
export function exportText(s: ExportJob, bar = false): string {
  if (s.status === "failed") return `failed (${s.error?.code ?? "EXPORT_FAILED"}: ${s.error?.message ?? "no message"})`;
  if (s.status === "completed") return "completed";
  if (s.status === "pending") return "pending (queued)";
  if (typeof s.progress !== "number") return s.current_step ?? s.status;
  return `${s.current_step ?? s.status} ${s.progress}%${bar ? ` ${progressBar(s.progress)}` : ""}`;
}

export function exportLines(s: ExportJob): string[] {
  const r = s.result;
  const pairs: [string, unknown][] = [
    ["job", s.job_id],
    ["status", s.status],
    ["step", s.status === "completed" || !s.current_step ? null : typeof s.progress === "number" ? `${s.current_step} (${s.progress}%)` : s.current_step],
    ["video", r?.video_url ?? null],
    ["thumbnail", r?.thumbnail_url ?? null],
    ["cost", typeof r?.cost === "number" ? credits(r.cost) : null],
    ["created", r?.created_at ?? null],
    ["error", s.error ? jobErrorText(s.error) : null],
  ];
  return keyValues(pairs.filter(([, v]) => v !== null));
}

/** Its terminal states are its life's (./life.ts). */
const exportState = (s: ExportJob) => lifeState(exportLife.jobs!.export!, s as unknown as Record<string, unknown>);

// ---- download target ------------------------------------------------------------------------------

export interface DownloadTarget {
  dir: string;
  /** The file name; undefined: `<job_id>.mp4`. */
  name?: string;
}

/** `--download`: a path ending in `.mp4` names the file; anything else is a directory. */
export function downloadTarget(value: string): DownloadTarget {
  const v = value.trim();
  if (!v) throw flagError("--download", "expected a file name ending in .mp4 or a directory");
  if (/\.mp4$/i.test(v)) {
    const abs = path.resolve(v);
    return { dir: path.dirname(abs), name: path.basename(abs) };
  }
  return { dir: path.resolve(v) };
}

/** Checks the target before anything is paid for: a writable directory, and no file in the way without --force. */
async function checkDownload(flags: ExportWaitFlags): Promise<DownloadTarget | undefined> {
  if (flags.download === undefined) return undefined;
  const target = downloadTarget(flags.download);
  const [{ prepareDir }, fs] = await Promise.all([import("../../../cli/download.js"), import("node:fs")]);
  prepareDir(target.dir);
  if (target.name && !flags.force && fs.existsSync(path.join(target.dir, target.name))) {
    throw new CliError(`${path.join(target.dir, target.name)} already exists; pass --force to overwrite`, EXIT.usage, "file_exists", "--download");
  }
  return target;
}

/** Bad --timeout/--interval/--download fail before anything is started (or debited). */
export async function checkExportWaitFlags(flags: ExportWaitFlags): Promise<void> {
  waitOptionsFrom(flags);
  await checkDownload(flags);
}

// ---- following a job ------------------------------------------------------------------------------

/**
 * Waits for an export (progress on stderr), saves its MP4 with --download, and prints the outcome:
 * the saved path (or the status) for people, the status object with --json (and a `{"id","saved"}`
 * line on stderr), the path or the job id with -q. A failed export is exit 7, a timeout 8, Ctrl-C 130.
 */
export async function followExport(ctx: CommandContext, engine: Engine, jobId: string, flags: ExportWaitFlags, madeBy?: string): Promise<ExportJob> {
  const target = await checkDownload(flags);
  const resume = [
    "mediagen",
    "export",
    "status",
    jobId,
    "--watch",
    ...(flags.download !== undefined ? ["--download", flags.download] : []),
    ...(flags.force ? ["--force"] : []),
  ]
    .map(shellQuote)
    .join(" ");
  const bar = ctx.io.isStderrTTY;
  const last = await ctx.wait<ExportJob>(
    {
      label: `export ${jobId}`,
      poll: (signal: AbortSignal) => engine.exportStatus({ job_id: jobId }, { signal }),
      state: exportState,
      describe: (s) => exportText(s, bar),
      schedule: exportSchedule,
      resume,
    },
    waitOptionsFrom(flags),
  );
  let saved: string | undefined;
  if (target) {
    const url = last.result?.video_url;
    if (!url) throw new CliError(`export ${jobId} completed without a video_url to download`, EXIT.error, "no_url");
    // Ctrl-C during the download prints the same resume command as during the wait.
    saved = await ctx.save(url, target.dir, target.name ?? `${jobId}.mp4`, { force: flags.force === true, resume: withGlobalFlags(ctx.opts, resume) });
  }
  // The history keeps the ending and the file, on the export's row and on the generation that made its video.
  const file = saved !== undefined ? { saved } : {};
  await ctx.recordUpdates?.([
    { kind: "export", id: jobId, status: last.status, ...file },
    ...(madeBy && saved !== undefined ? [{ kind: "generation" as const, id: madeBy, saved }] : []),
  ]);
  if (ctx.opts.json) {
    ctx.print(saved !== undefined ? { ...last, saved } : last, () => []);
    if (saved !== undefined) ctx.io.info(JSON.stringify({ id: jobId, saved }));
  } else if (ctx.opts.quiet) {
    ctx.io.out(saved ?? jobId);
  } else if (saved !== undefined) {
    ctx.io.out(saved);
  } else {
    ctx.print(last, exportLines);
  }
  return last;
}

/**
 * POST /export/start with `body`, then (with --watch or --download) follows the job. Without a wait
 * stdout carries the job id; the price is talk on stderr.
 */
export async function runExport(
  ctx: CommandContext,
  engine: Engine,
  body: Record<string, unknown>,
  flags: ExportWaitFlags,
  simulate?: string,
  madeBy?: string,
): Promise<void> {
  const wait = flags.watch === true || flags.download !== undefined;
  if (wait) await checkExportWaitFlags(flags);
  const res = await engine.exportStart(body, simulate ? { simulate } : {});
  if (!ctx.opts.json) ctx.io.info(`Started export ${res.job_id}: ${credits(res.estimated_credits)} (estimated, debited now)`);
  if (!wait) {
    ctx.print(
      res,
      (r: ExportStartResponse) => [r.job_id],
      (r) => [r.job_id],
    );
    const { printNext } = await import("../../../cli/next-step.js");
    await printNext(ctx, "exportStart", body, res);
    return;
  }
  await followExport(ctx, engine, res.job_id, flags, madeBy);
}

// ---- commands -------------------------------------------------------------------------------------

type StartOptions = ExportFlags & ExportWaitFlags;

export const exportCommand: CommandModule = {
  register(group: Command, getContext) {
    examples(group, [
      "mediagen export 65f0c2a1b3e4d5f6a7b8c9d0 --watch --download video.mp4",
      "mediagen export 65f0c2a1b3e4d5f6a7b8c9d0 --format custom --width 720 --height 720 --json",
      "mediagen export status exp_0123456789abcdef01234567 --watch",
    ]);

    const start = EXPORT_FLAGS.addTo(
      group.command("start [video_id]", { isDefault: true }).description("Export a done video to an MP4 (POST /export/start); `mediagen export <video_id>` is the same"),
    );
    EXPORT_WAIT_FLAGS.addTo(start).action(async (videoId: string | undefined, opts: StartOptions, cmd: Command) => {
      const ctx = getContext(cmd);
      const flags = EXPORT_FLAGS.values(opts);
      const body = EXPORT_FLAGS.request(flags, flags.body ? await ctx.readBody(flags.body) : {});
      ctx.explainWith?.(EXPORT_FLAGS.givenFlags(flags), body);
      if (videoId !== undefined) body.video_id = videoId;
      if (body.video_id === undefined) throw new CliError("missing <video_id>", EXIT.usage, "missing_field", "video_id");
      if ((flags.width !== undefined || flags.height !== undefined) && (body.format ?? "custom") !== "custom") {
        throw flagError(flags.width !== undefined ? "--width" : "--height", "needs --format custom", "usage_error");
      }
      if ((flags.width !== undefined || flags.height !== undefined) && body.format === undefined) body.format = "custom";
      if (!flags.dryRun && (opts.watch || opts.download !== undefined)) await checkExportWaitFlags(opts);
      const engine = await ctx.engine();
      const { guardStart } = await import("../../../cli/cost-guard.js");
      if ((await guardStart(ctx, engine, "exportStart", body, flags)) === "dry-run") return;
      await runExport(ctx, engine, body, opts, flags.simulate);
    });
    addWebhookListen(start, getContext, { fields: ["webhook"] });
    examples(start, [
      "mediagen export 65f0c2a1b3e4d5f6a7b8c9d0",
      "mediagen export 65f0c2a1b3e4d5f6a7b8c9d0 --format square --watch",
      "mediagen export 65f0c2a1b3e4d5f6a7b8c9d0 --width 720 --height 720 --download out/",
      "mediagen export 65f0c2a1b3e4d5f6a7b8c9d0 --format horizontal --dry-run",
      "mediagen export 65f0c2a1b3e4d5f6a7b8c9d0 --avatar-model premium --webhook https://example.com/hook -q",
    ]);

    const status = group.command("status <job_id>").description("Status of an export job: step, progress, and the file when completed (GET /export/status/{job_id})");
    EXPORT_WAIT_FLAGS.addTo(status).action(async (jobId: string, opts: ExportWaitFlags, cmd: Command) => {
      const ctx = getContext(cmd);
      const wait = opts.watch === true || opts.download !== undefined;
      if (wait) await checkExportWaitFlags(opts);
      const engine = await ctx.engine();
      if (wait) {
        await followExport(ctx, engine, jobId, opts);
        return;
      }
      const s = await engine.exportStatus({ job_id: jobId });
      ctx.print(s, exportLines, (x) => [x.job_id ?? jobId]);
    });
    examples(status, [
      "mediagen export status exp_0123456789abcdef01234567",
      "mediagen export status exp_0123456789abcdef01234567 --watch --download video.mp4",
      "mediagen export status exp_0123456789abcdef01234567 --json",
    ]);
  },
};
