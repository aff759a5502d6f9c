/**
 * `mediagen generate` (POST /generation/start) and `mediagen generation status` (GET
 * /generation/status/{job_id}). Every request field has a flag; `--body` gives a whole request;
 * `--plan` reads a sequence plan and checks it with the service's own plan rules (plan.ts) before
 * anything is sent, printing the JSON path of every problem (exit 2). `--watch` waits on the
 * generation schedule of the spec (the local target polls faster). `--export` (or `--download`) then
 * exports the done video and follows the export (src/features/export/client/cli.ts), input to file in one go.
 */
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { CliError, EXIT } from "../../../cli/types.js";
import type { CommandModule } from "../../../cli/command-context.js";
import { examples, SHOW_HELP, waitTimingFlags } from "../../../cli/help-text.js";
import { addWebhookListen } from "../../../cli/webhook-listen.js";
import { keyValues } from "../../../cli/output.js";
import { absoluteIfFile, parseSimulate, waitOptionsFrom } from "../../../cli/parse.js";
import { defineFlags, HOSTED_MEDIA_HELP, hostedMediaError, wholeAtLeast, type FlagInput } from "../../../cli/flags.js";
import { readWithinBodyLimit } from "../../../cli/body.js";
import { generationSchedule } from "../../../contract/poll.js";
import type { Engine } from "../../../engine/engine.js";
import type { CommandContext } from "../../../cli/command-context.js";
import type { WatchKind } from "../../../cli/watch.js";
import type { WaitJob } from "../../../cli/wait.js";
import { refundedOn, refundNote } from "../../../cli/credits-note.js";
import type { GenerationStartResponse, GenerationStatusResponse } from "../contract.js";
import { generationLife } from "../life.js";
import { jobErrorText, lifeState } from "../../life.js";

// The spec's lists, repeated here because contract.ts loads zod, which --help must not.
const FORMATS = ["vertical", "square", "ads", "horizontal", "custom"];
const ANIMATE_MODES = ["standard", "pro"];

const usage = (flag: string, message: string, code = "invalid_value") => new CliError(`${flag}: ${message}`, EXIT.usage, code, flag);

function seconds(value: string, flag: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw usage(flag, `expected a number of seconds, got "${value}"`);
  return n;
}

/** Merges one key into an object field of the body (`enable`, `web_search`), keeping what `--body` set. */
const into = (field: string, key: string) => (value: boolean, out: Record<string, unknown>) => {
  const prev = out[field] && typeof out[field] === "object" && !Array.isArray(out[field]) ? (out[field] as object) : {};
  return { ...prev, [key]: value };
};
const fileOrUrl = (v: string) => absoluteIfFile(v.trim());

function noNativeAvatarModel(_value: string, flag: string): never {
  throw usage(
    flag,
    "the service's docs name no field for the native-avatar model, so no flag sends one (a guessed name would do nothing on a paid generation); the default is omni-flash. If you know the field's name: --set <name>=<model>",
    "usage_error",
  );
}

/**
 * The request's flags, declared once (src/cli/flags.ts): `generate`'s options, the checked values,
 * the request over a `--body`, and `mediagen batch --as 'generate …'` templates all come from here.
 * A hidden older spelling comes just before the service's name it aliases, so the newer one wins when
 * both are given. Names the spec does not show are the service's docs' (hosted-facts).
 */
export const GENERATE_FLAGS = defineFlags({
  prompt: { flag: "--prompt <text>", type: "string", help: "prompt-based: what the video is about (needs --duration)", field: "prompt" },
  duration: { flag: "--duration <seconds>", type: "string", to: seconds, help: "seconds, 10 to 600 (with --prompt)", field: "duration" },
  script: {
    flag: "--script <file|-|text>",
    type: "string",
    help: "script-based: a file (@file to insist), - for stdin, or the text (needs --voice or --voice-url)",
    field: "script",
  },
  voice: {
    flag: "--voice <voice>",
    type: "string",
    help: "voice_id, or a voice's name (`--voice Emma`; see `mediagen voice list`); with --prompt --avatar and no voice, one of the look's gender is picked and said",
    field: "voice_id",
  },
  voiceUrl: { flag: "--voice-url <url>", type: "string", to: fileOrUrl, media: "url", help: "voice_url: speech as mp3, wav or m4a, URL or file", field: "voice_url" },
  avatar: {
    flag: "--avatar <look>",
    type: "string",
    help: 'avatar_id: a look id, or a look\'s name (`--avatar "Maya kitchen"`; see `mediagen avatar list`)',
    field: "avatar_id",
  },
  avatarUrl: { flag: "--avatar-url <url>", type: "string", to: fileOrUrl, media: "url", help: "avatar_url: an image or a video, URL or file", field: "avatar_url" },
  format: {
    flag: "--format <format>",
    type: "choice",
    choices: FORMATS,
    help: "vertical (9:16, default), square, ads (4:5), horizontal (16:9) or custom",
    field: "format",
  },
  width: { flag: "--width <px>", type: "string", to: wholeAtLeast(1), help: "width with --format custom (1 to 5000, default 1080)", field: "width" },
  height: { flag: "--height <px>", type: "string", to: wholeAtLeast(1), help: "height with --format custom (1 to 5000, default 1920)", field: "height" },
  subtitles: { flag: "--subtitles", type: "boolean", negate: "no subtitles", help: "enable.subtitles (default on)", field: "enable", fill: into("enable", "subtitles") },
  music: { flag: "--music", type: "boolean", negate: "no music", help: "enable.music: background music (default off)", field: "enable", fill: into("enable", "music") },
  broll: {
    flag: "--broll",
    type: "boolean",
    negate: "no automatic b-roll",
    help: "enable.broll: automatic b-roll when no sequence has media (default on)",
    field: "enable",
    fill: into("enable", "broll"),
  },
  transitions: {
    flag: "--transitions",
    type: "boolean",
    negate: "no transitions",
    help: "enable.transitions (default on)",
    field: "enable",
    fill: into("enable", "transitions"),
  },
  webSearchScript: {
    flag: "--web-search-script",
    type: "boolean",
    help: "web_search.script: research the script on the web",
    field: "web_search",
    fill: into("web_search", "script"),
  },
  webSearchImages: {
    flag: "--web-search-images",
    type: "boolean",
    help: "web_search.images: search the web for images",
    field: "web_search",
    fill: into("web_search", "images"),
  },
  animateImage: { flag: "--animate-image", type: "boolean", help: "animate_image: animate still images (5 credits each)", field: "animate_image" },
  maxAnimatedImages: { flag: "--max-animated-images <n>", type: "string", to: wholeAtLeast(0), hidden: true, help: "", field: "animate_image_max" },
  animateImageMax: {
    flag: "--animate-image-max <n>",
    type: "string",
    to: wholeAtLeast(0),
    help: "animate_image_max: at most this many animated images",
    field: "animate_image_max",
  },
  animateMode: { flag: "--animate-mode <mode>", type: "choice", choices: ANIMATE_MODES, help: "animate_mode: how images are animated", field: "animate_mode" },
  nativeAvatar: {
    flag: "--native-avatar",
    type: "boolean",
    help: "use_native_avatar: audio and video made together (sound comes at export); the model is the service's default (omni-flash): the docs name no field to choose it, so no flag sends one (a raw --body or --set can)",
    field: "use_native_avatar",
  },
  veo3: {
    flag: "--veo3",
    type: "boolean",
    help: "use_veo3: render the avatar with Veo 3 (such a video exports only with --avatar-model veo-3 or veo-3-fast)",
    field: "use_veo3",
  },
  enhanceEmotions: { flag: "--enhance-emotions", type: "boolean", hidden: true, help: "", field: "emotion_enhancement" },
  emotionEnhancement: { flag: "--emotion-enhancement", type: "boolean", help: "emotion_enhancement (default off)", field: "emotion_enhancement" },
  libraryMedia: { flag: "--library-media", type: "boolean", negate: "", hidden: true, help: "", field: "use_space_media" },
  spaceMedia: {
    flag: "--space-media",
    type: "boolean",
    negate: "no b-roll from the space's media",
    help: "use_space_media: b-roll may come from the space's media (default on)",
    field: "use_space_media",
  },
  saveToLibrary: { flag: "--save-to-library", type: "boolean", negate: "", hidden: true, help: "", field: "save_media_to_space" },
  saveMediaToSpace: {
    flag: "--save-media-to-space",
    type: "boolean",
    negate: "do not save the video's media to the space",
    help: "save_media_to_space (default on)",
    field: "save_media_to_space",
  },
  // No field: the docs name none; given, it is refused with the reason.
  nativeAvatarModel: { flag: "--native-avatar-model <model>", type: "string", to: noNativeAvatarModel, hidden: true, help: "" },
  mediaUrl: {
    flag: "--media-url <url>",
    type: "list",
    item: fileOrUrl,
    media: "url",
    help: "media_urls: an image or video for b-roll, URL or file, repeatable, in order",
    field: "media_urls",
  },
  webUrl: { flag: "--web-url <url>", type: "list", item: (v: string) => v.trim(), help: "web_urls: a page to research (repeatable, at most 10)", field: "web_urls" },
  webhookUrl: { flag: "--webhook-url <url>", type: "string", hidden: true, help: "same as --webhook", field: "webhook_url" },
  webhook: { flag: "--webhook <url>", type: "string", help: "webhook_url: notified when the video is done or failed", field: "webhook_url" },
});

/** The flags that steer `generate` itself (the input files, the guard, the wait, the chained export). */
const RUN_FLAGS = defineFlags({
  plan: {
    flag: "--plan <file|->",
    type: "string",
    help: `sequence_plan from a JSON file or - (stdin); checked before sending; wins over --prompt and --script (its media: ${HOSTED_MEDIA_HELP})`,
  },
  body: {
    flag: "--body <file|->",
    type: "string",
    help: "request body as JSON from a file or - (stdin); flags override its fields; keys mediagen does not know are sent as given (said on stderr)",
  },
  set: {
    flag: "--set <key=value>",
    type: "list",
    help: "one body field no flag has (JSON value, else text; a dotted key sets inside an object: enable.music=true); repeatable, applied last",
  },
  simulate: { flag: "--simulate <mode>", type: "string", help: "local instance only: fail or fail:<CODE> makes the job fail (refunded)" },
  dryRun: { flag: "--dry-run", type: "boolean", help: "print the estimated price and exit; nothing is started (supplied speech cannot be priced before)" },
  maxCredits: { flag: "--max-credits <n>", type: "string", help: "refuse to start (exit 2) if the estimate is above n credits, or cannot be known before starting" },
  yes: { flag: "-y, --yes", type: "boolean", help: "do not ask for confirmation on a terminal (see MEDIAGEN_CONFIRM_ABOVE)" },
  export: {
    flag: "--export",
    type: "boolean",
    help: "once the video is done, export it to an MP4 in its own format (POST /export/start) and wait for it (implies --watch)",
  },
  download: {
    flag: "--download <file.mp4|dir>",
    type: "string",
    help: "with --export: save the MP4 as this file (a path ending in .mp4) or into this directory (implies --export)",
  },
  force: { flag: "--force", type: "boolean", help: "overwrite an existing file when downloading" },
  show: { flag: "--show", type: "boolean", help: SHOW_HELP },
  avatarModel: { flag: "--avatar-model <model>", type: "string", help: "with --export: the export's avatar_model (default standard)" },
});

/** `--watch`, `--timeout`, `--interval` of a generation's wait. */
const waitFlagSet = (until: string) =>
  defineFlags({
    watch: { flag: "--watch", type: "boolean", help: `wait until ${until}` },
    ...waitTimingFlags("the spec's generation schedule; faster on the local target"),
  });
const UNTIL_DONE = "the video is done (or the job failed)";

/** What commander hands `generate`'s action (also what the wizard passes to runGenerate). */
export type GenerateOptions = FlagInput<typeof GENERATE_FLAGS> & FlagInput<typeof RUN_FLAGS> & FlagInput<ReturnType<typeof waitFlagSet>>;

export async function readStdin(ctx: CommandContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of ctx.io.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `--script`: `-` reads stdin, `@file` or an existing file is read, anything else is the text itself;
 * a value that looks like a path and names no file is a usage error (src/cli/text-arg.ts).
 */
export async function scriptText(ctx: CommandContext, value: string): Promise<string> {
  const { fileOrText } = await import("../../../cli/text-arg.js");
  return fileOrText(value, "--script", async () => {
    if ((ctx.io.stdin as { isTTY?: boolean }).isTTY) {
      if (!ctx.io.canPrompt) throw usage("--script", "stdin is a terminal and input is off (--no-input or CI); pipe the script in", "usage_error");
      ctx.io.warn("Reading the script from stdin (end with Ctrl-D)…");
    }
    return readStdin(ctx);
  });
}

/** Local paths in a plan read from a file are relative to that file; existing ones are made absolute. */
export function absolutePlanPaths(plan: unknown, baseDir: string): unknown {
  if (!Array.isArray(plan)) return plan;
  const fix = (v: unknown) => {
    if (typeof v !== "string" || /^[a-z][a-z0-9+.-]+:/i.test(v) || path.isAbsolute(v)) return v;
    const abs = path.resolve(baseDir, v);
    return fs.existsSync(abs) ? abs : v;
  };
  return plan.map((block: unknown) => {
    if (!block || typeof block !== "object" || Array.isArray(block)) return block;
    const b = { ...(block as Record<string, unknown>) };
    if ("audio_url" in b) b.audio_url = fix(b.audio_url);
    if (Array.isArray(b.sequences)) {
      b.sequences = b.sequences.map((seq: unknown) => {
        if (!seq || typeof seq !== "object" || Array.isArray(seq)) return seq;
        const s = { ...(seq as Record<string, unknown>) };
        if (s.media && typeof s.media === "object" && !Array.isArray(s.media)) {
          const m = { ...(s.media as Record<string, unknown>) };
          if ("url" in m) m.url = fix(m.url);
          s.media = m;
        }
        return s;
      });
    }
    return b;
  });
}

/**
 * For the hosted target, which fetches media by public URL and has no upload: the first media flag
 * value, or media link of the plan, that is a local path (or any other non-http(s) link).
 */
function hostedMediaProblem(opts: GenerateOptions, body: Record<string, unknown>): CliError | undefined {
  const flagged = GENERATE_FLAGS.hostedMediaError(opts);
  if (flagged) return flagged;
  if (opts.plan === undefined || !Array.isArray(body.sequence_plan)) return undefined;
  for (const [i, block] of (body.sequence_plan as unknown[]).entries()) {
    if (!block || typeof block !== "object") continue;
    const b = block as { audio_url?: unknown; sequences?: unknown };
    const links: [string, unknown][] = [[`sequence_plan[${i}].audio_url`, b.audio_url]];
    if (Array.isArray(b.sequences)) {
      for (const [j, seq] of b.sequences.entries()) {
        const media = (seq as { media?: { url?: unknown; asset_id?: unknown } } | null)?.media;
        // asset_id wins over url: a url beside one is not fetched.
        if (media && typeof media === "object" && (media.asset_id === undefined || media.asset_id === null)) {
          links.push([`sequence_plan[${i}].sequences[${j}].media.url`, media.url]);
        }
      }
    }
    for (const [where, link] of links) {
      if (typeof link !== "string" || link.trim() === "") continue;
      const e = hostedMediaError("--plan", link);
      if (e) return new CliError(`--plan: ${where}: ${e.message.slice("--plan: ".length)}`, EXIT.usage, "local_media", "--plan");
    }
  }
  return undefined;
}

/**
 * `--plan file|-`: a JSON array of speech blocks (or an object with `sequence_plan`), checked with
 * the service's plan rules. Every problem is printed with its JSON path; any problem is exit 2.
 */
export async function readPlan(ctx: CommandContext, value: string): Promise<unknown[]> {
  let textIn: string;
  let from: string;
  let baseDir = process.cwd();
  if (value === "-") {
    from = "stdin";
    if ((ctx.io.stdin as { isTTY?: boolean }).isTTY && !ctx.io.canPrompt) {
      throw usage("--plan", "stdin is a terminal and input is off (--no-input or CI); pipe the plan in", "usage_error");
    }
    textIn = await readWithinBodyLimit("-", ctx.io, "--plan");
  } else {
    from = value;
    textIn = await readWithinBodyLimit(value, ctx.io, "--plan");
    baseDir = path.dirname(path.resolve(value));
  }
  let data: unknown;
  try {
    data = JSON.parse(textIn);
  } catch (e) {
    throw usage("--plan", `${from} is not valid JSON (${(e as Error).message})`, "invalid_json");
  }
  if (data && typeof data === "object" && !Array.isArray(data) && "sequence_plan" in data) data = (data as { sequence_plan: unknown }).sequence_plan;
  const plan = absolutePlanPaths(data, baseDir);
  const { checkPlan } = await import("../plan.js");
  const { problems } = checkPlan(plan, { allowLocalFiles: true });
  if (problems.length) {
    const first = problems[0]!;
    const list = problems.map((p) => `  ${p.message}`).join("\n");
    throw new CliError(
      `--plan: ${from} has ${problems.length} problem${problems.length === 1 ? "" : "s"} (nothing was sent):\n${list}`,
      EXIT.usage,
      "INVALID_PLAN",
      first.field,
    );
  }
  return plan as unknown[];
}

// ---- output -------------------------------------------------------------------------------------------

/** "2 credits"; a figure the service's answer left out reads "? credits". */
const credits = (n: number | null | undefined) => (typeof n === "number" ? `${n} credit${n === 1 ? "" : "s"}` : "? credits");

function statusText(s: GenerationStatusResponse): string {
  if (s.status === "failed") return "failed";
  if (s.status === "completed") return `completed: video ${s.result?.video_id ?? "?"}`;
  if (!s.current_step) return s.status;
  return typeof s.progress_step === "number" ? `${s.status} ${s.current_step} ${s.progress_step}%` : `${s.status} ${s.current_step}`;
}

export function statusLines(s: GenerationStatusResponse, withError = true): string[] {
  const r = s.result;
  return keyValues(
    [
      ["job", s.job_id],
      ["status", s.status],
      ["step", s.current_step ? (typeof s.progress_step === "number" ? `${s.current_step} (${s.progress_step}%)` : s.current_step) : null],
      ["video", r?.video_id ?? null],
      ["duration", typeof r?.duration === "number" ? `${r.duration} s` : null],
      ["cost", typeof r?.cost === "number" ? credits(r.cost) : null],
      ["thumbnail", r?.thumbnail_url ?? null],
      ["created", r?.created_at ?? null],
      ["error", withError && s.error ? jobErrorText(s.error) : null],
    ].filter(([, v]) => v !== null) as [string, unknown][],
  );
}

/** Its terminal states are its life's (./life.ts). */
const jobState = (s: GenerationStatusResponse) => lifeState(generationLife.jobs!.generation!, s as unknown as Record<string, unknown>);

interface WaitFlags {
  timeout?: string;
  interval?: string;
}

/** `cost`: the estimate debited at start, when this command started the job. */
async function watchGeneration(ctx: CommandContext, engine: Engine, jobId: string, flags: WaitFlags, cost?: number): Promise<void> {
  const { watchJobs } = await import("../../../cli/watch.js");
  const { jobs, kind } = generationWatch(engine, jobId, cost);
  await watchJobs(ctx, jobs, kind, {
    ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
    ...(flags.interval !== undefined ? { interval: flags.interval } : {}),
  });
}

/**
 * The wait for a generation (watch.ts). What it makes is a video to export; what `download` saves
 * of it is the video's thumbnail.
 */
export function generationWatch(engine: Engine, jobId: string, cost?: number): { jobs: WaitJob<GenerationStatusResponse>[]; kind: WatchKind<GenerationStatusResponse> } {
  return {
    jobs: [{ id: jobId, label: `generation ${jobId}`, poll: (signal: AbortSignal) => engine.generationStatus({ job_id: jobId }, { signal }) }],
    kind: {
      journal: "generation",
      journalFields: (s) => ({ status: s.status, ...(s.result?.video_id ? { video_id: s.result.video_id } : {}) }),
      file: (s) => (s.result?.thumbnail_url ? { url: s.result.thumbnail_url, name: thumbnailName(s.job_id ?? jobId, s.result.thumbnail_url) } : undefined),
      state: jobState,
      describe: statusText,
      failure: (s, target) => `${jobErrorText(s.error)}; ${refundNote(cost, refundedOn(target))}`,
      schedule: generationSchedule,
      unknown: (job) => ({ job_id: job.id, status: "unknown" }),
      // The reason of a failure is said once, in the error that ends the command.
      human: (s) => statusLines(s, false),
      resumeArgs: (js) => ["generation", "status", ...js.map((j) => j.id), "--watch"],
    },
  };
}

/** `<job_id>-thumbnail.<ext>`, the extension from the link (jpg by default). */
function thumbnailName(jobId: string, url: string): string {
  let ext = "";
  try {
    ext = path.posix.extname(new URL(url, "file:///").pathname);
  } catch {
    // keep the default
  }
  return `${jobId}-thumbnail${/^\.[a-z0-9]{1,5}$/i.test(ext) ? ext.toLowerCase() : ".jpg"}`;
}

// ---- commands -----------------------------------------------------------------------------------------

/**
 * `generate --export`: waits for the video (progress on stderr), then exports it in its own format and
 * size (POST /export/start) and follows the export, saving the MP4 with --download. stdout carries
 * what the export ends with, so one command goes from input to file.
 */
async function generateAndExport(ctx: CommandContext, engine: Engine, jobId: string, opts: GenerateOptions): Promise<void> {
  const { runExport } = await import("../../export/client/cli.js");
  const video = await ctx.wait<GenerationStatusResponse>(
    {
      label: `generation ${jobId}`,
      poll: (signal: AbortSignal) => engine.generationStatus({ job_id: jobId }, { signal }),
      state: jobState,
      describe: statusText,
      schedule: generationSchedule,
      // The whole chain resumes, not the wait alone: the same flags on `generation status`.
      resume: (await import("../../../cli/resume.js")).chainResume(jobId, opts),
    },
    waitOptionsFrom(opts),
  );
  const videoId = video.result?.video_id;
  await ctx.recordUpdates?.([{ kind: "generation", id: jobId, status: video.status, ...(videoId ? { video_id: videoId } : {}) }]);
  if (!videoId) {
    // What was paid for is still said: the job's last status, its id in it, on stdout.
    ctx.print(video, statusLines, () => [jobId]);
    throw new CliError(`generation ${jobId} completed without a video_id: nothing to export`, EXIT.error, "no_video");
  }
  // Resumed after the export was started (from this machine): follow that export, do not pay again.
  const home = (ctx as Partial<CommandContext>).home;
  const started = home ? await (await import("../../../cli/resume.js")).exportOfVideo(home, videoId, await ctx.target()) : undefined;
  if (started) {
    if (!ctx.opts.json) ctx.io.info(`Video ${videoId} is done; following its export ${started}`);
    const { followExport } = await import("../../export/client/cli.js");
    await followExport(ctx, engine, started, exportWaitFlags(opts), jobId);
    return;
  }
  if (!ctx.opts.json) ctx.io.info(`Video ${videoId} is done; exporting it`);
  const body: Record<string, unknown> = { video_id: videoId };
  if (opts.avatarModel !== undefined) body.avatar_model = opts.avatarModel;
  await runExport(ctx, engine, body, exportWaitFlags(opts), undefined, jobId);
}

function exportWaitFlags(opts: GenerateOptions) {
  return {
    watch: true,
    ...(opts.download !== undefined ? { download: opts.download } : {}),
    force: opts.force === true,
    ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
    ...(opts.interval !== undefined ? { interval: opts.interval } : {}),
  };
}

/**
 * What `generate --dry-run` looks up on the target without spending: the voice and the look
 * (avatar_id is a look id) in the free lists. Ids are opaque and a list need not show every one the
 * service takes, so one that is not there is said on stderr (with the nearest names), not refused:
 * only the start can say it does not exist. An avatar's id where a look id is needed is refused (the
 * list says what it is), naming its looks.
 */
async function checkOnTarget(ctx: CommandContext, engine: Engine, body: Record<string, unknown>): Promise<void> {
  const { nearNames, voiceNamed, lookNamed } = await import("../../../cli/names.js");
  const voice = typeof body.voice_id === "string" ? body.voice_id.trim() : undefined;
  const look = typeof body.avatar_id === "string" ? body.avatar_id.trim() : undefined;
  if (voice) {
    const voices = (await engine.voiceList({})) as import("../../../cli/names.js").VoiceItem[];
    if (!voices.some((v) => v.id === voice)) {
      const near = nearNames(voice, voices.map(voiceNamed));
      ctx.io.warn(
        `--voice: ${voice} is not in \`mediagen voice list\`${near.length ? ` (did you mean ${near.join(" or ")}?)` : ""}; the start says whether the service knows it.`,
      );
    }
  }
  if (look) {
    const looks = (await engine.avatarList({})) as (import("../../../cli/names.js").LookItem & { avatar_id?: string })[];
    if (!looks.some((l) => l.id === look)) {
      const of = looks.filter((l) => l.avatar_id === look).map((l) => l.id);
      // The list says what it is: an avatar, where avatar_id takes one of its looks. The start would refuse it.
      if (of.length) {
        throw new CliError(
          `--avatar: look not found: ${look}; ${look} is an avatar: give one of its looks (${of.slice(0, 5).join(", ")})`,
          EXIT.usage,
          "invalid_avatar_id",
          "--avatar",
        );
      }
      const near = nearNames(look, looks.map(lookNamed));
      ctx.io.warn(
        `--avatar: ${look} is not in \`mediagen avatar list\`${near.length ? ` (did you mean ${near.join(" or ")}?)` : ""}; the start says whether the service knows it.`,
      );
    }
  }
}

type NamesModule = typeof import("../../../cli/names.js");

/** `f`'s promise, made on the first call and kept. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => {
    p ??= f();
    return p;
  };
}

/** Each list read once, when first needed. */
function lazyLists(ctx: CommandContext, names: NamesModule) {
  const voices = once(() => ctx.engine().then((e) => e.voiceList({}) as Promise<import("../../../cli/names.js").VoiceItem[]>));
  const looks = once(() => ctx.engine().then((e) => e.avatarList({}) as Promise<import("../../../cli/names.js").LookItem[]>));
  return {
    voices,
    looks,
    voiceItems: async () => (await voices()).map(names.voiceNamed),
    lookItems: async () => (await looks()).map(names.lookNamed),
  };
}

/** The ids a start sends (request and plan), for a did-you-mean when the service does not know one. */
export function sentIds(body: Record<string, unknown>, lists: ReturnType<typeof lazyLists>): import("../../../cli/names.js").SentId[] {
  const voice = { what: "voice", listCommand: "mediagen voice list", items: lists.voiceItems };
  const look = { what: "look", listCommand: "mediagen avatar list", items: lists.lookItems };
  const out: import("../../../cli/names.js").SentId[] = [];
  if (typeof body.voice_id === "string") out.push({ field: "voice_id", value: body.voice_id, ...voice });
  if (typeof body.avatar_id === "string") out.push({ field: "avatar_id", value: body.avatar_id, ...look });
  const plan = Array.isArray(body.sequence_plan) ? (body.sequence_plan as unknown[]) : [];
  plan.forEach((b, i) => {
    const block = (b && typeof b === "object" ? b : {}) as Record<string, unknown>;
    if (typeof block.voice_id === "string") out.push({ field: `sequence_plan[${i}].voice_id`, value: block.voice_id, ...voice });
    if (typeof block.look_id === "string") out.push({ field: `sequence_plan[${i}].look_id`, value: block.look_id, ...look });
    const seqs = Array.isArray(block.sequences) ? (block.sequences as unknown[]) : [];
    seqs.forEach((q, j) => {
      const lookId = q && typeof q === "object" ? (q as Record<string, unknown>).look_id : undefined;
      if (typeof lookId === "string") out.push({ field: `sequence_plan[${i}].sequences[${j}].look_id`, value: lookId, ...look });
    });
  });
  return out;
}

/**
 * `--voice` and `--avatar` given by name (`--voice Emma`, `--avatar "Maya kitchen"`) become ids; a
 * value that names nothing and could be an id is sent as it is (ids are opaque: the service says
 * whether it knows it). Ids shaped `prefix_…` are used without asking the target. A prompt-based
 * video without a voice: on the hosted target the service chooses; on the local instance a look's
 * video gets a voice of the look's gender and the prompt's language, else the instance's default
 * voice, and which one is said on stderr.
 */
async function resolveNames(ctx: CommandContext, opts: GenerateOptions, body: Record<string, unknown>, lists: ReturnType<typeof lazyLists>): Promise<void> {
  const { resolveName, idShaped } = await import("../../../cli/names.js");
  const say = (line: string) => {
    if (!ctx.opts.json) ctx.io.info(line);
  };
  if (opts.voice !== undefined && typeof body.voice_id === "string" && !idShaped(body.voice_id)) {
    const r = resolveName(body.voice_id, await lists.voiceItems(), "--voice", "voice", "mediagen voice list");
    body.voice_id = r.id;
    if (r.byName) say(`Voice: ${r.byName.label}`);
  }
  if (opts.avatar !== undefined && typeof body.avatar_id === "string" && !idShaped(body.avatar_id)) {
    const r = resolveName(body.avatar_id, await lists.lookItems(), "--avatar", "look", "mediagen avatar list");
    body.avatar_id = r.id;
    if (r.byName) say(`Look: ${r.byName.label}`);
  }
  const voiceless = body.voice_id === undefined && body.voice_url === undefined && body.sequence_plan === undefined && body.script === undefined;
  if (!voiceless || typeof body.prompt !== "string" || (await ctx.target()) === "hosted") return;
  if (typeof body.avatar_id === "string") {
    const look = (await lists.looks()).find((l) => l.id === body.avatar_id);
    const { voiceForLook } = await import("../../../cli/voice-for-look.js");
    const pick = look ? voiceForLook(look, String(body.prompt), await lists.voices()) : undefined;
    if (pick) {
      body.voice_id = pick.voice.id;
      say(`Voice: ${pick.voice.name} (${pick.voice.id}), ${pick.why}; --voice picks another.`);
      return;
    }
  }
  say("Voice: the local instance's default, Emma (vc_emma), whatever the prompt's language; --voice picks another.");
}

/** What `generate` does with its options (the wizard runs a saved plan through it too). */
export async function runGenerate(ctx: CommandContext, opts: GenerateOptions): Promise<void> {
  const fromStdin = [
    ["--script", opts.script],
    ["--plan", opts.plan],
    ["--body", opts.body],
  ].filter(([, v]) => v === "-");
  if (fromStdin.length > 1) throw usage(fromStdin[1]![0]!, `only one of --script, --plan and --body can read stdin`, "usage_error");
  const values = GENERATE_FLAGS.values(opts);
  const base = opts.body ? await ctx.readBody(opts.body) : {};
  if (values.script !== undefined) values.script = await scriptText(ctx, values.script);
  const { applySets, unknownFieldsNotice } = await import("../../../cli/body.js");
  // `--script` is the text by now.
  const body = applySets(GENERATE_FLAGS.request(values, base), opts.set);
  if (opts.plan !== undefined) body.sequence_plan = await readPlan(ctx, opts.plan);
  const content = ["sequence_plan", "script", "prompt", "voice_url", "avatar_url"].some((k) => body[k] !== undefined && body[k] !== "");
  if (!content) {
    throw usage("--prompt", "nothing to make a video from: give --prompt with --duration, --script with --voice, --plan, --voice-url or --avatar-url", "missing_field");
  }
  const simulate = parseSimulate(opts.simulate);
  const given = GENERATE_FLAGS.givenFlags(values);
  ctx.explainWith?.((field) => (field === "sequence_plan" && opts.plan !== undefined ? "--plan" : given(field)), body);
  // The request is judged before any name is looked up: a bad duration is said before a list is read.
  await (await import("../../../cli/contract-check.js")).refuseAsTheServiceWould("generationStart", body);
  const notice = await unknownFieldsNotice("generationStart", body);
  if (notice) ctx.io.warn(notice);
  const lists = lazyLists(ctx, await import("../../../cli/names.js"));
  if (opts.plan === undefined) await resolveNames(ctx, opts, body, lists);
  const exporting = opts.export === true || opts.download !== undefined;
  if (!exporting && opts.avatarModel !== undefined) throw usage("--avatar-model", "needs --export (it is the export's avatar_model)", "usage_error");
  if (!exporting && opts.force) throw usage("--force", "needs --download", "usage_error");
  if (opts.watch || exporting) waitOptionsFrom(opts);
  // A bad --download is a usage error before anything is debited.
  if (exporting) await (await import("../../export/client/cli.js")).checkExportWaitFlags({ ...opts, watch: true });
  if ((await ctx.target()) === "hosted") {
    const local = hostedMediaProblem(opts, body);
    if (local) throw local;
  }
  let maxCredits: number | undefined;
  if (opts.maxCredits !== undefined) {
    maxCredits = Number(opts.maxCredits);
    if (!/^\d+(\.\d+)?$/.test(opts.maxCredits.trim())) throw usage("--max-credits", `expected a number of credits, got "${opts.maxCredits}"`);
  }
  const cli = ctx;
  const { guardCost, needsPrice } = await import("../../../cli/cost-guard.js");
  const guard = { ...(maxCredits !== undefined ? { maxCredits } : {}), ...(opts.yes ? { yes: true } : {}) };
  if (opts.dryRun || needsPrice(cli, guard)) {
    const { estimateGenerate } = await import("../estimate.js");
    const target = await cli.target();
    const est = estimateGenerate(body, target);
    if (opts.dryRun) {
      await checkOnTarget(ctx, await ctx.engine(), body);
      ctx.print(
        { estimated_credits: est.credits, seconds: est.seconds, exact: est.exact, basis: est.basis },
        (e) => [
          e.estimated_credits === null
            ? `Not known before it starts: ${e.basis}.`
            : `${e.exact ? "" : "About "}${credits(e.estimated_credits)}${e.seconds !== null ? ` for about ${e.seconds} s of video` : ""}, from ${e.basis}.`,
        ],
        (e) => [e.estimated_credits === null ? "unknown" : String(e.estimated_credits)],
      );
      if (!ctx.opts.json) {
        if (!est.exact && est.credits !== null) ctx.io.info("The service debits its own estimate when the job starts (shown then).");
        ctx.io.info("Dry run: nothing was started.");
      }
      return;
    }
    await guardCost(cli, { ...guard, price: est.credits, what: "this video generation", unknownBecause: est.basis });
  }
  const engine = await ctx.engine();
  const { hintUnknownIds } = await import("../../../cli/names.js");
  const res = await hintUnknownIds(() => engine.generationStart(body, simulate ? { simulate } : {}), sentIds(body, lists));
  // The price is talk (stderr); stdout carries the job id, or with --watch what the wait ends with.
  if (!ctx.opts.json) ctx.io.info(`Started generation ${res.job_id}: ${credits(res.estimated_credits)} (estimated, debited now)`);
  if (exporting) {
    await generateAndExport(ctx, engine, res.job_id, opts);
    return;
  }
  if (!opts.watch) {
    ctx.print(
      res,
      (r: GenerationStartResponse) => [r.job_id],
      (r) => [r.job_id],
    );
    return;
  }
  await watchGeneration(ctx, engine, res.job_id, opts, res.estimated_credits ?? undefined);
}

export const generateCommand: CommandModule = {
  register(generate: Command, getContext) {
    GENERATE_FLAGS.addTo(generate);
    RUN_FLAGS.addTo(generate);
    waitFlagSet(UNTIL_DONE)
      .addTo(generate)
      .action(async (opts: GenerateOptions, cmd: Command) => runGenerate(getContext(cmd), opts));
    addWebhookListen(generate, getContext, { fields: ["webhook", "webhookUrl"] });
    examples(generate, [
      'mediagen generate --prompt "why cats purr" --duration 30 --voice vc_emma --avatar lk_maya_kitchen --watch',
      "mediagen generate --script script.txt --voice vc_noah --avatar lk_james_podcast --format horizontal --json",
      'mediagen script --prompt "our app" | mediagen generate --script - --voice vc_emma --avatar lk_lena_studio --watch --json',
      "mediagen generate --plan plan.json --voice vc_emma --music --watch",
      "mediagen generate --voice-url speech.mp3 --avatar lk_zoe_podcast -q",
      "mediagen generate --body request.json --format custom --width 1280 --height 720",
      'mediagen generate --prompt "why cats purr" --duration 45 --dry-run',
      'mediagen generate --script "Hello! This is a local test." --voice vc_emma --avatar lk_maya_kitchen --watch --export --download hello.mp4',
    ]);
  },
};

/** `generation status`'s own end of a `generate --export` chain (its resume command). */
const STATUS_EXPORT_FLAGS = defineFlags({
  export: { flag: "--export", type: "boolean", help: "then export the video and wait for the export, as `generate --export` does (implies --watch)" },
  download: { flag: "--download <file.mp4|dir>", type: "string", help: "with --export: save the MP4 as this file or into this directory (implies --export)" },
  force: { flag: "--force", type: "boolean", help: "with --download: overwrite an existing file" },
  avatarModel: { flag: "--avatar-model <model>", type: "string", help: "with --export: the export's avatar_model (default standard)" },
});

export const generationCommand: CommandModule = {
  register(group: Command, getContext) {
    examples(group, ["mediagen generation status run_0123456789abcdef01234567", "mediagen generation status run_0123456789abcdef01234567 --watch --json"]);
    const status = group
      .command("status <job_id>")
      .description("Status of a generation job: step, progress, and the video when completed (GET /generation/status/{job_id})");
    waitFlagSet(UNTIL_DONE).addTo(status);
    STATUS_EXPORT_FLAGS.addTo(status);
    status.action(async (jobId: string, opts: GenerateOptions, cmd: Command) => {
      const ctx = getContext(cmd);
      if (opts.watch || opts.export || opts.download !== undefined) waitOptionsFrom(opts);
      const engine = await ctx.engine();
      // The rest of a `generate --watch --export` chain (its resume command): the wait, then the export.
      if (opts.export || opts.download !== undefined) {
        await (await import("../../export/client/cli.js")).checkExportWaitFlags({ ...opts, watch: true });
        await generateAndExport(ctx, engine, jobId, opts);
        return;
      }
      if (opts.avatarModel !== undefined) throw usage("--avatar-model", "needs --export (it is the export's avatar_model)", "usage_error");
      if (opts.force) throw usage("--force", "needs --download", "usage_error");
      if (opts.watch) {
        await watchGeneration(ctx, engine, jobId, opts);
        return;
      }
      const s = await engine.generationStatus({ job_id: jobId });
      ctx.print(s, statusLines, (x) => [x.job_id ?? jobId]);
      await ctx.recordUpdates?.([{ kind: "generation", id: s.job_id ?? jobId, status: s.status, ...(s.result?.video_id ? { video_id: s.result.video_id } : {}) }]);
    });
    examples(status, ["mediagen generation status run_0123456789abcdef01234567", "mediagen generation status run_0123456789abcdef01234567 --watch"]);
  },
};
