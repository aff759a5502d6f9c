/**
 * `mediagen download <id>`: saves the result of any job without knowing which command started it.
 * What the id is comes from this machine's history (src/cli/journal.ts: its kind, and the target it
 * was started on), else from the target itself (the id's possible kinds, by the shapes their lives
 * give, asked in turn with free status reads), never from a prefix guess alone. What is saved is the
 * job's result as its life says (src/features/lives.ts): an asset's file, a look's picture, a
 * generation's video thumbnail, an export's MP4, a script's text. A video (a generation's result, a
 * duplicate) has no file of its own: the MP4 of the export this machine made of it is saved, and
 * without one the answer is the export command that makes one.
 */
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandModule, ContextGetter } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { defineFlags, type FlagInput } from "../flags.js";
import type { HistoryEntry } from "../journal.js";
import type { Engine } from "../../engine/engine.js";
import type { JobKindName, StartedJob } from "../../features/life.js";

const FLAGS = defineFlags({
  dir: { flag: "--dir <dir>", type: "string", help: "directory to save into (default: the current one)" },
  name: {
    flag: "--name <template>",
    type: "string",
    help: "name the file from the job: {prompt}, {id}, {kind}, {model}, {video_id}, {date}; slugged, and made unique (never overwrites); default <id>.<ext>",
  },
  force: { flag: "--force", type: "boolean", help: "overwrite an existing file" },
  show: { flag: "--show", type: "boolean", help: "draw the saved picture (a video's first frame) in the terminal, where it can (kitty, iTerm2)" },
  watch: { flag: "--watch", type: "boolean", help: "wait for the job to finish first" },
  timeout: { flag: "--timeout <duration>", type: "string", help: "with --watch: give up waiting after this long (default 20m)" },
  interval: { flag: "--interval <duration>", type: "string", help: "with --watch: poll interval (default: the service's schedule)" },
});
type Flags = FlagInput<typeof FLAGS>;

/** What `download` knows of the id: its kind, the history's row, and a first status read (probed). */
interface Resolved {
  kind: JobKindName;
  entry?: HistoryEntry;
  first?: unknown;
}

const isNotFound = (e: unknown) => (e as { name?: string; status?: number })?.name === "ApiError" && (e as { status?: number }).status === 404;

/** A video has no file of its own: the command that makes one. */
function videoAnswer(ctx: CommandContext, id: string, how: string): CliError {
  return new CliError(
    `${id} is a video (${how}): it has no file of its own until it is exported. Export it with: ${exportCommand(ctx, id)}`,
    EXIT.usage,
    "is_video",
    "id",
  );
}

function exportCommand(ctx: CommandContext, videoId: string): string {
  const target = ctx.opts.target ? ` --target ${ctx.opts.target}` : "";
  return `mediagen export ${videoId} --download ${videoId}.mp4${target}`;
}

/**
 * An id the history does not know: the kinds its shape allows are asked on the target, in turn, with
 * their status reads (free); the first that knows it wins. A 24-hex id no status read knows may be a
 * video, which has no read of its own: the answer says how to export it.
 */
async function probe(ctx: CommandContext, engine: Engine, id: string): Promise<Resolved> {
  const { kindsByShape, jobLife } = await import("../../features/lives.js");
  const kinds = kindsByShape(id);
  for (const kind of kinds) {
    const life = jobLife(kind);
    if (!life.status || kind === "look") continue;
    try {
      return { kind, first: await engine.call(life.status.op as never, life.status.request({ kind, id }) as never) };
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  if (kinds.includes("video")) {
    throw new CliError(
      `${id} is not an asset on this target, and is not in this machine's history (mediagen history). If it is a video (a generation's video_id or a duplicate), export it with: ${exportCommand(ctx, id)}`,
      EXIT.notFound,
      "not_found",
      "id",
    );
  }
  if (kinds.includes("look")) {
    throw new CliError(`look ${id}: its avatar is unknown here; use: mediagen avatar look <avatar_id> ${id} --download <dir>`, EXIT.usage, "unknown_avatar", "id");
  }
  throw new CliError(
    `${id} is not in this machine's history (mediagen history), and no job of this target has that id shape; ` +
      "for a look use: mediagen avatar look <avatar_id> <look_id> --download <dir>",
    EXIT.notFound,
    "not_in_history",
    "id",
  );
}

/** The history's word on the id, or the target's. */
async function resolve(ctx: CommandContext, id: string): Promise<Resolved & { engine: Engine }> {
  const { findJob, readHistory } = await import("../journal.js");
  let entry = findJob(ctx.home, id, ctx.opts.target);
  if (!entry) {
    // A video: its MP4 is that of the export made from it (the latest that did not fail), if any.
    const rows = readHistory(ctx.home).filter((j) => j.video_id === id && j.id !== id && (ctx.opts.target === undefined || j.target === ctx.opts.target));
    const exported = rows.find((j) => j.kind === "export" && j.status !== "failed");
    if (exported) {
      if (!ctx.opts.json) ctx.io.info(`${id} is a video; saving the MP4 of its export ${exported.id}`);
      entry = exported;
    } else {
      const maker = rows.find((j) => j.kind !== "export") ?? rows[0];
      if (maker) throw videoAnswer(ctx, id, `made by ${maker.kind} ${maker.id}`);
    }
  }
  // The job is read where it was started, unless the line names a target.
  if (entry) ctx.useTarget({ target: entry.target, baseUrl: entry.base_url, profile: entry.profile });
  const engine = await ctx.engine();
  if (entry) return { kind: entry.kind, entry, engine };
  return { ...(await probe(ctx, engine, id)), engine };
}

/**
 * A job whose result came with its start (a script's text): copied from where the history keeps it
 * (this machine's own file, whichever target made it), through a temporary file, never over a file
 * without --force.
 */
function copySaved(entry: HistoryEntry, dir: string, name: string, force: boolean): string {
  if (!entry.saved || !fs.existsSync(entry.saved)) {
    throw new CliError(`${entry.kind} ${entry.id}: its text is no longer kept here (${entry.saved ?? "never saved"})`, EXIT.notFound, "no_result", "id");
  }
  const dest = path.join(dir, name);
  if (!force && fs.existsSync(dest)) throw new CliError(`${dest} already exists; pass --force to overwrite`, EXIT.usage, "file_exists", "--force");
  const tmp = `${dest}.${process.pid}.tmp`;
  fs.copyFileSync(entry.saved, tmp);
  fs.renameSync(tmp, dest);
  return dest;
}

async function run(ctx: CommandContext, asked: string, flags: Flags): Promise<void> {
  const { jobLife } = await import("../../features/lives.js");
  const { checkTemplate, nameFrom, uniqueName } = await import("../file-name.js");
  if (flags.name !== undefined) checkTemplate(flags.name);
  const { kind, entry, first, engine } = await resolve(ctx, asked);
  // A video's id stands for the export that made its MP4 (resolve).
  const id = entry?.id ?? asked;
  const life = jobLife(kind);
  const dir = path.resolve(flags.dir ?? ".");
  const { prepareDir } = await import("../download.js");
  prepareDir(dir, "--dir");
  const namer = (ref: StartedJob, ext: string) =>
    flags.name === undefined
      ? undefined
      : uniqueName(
          dir,
          nameFrom(
            flags.name,
            { prompt: entry?.prompt, id: ref.id, kind, model: entry?.model, video_id: entry?.video_id, date: entry?.started_at?.slice(0, 10) },
            ref.id,
          ),
          ext,
        );
  if (!life.status) {
    if (life.nextStep) throw videoAnswer(ctx, id, "a duplicate, in this machine's history");
    const name = namer({ kind, id }, "txt") ?? `${id}.txt`;
    const saved = copySaved(entry!, dir, name, flags.force === true);
    await ctx.recordUpdates([{ kind, id, saved }]);
    ctx.print(
      { id, kind, saved },
      (r) => [r.saved],
      (r) => [r.saved],
    );
    return;
  }
  if (kind === "look" && !entry?.avatar_id) {
    throw new CliError(`look ${id}: its avatar is unknown here; use: mediagen avatar look <avatar_id> ${id} --download <dir>`, EXIT.usage, "unknown_avatar", "id");
  }
  const { lifeWatch } = await import("../life-watch.js");
  const ref: StartedJob = { kind, id, ...(entry?.avatar_id ? { avatar_id: entry.avatar_id } : {}) };
  const { job, kind: watchKind } = lifeWatch(engine, life, ref, {
    namer,
    ...(entry?.cost !== null && entry?.cost !== undefined ? { cost: entry.cost } : {}),
  });
  if (kind === "generation" && !ctx.opts.json) ctx.io.info(`A generation makes a video to export; saving its thumbnail (the video comes from an export).`);
  if (flags.watch) {
    const { watchJobs } = await import("../watch.js");
    await watchJobs(ctx, [job], watchKind, {
      download: dir,
      ...(flags.force ? { force: true } : {}),
      ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
      ...(flags.interval !== undefined ? { interval: flags.interval } : {}),
    });
    return;
  }
  const value = first ?? (await job.poll(new AbortController().signal));
  await saveFinished(ctx, { id, kind, dir, flags, value, job, watchKind });
}

async function saveFinished(
  ctx: CommandContext,
  a: { id: string; kind: JobKindName; dir: string; flags: Flags; value: unknown; job: { label: string }; watchKind: import("../watch.js").WatchKind<unknown> },
): Promise<void> {
  const { id, kind, flags, value, job, watchKind } = a;
  const { resumeCommand } = await import("../resume.js");
  const state = watchKind.state(value);
  const fields = watchKind.journalFields?.(value) ?? {};
  if (state === "pending") {
    throw new CliError(
      `${job.label} is not finished yet (${watchKind.describe(value)}); wait for it with: ${resumeCommand(ctx.opts, ["download", id, "--watch", ...(flags.dir ? ["--dir", flags.dir] : [])])}`,
      EXIT.timeout,
      "not_finished",
    );
  }
  if (state === "failed") {
    await ctx.recordUpdates([{ kind, id, ...fields }]);
    throw new CliError(
      `${job.label} failed: ${watchKind.failure ? watchKind.failure(value, await ctx.target()) : watchKind.describe(value)}`,
      EXIT.jobFailed,
      "job_failed",
    );
  }
  const file = watchKind.file?.(value);
  if (!file) throw new CliError(`${job.label} completed without a file to download`, EXIT.error, "no_url");
  const saved = await ctx.save(file.url, a.dir, file.name, {
    force: flags.force === true,
    resume: resumeCommand(ctx.opts, ["download", id, ...(flags.dir ? ["--dir", flags.dir] : []), ...(flags.force ? ["--force"] : [])]),
  });
  await ctx.recordUpdates([{ kind, id, saved, ...fields }]);
  if (ctx.opts.json) {
    ctx.io.out(JSON.stringify({ id, kind, saved }, null, 2));
    return;
  }
  ctx.io.out(saved);
}

export const command: CommandModule = {
  register(download: Command, getContext: ContextGetter) {
    FLAGS.addTo(download.argument("<id>", "the job's id: an asset, a look, a generation (its video thumbnail), an export, a script"));
    download.action(async (id: string, opts: Flags, cmd: Command) => run(getContext(cmd), id, FLAGS.values(opts)));
    examples(download, [
      "mediagen download 65f0c2a1b3e4d5f6a7b8c9d0",
      "mediagen download lk_0123456789abcdef01234567 --dir thumbs/",
      "mediagen download exp_0123456789abcdef01234567 --watch --dir out/ --name '{prompt}'",
      "mediagen download $(mediagen ls --kind asset --limit 1 -q) --dir out/ --force",
    ]);
  },
};
