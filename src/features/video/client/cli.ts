/**
 * `mediagen duplicate <video_id> [--voice ID] [--look ID]` (POST /video/duplicate): a copy of a done
 * video, with its speech made again in a new voice and/or its looks replaced. The copy is `done` at
 * once; export it to get a file: `--export` does (in the copy's own format or `--format`), `--watch`
 * follows the export and `--download file.mp4|dir` saves it, as `generate --export` does.
 */
import type { Command } from "commander";
import { defineFlags, type FlagInput } from "../../../cli/flags.js";
import { CliError, EXIT } from "../../../cli/types.js";
import type { CommandModule } from "../../../cli/command-context.js";
import type { CommandContext } from "../../../cli/command-context.js";
import { addStartGuardOptions } from "../../../cli/cost-guard.js";
import { examples } from "../../../cli/help-text.js";
import { keyValues } from "../../../cli/output.js";
import type { VideoDuplicateResponse } from "../contract.js";

const FORMATS = ["vertical", "square", "ads", "horizontal"] as const;

/** The flags of \`mediagen duplicate\`, declared once: the command and \`mediagen batch\` read them. */
export const DUPLICATE_FLAGS = defineFlags({
  voice: {
    flag: "--voice <voice>",
    type: "string",
    help: "voice_id, or a voice's name (`--voice George`): speak the copy with this voice (speech and timing are made again)",
    field: "voice_id",
  },
  look: {
    flag: "--look <look>",
    type: "string",
    help: "avatar_look_id, or a look's name (`--look \"Maya kitchen\"`): show this look instead of the video's looks",
    field: "avatar_look_id",
  },
  // No field of its own: --look wins when both are given (duplicateBody).
  avatar: { flag: "--avatar <look>", type: "string", help: "same as --look" },
  body: { flag: "--body <file|->", type: "string", help: "request body as JSON from a file or - (stdin); the argument and flags override its fields" },
  export: { flag: "--export", type: "boolean", help: "then export the copy to an MP4 (POST /export/start), in its own format unless --format" },
  format: { flag: "--format <format>", type: "choice", choices: FORMATS, help: "with --export: vertical, square, ads or horizontal (default: the video's own)" },
  avatarModel: { flag: "--avatar-model <model>", type: "string", help: "with --export: the export's avatar_model (default standard)" },
  watch: { flag: "--watch", type: "boolean", help: "with --export: wait until the export completes (or fails)" },
  download: { flag: "--download <file.mp4|dir>", type: "string", help: "save the MP4 as this file or into this directory (implies --export and --watch)" },
  force: { flag: "--force", type: "boolean", help: "overwrite an existing file when downloading" },
  timeout: { flag: "--timeout <duration>", type: "string", help: "give up waiting after this long (default 20m)" },
  interval: { flag: "--interval <duration>", type: "string", help: "poll interval (default: the spec's export schedule)" },
});

type DuplicateFlags = ReturnType<typeof DUPLICATE_FLAGS.values>;
type ChainFlags = DuplicateFlags & { dryRun?: boolean; maxCredits?: string; yes?: boolean };

export function duplicateBody(videoId: string | undefined, flags: DuplicateFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  const out = DUPLICATE_FLAGS.request(flags, body);
  if (videoId !== undefined) out.video_id = videoId;
  if (flags.look === undefined && flags.avatar !== undefined) out.avatar_look_id = flags.avatar;
  return out;
}

/**
 * `--voice George`, `--look "Maya kitchen"`: names become ids with the resolver `generate` uses (a
 * value that names nothing and could be an id is sent as it is); each is said on stderr. Returns the
 * ids sent, for a did-you-mean when the service does not know one.
 */
async function resolveDuplicateNames(ctx: CommandContext, opts: DuplicateFlags, body: Record<string, unknown>): Promise<import("../../../cli/names.js").SentId[]> {
  const names = await import("../../../cli/names.js");
  const say = (line: string) => {
    if (!ctx.opts.json) ctx.io.info(line);
  };
  let voices: Promise<import("../../../cli/names.js").Named[]> | undefined;
  let looks: Promise<import("../../../cli/names.js").Named[]> | undefined;
  const voiceItems = () => (voices ??= ctx.engine().then(async (e) => ((await e.voiceList({})) as import("../../../cli/names.js").VoiceItem[]).map(names.voiceNamed)));
  const lookItems = () => (looks ??= ctx.engine().then(async (e) => ((await e.avatarList({})) as import("../../../cli/names.js").LookItem[]).map(names.lookNamed)));
  const lookFlag = opts.look !== undefined ? "--look" : "--avatar";
  if (opts.voice !== undefined && typeof body.voice_id === "string" && !names.idShaped(body.voice_id)) {
    const r = names.resolveName(body.voice_id, await voiceItems(), "--voice", "voice", "mediagen voice list");
    body.voice_id = r.id;
    if (r.byName) say(`Voice: ${r.byName.label}`);
  }
  if ((opts.look ?? opts.avatar) !== undefined && typeof body.avatar_look_id === "string" && !names.idShaped(body.avatar_look_id)) {
    const r = names.resolveName(body.avatar_look_id, await lookItems(), lookFlag, "look", "mediagen avatar list");
    body.avatar_look_id = r.id;
    if (r.byName) say(`Look: ${r.byName.label}`);
  }
  const sent: import("../../../cli/names.js").SentId[] = [];
  if (typeof body.voice_id === "string") sent.push({ field: "voice_id", value: body.voice_id, what: "voice", listCommand: "mediagen voice list", items: voiceItems });
  if (typeof body.avatar_look_id === "string") {
    sent.push({ field: "avatar_look_id", value: body.avatar_look_id, what: "look", listCommand: "mediagen avatar list", items: lookItems });
  }
  return sent;
}

function lines(r: VideoDuplicateResponse): string[] {
  return keyValues([
    ["video", r.video_id],
    ["status", r.status],
    ["voice changed", r.changes_applied?.voice_changed],
    ["look changed", r.changes_applied?.avatar_changed],
    ["message", r.message],
  ]);
}

/** The export's request for the copy, from the chain's flags. */
function exportBody(videoId: string, opts: ChainFlags): Record<string, unknown> {
  return {
    video_id: videoId,
    ...(opts.format !== undefined ? { format: opts.format } : {}),
    ...(opts.avatarModel !== undefined ? { avatar_model: opts.avatarModel } : {}),
  };
}

async function runDuplicate(ctx: CommandContext, videoId: string | undefined, opts: ChainFlags): Promise<void> {
  const body = duplicateBody(videoId, opts, opts.body ? await ctx.readBody(opts.body) : {});
  if (body.video_id === undefined) throw new CliError("missing <video_id>", EXIT.usage, "missing_field", "video_id");
  const exporting = opts.export === true || opts.download !== undefined;
  for (const [flag, given] of [
    ["--format", opts.format],
    ["--avatar-model", opts.avatarModel],
    ["--watch", opts.watch],
  ] as const) {
    if (given !== undefined && !exporting) throw new CliError(`${flag}: needs --export`, EXIT.usage, "usage_error", flag);
  }
  const follow = {
    watch: true,
    ...(opts.download !== undefined ? { download: opts.download } : {}),
    force: opts.force === true,
    ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
    ...(opts.interval !== undefined ? { interval: opts.interval } : {}),
  };
  const { checkExportWaitFlags, runExport } = await import("../../export/client/cli.js");
  // A bad --download or --timeout is a usage error before anything is made.
  if (exporting && !opts.dryRun) await checkExportWaitFlags(follow);
  const given: Record<string, unknown> = { video_id: videoId, voice_id: opts.voice, avatar_look_id: opts.look ?? opts.avatar };
  const flagNames: Record<string, string> = { video_id: "<video_id>", voice_id: "--voice", avatar_look_id: opts.look !== undefined ? "--look" : "--avatar" };
  ctx.explainWith?.((field) => (given[field] !== undefined ? flagNames[field] : undefined), body);
  // The request is judged before any name is looked up (a number for --body's voice_id is said first).
  await (await import("../../../cli/contract-check.js")).refuseAsTheServiceWould("videoDuplicate", body);
  const sent = await resolveDuplicateNames(ctx, opts, body);
  const engine = await ctx.engine();
  const cli = ctx;
  const { guardStart, startGuardFrom } = await import("../../../cli/cost-guard.js");
  const guard = startGuardFrom(opts);
  // The copy is free; what the chain costs is its export, priced as the source's (the copy keeps its format).
  const priced = exporting
    ? await guardStart(cli, engine, "exportStart", exportBody(String(body.video_id), opts), guard)
    : await guardStart(cli, engine, "videoDuplicate", body, guard);
  if (priced === "dry-run") return;
  const { hintUnknownIds } = await import("../../../cli/names.js");
  const res = await hintUnknownIds(() => engine.videoDuplicate(body), sent);
  if (!exporting) {
    ctx.print(res, lines, (r) => [r.video_id]);
    const { printNext } = await import("../../../cli/next-step.js");
    await printNext(ctx, "videoDuplicate", body, res);
    return;
  }
  if (!ctx.opts.json) ctx.io.info(`Copied video ${String(body.video_id)} to ${res.video_id}; exporting it`);
  await runExport(ctx, engine, exportBody(res.video_id, opts), opts.watch || opts.download !== undefined ? follow : {});
}

export const command: CommandModule = {
  register(duplicate: Command, getContext) {
    DUPLICATE_FLAGS.addTo(addStartGuardOptions(duplicate).argument("[video_id]", "the done video to copy")).action(
      async (videoId: string | undefined, opts: FlagInput<typeof DUPLICATE_FLAGS> & { dryRun?: boolean; maxCredits?: string; yes?: boolean }, cmd: Command) =>
        runDuplicate(getContext(cmd), videoId, { ...DUPLICATE_FLAGS.values(opts), dryRun: opts.dryRun, maxCredits: opts.maxCredits, yes: opts.yes }),
    );
    examples(duplicate, [
      "mediagen duplicate 65f0c2a1b3e4d5f6a7b8c9d0",
      "mediagen duplicate 65f0c2a1b3e4d5f6a7b8c9d0 --voice vc_noah",
      "mediagen duplicate 65f0c2a1b3e4d5f6a7b8c9d0 --voice vc_camille --look lk_lena_studio --json",
      "mediagen duplicate 65f0c2a1b3e4d5f6a7b8c9d0 --voice vc_noah --export --format square --watch --download copy.mp4",
    ]);
  },
};
