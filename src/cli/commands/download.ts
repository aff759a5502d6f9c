/**
 * `mediagen download <id>`: saves the result of a finished job without knowing which command
 * started it. The journal (src/cli/journal.ts) says what the id is (asset, look, generation, export)
 * and on which target it was started; an id the journal does not know is read by its shape (an
 * asset's 24 hex characters, a generation's `run_…`). What is saved: an asset's file, a look's
 * picture, a generation's video thumbnail (the video itself comes from an export), an export's video.
 */
import type { Command } from "commander";
import { CliError, EXIT, type CommandModule, type ContextGetter } from "../types.js";
import type { CliContext } from "../context.js";
import { examples } from "../help-text.js";
import { defineFlags, type FlagInput } from "../flags.js";
import type { JobKind, HistoryEntry } from "../journal.js";
import type { WatchKind } from "../watch.js";
import type { WaitJob } from "../wait.js";
import type { Engine } from "../../engine/engine.js";
import type { ExportJob } from "../../features/export/contract.js";

const FLAGS = defineFlags({
  dir: { flag: "--dir <dir>", type: "string", help: "directory to save into (default: the current one)" },
  force: { flag: "--force", type: "boolean", help: "overwrite an existing file" },
  show: { flag: "--show", type: "boolean", help: "draw the saved picture (a video's first frame) in the terminal, where it can (kitty, iTerm2)" },
  watch: { flag: "--watch", type: "boolean", help: "wait for the job to finish first" },
  timeout: { flag: "--timeout <duration>", type: "string", help: "with --watch: give up waiting after this long (default 20m)" },
  interval: { flag: "--interval <duration>", type: "string", help: "with --watch: poll interval (default: the service's schedule)" },
});
type Flags = FlagInput<typeof FLAGS>;

interface Plan<T> {
  jobs: WaitJob<T>[];
  kind: WatchKind<T>;
}

/** An id the journal does not know, by its shape. */
function guessKind(id: string): JobKind | undefined {
  if (/^[0-9a-f]{24}$/i.test(id)) return "asset";
  if (/^run_/.test(id)) return "generation";
  return undefined;
}

/** An export's video (the export command is the export feature's; this reads its status). */
function exportWatch(engine: Engine, jobId: string): Plan<ExportJob> {
  return {
    jobs: [{ id: jobId, label: `export ${jobId}`, poll: (signal) => engine.exportStatus({ job_id: jobId }, { signal }) }],
    kind: {
      journal: "export",
      state: (x) => (x.status === "completed" ? "done" : x.status === "failed" ? "failed" : "pending"),
      describe: (x) => (x.status === "processing" && typeof x.progress === "number" ? `processing ${x.progress}%` : x.status),
      failure: (x) => (x.error ? `${x.error.code}: ${x.error.message}` : "no reason given"),
      schedule: (ms) => (ms < 30_000 ? 3_000 : ms < 120_000 ? 5_000 : 10_000),
      unknown: (job) => ({ job_id: job.id, status: "unknown" }),
      human: (x) => [`${x.job_id}  ${x.status}`],
      file: (x) => (x.result?.video_url ? { url: x.result.video_url, name: `${x.job_id}.mp4` } : undefined),
      resumeArgs: (js) => ["download", ...js.map((j) => j.id), "--watch"],
    },
  };
}

async function planFor(kind: JobKind, id: string, entry: HistoryEntry | undefined, engine: Engine): Promise<Plan<unknown>> {
  switch (kind) {
    case "asset":
      return (await import("../../features/asset/cli.js")).assetWatch(engine, [id]) as Plan<unknown>;
    case "look": {
      if (!entry?.avatar_id) {
        throw new CliError(`look ${id}: its avatar is unknown here; use: mediagen avatar look <avatar_id> ${id} --download <dir>`, EXIT.usage, "unknown_avatar", "id");
      }
      return (await import("../../features/avatar/cli.js")).lookWatch(engine, { avatar_id: entry.avatar_id, look_id: id }) as Plan<unknown>;
    }
    case "generation":
      return (await import("../../features/generation/cli.js")).generationWatch(engine, id) as Plan<unknown>;
    case "export":
      return exportWatch(engine, id) as Plan<unknown>;
  }
}

export const command: CommandModule = {
  register(download: Command, getContext: ContextGetter) {
    FLAGS.addTo(download.argument("<id>", "the job's id: an asset, a look, a generation (its video thumbnail) or an export"));
    download.action(async (id: string, opts: Flags, cmd: Command) => {
      const ctx = getContext(cmd) as CliContext;
      const flags = FLAGS.values(opts);
      const { findJob } = await import("../journal.js");
      const entry = findJob(ctx.home, id, ctx.opts.target);
      const kind = entry?.kind ?? guessKind(id);
      if (!kind) {
        throw new CliError(
          `${id} is not in this machine's history (mediagen history), and is not an asset or generation id; ` +
            "for a look use: mediagen avatar look <avatar_id> <look_id> --download <dir>",
          EXIT.notFound,
          "not_in_history",
          "id",
        );
      }
      // The job is read where it was started, unless the line names a target.
      if (entry) ctx.useTarget({ target: entry.target, baseUrl: entry.base_url, profile: entry.profile });
      const dir = flags.dir ?? ".";
      const engine = await ctx.engine();
      const { jobs, kind: watchKind } = await planFor(kind, id, entry, engine);
      if (kind === "generation" && !ctx.opts.json) ctx.io.info(`A generation makes a video to export; saving its thumbnail (the video comes from an export).`);

      const { watchJobs } = await import("../watch.js");
      const { prepareDir } = await import("../download.js");
      prepareDir(dir, "--dir");
      if (flags.watch) {
        await watchJobs(ctx, jobs, watchKind, {
          download: dir,
          ...(flags.force ? { force: true } : {}),
          ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
          ...(flags.interval !== undefined ? { interval: flags.interval } : {}),
        });
        return;
      }
      const job = jobs[0]!;
      const value = await job.poll(new AbortController().signal);
      const state = watchKind.state(value);
      if (state === "pending") {
        const { resumeCommand } = await import("../resume.js");
        throw new CliError(
          `${job.label} is not finished yet (${watchKind.describe(value)}); wait for it with: ${resumeCommand(ctx.opts, ["download", id, "--watch", ...(flags.dir ? ["--dir", flags.dir] : [])])}`,
          EXIT.timeout,
          "not_finished",
        );
      }
      if (state === "failed") {
        const target = await ctx.target();
        throw new CliError(`${job.label} failed: ${watchKind.failure ? watchKind.failure(value, target) : watchKind.describe(value)}`, EXIT.jobFailed, "job_failed");
      }
      const file = watchKind.file?.(value);
      if (!file) throw new CliError(`${job.label} completed without a file to download`, EXIT.error, "no_url");
      const { resumeCommand } = await import("../resume.js");
      const saved = await ctx.save(file.url, dir, file.name, {
        force: flags.force === true,
        resume: resumeCommand(ctx.opts, ["download", id, ...(flags.dir ? ["--dir", flags.dir] : []), ...(flags.force ? ["--force"] : [])]),
      });
      const status = (value as { status?: unknown }).status;
      await ctx.recordUpdates([{ kind, id, saved, ...(typeof status === "string" ? { status } : {}) }]);
      if (ctx.opts.json) {
        ctx.io.out(JSON.stringify({ id, kind, saved }, null, 2));
        return;
      }
      ctx.io.out(saved);
    });
    examples(download, [
      "mediagen download 65f0c2a1b3e4d5f6a7b8c9d0",
      "mediagen download lk_0123456789abcdef01234567 --dir thumbs/",
      "mediagen download run_0123456789abcdef01234567 --watch --dir out/",
      "mediagen download $(mediagen ls --kind asset --limit 1 -q) --dir out/ --force",
    ]);
  },
};
