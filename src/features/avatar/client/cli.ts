/**
 * `mediagen avatar …`: create (prompt or images), edit, status, get, look, list. `--watch` on create
 * and edit waits for the look; `--download` saves the look's thumbnail.
 */
import path from "node:path";
import { addWebhookListen } from "../../../cli/webhook-listen.js";
import type { Command } from "commander";
import { CliError, EXIT } from "../../../cli/types.js";
import type { CommandModule, ContextGetter } from "../../../cli/command-context.js";
import { examples, watchOptions, type WatchOptionFlags } from "../../../cli/help-text.js";
import { keyValues, table, widthOf } from "../../../cli/output.js";
import { absoluteIfFile, checkWaitFlags, waits } from "../../../cli/parse.js";
import { BODY_FLAG, defineFlags, SIMULATE_FLAG, type FlagInput } from "../../../cli/flags.js";
import type { Avatar, AvatarListItem, AvatarLookRef, AvatarStatusResponse, LookDetail, ResourceAvatar } from "../contract.js";
import { avatarSchedule } from "../../../contract/poll.js";
import type { Engine } from "../../../engine/engine.js";
import type { CommandContext } from "../../../cli/command-context.js";
import type { WatchKind } from "../../../cli/watch.js";
import type { WaitJob } from "../../../cli/wait.js";
import { refundedOn, refundNote } from "../../../cli/credits-note.js";
import { lookStateText } from "./states.js";
import { guardStart, START_GUARD_FLAGS } from "../../../cli/cost-guard.js";
import { avatarLife } from "../life.js";
import { jobErrorText, lifeState } from "../../life.js";

import {
  AVATAR_CREATE_STYLES as CREATE_STYLES,
  AVATAR_EDIT_STYLES as EDIT_STYLES,
  AVATAR_RESOLUTIONS as RESOLUTIONS,
  LOOK_FORMATS as FORMATS,
} from "../../../contract/avatar-vocabulary.js";
import { splitList } from "../../../contract/query.js";

const usage = (flag: string, message: string, code = "invalid_value") => new CliError(`${flag}: ${message}`, EXIT.usage, code, flag);

/** An image URL or a local file (made absolute). */
const imageRef = (value: string) => absoluteIfFile(value.trim());

const images = { type: "list", item: imageRef, media: "url" } as const;
/** `--tags a,b` → `["a", "b"]`. */
const tagList = (value: string) => splitList(value);

/** The flags every look start ends with: its webhook, a whole body, the local failure, the cost guard. */
const LOOK_START_FLAGS = {
  webhookUrl: { flag: "--webhook-url <url>", type: "string", help: "notified when the look is ready or failed", field: "webhook_url" },
  body: BODY_FLAG,
  simulate: SIMULATE_FLAG,
  ...START_GUARD_FLAGS,
} as const;

export const CREATE_FLAGS = defineFlags({
  prompt: { flag: "--prompt <text>", type: "string", help: "describe the person and the scene (wins over --image)", field: "prompt" },
  style: { flag: "--style <style>", type: "choice", choices: CREATE_STYLES, help: "style (default iphone; raw: no styling)", field: "style" },
  format: { flag: "--format <format>", type: "choice", choices: FORMATS, help: "vertical (9:16, default) or horizontal (16:9); prompt only", field: "format" },
  name: { flag: "--name <name>", type: "string", help: "avatar name", field: "name" },
  place: { flag: "--place <place>", type: "string", help: "place or context", field: "place" },
  image: { flag: "--image <url>", ...images, help: "an image used as-is as a look, URL or file (repeatable; only without --prompt)", field: "images" },
  element: { flag: "--element <url>", ...images, help: "reference element image such as a logo or product (repeatable; prompt only)", field: "elementImages" },
  resolution: { flag: "--resolution <res>", type: "choice", choices: RESOLUTIONS, help: "2K (default, 2 credits) or 4K (4 credits); prompt only", field: "resolution" },
  ...LOOK_START_FLAGS,
});
export type CreateFlags = FlagInput<typeof CREATE_FLAGS>;

export function createBody(flags: CreateFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  return CREATE_FLAGS.request(CREATE_FLAGS.values(flags), body);
}

export const EDIT_FLAGS = defineFlags({
  avatar: { flag: "--avatar <avatar_id>", type: "string", help: "the avatar (default: the avatar the --look belongs to)", field: "avatar_id" },
  look: { flag: "--look <look_id>", type: "string", help: "source look (required)", field: "look_id" },
  prompt: { flag: "--prompt <text>", type: "string", help: "what changes (required)", field: "prompt" },
  format: { flag: "--format <format>", type: "choice", choices: FORMATS, help: "vertical (default) or horizontal", field: "format" },
  style: { flag: "--style <style>", type: "choice", choices: EDIT_STYLES, help: "style", field: "style" },
  image: { flag: "--image <url>", ...images, help: "extra image, URL or file (repeatable; the source look's image comes first)", field: "imageUrls" },
  resolution: { flag: "--resolution <res>", type: "choice", choices: RESOLUTIONS, help: "2K (default, 2 credits) or 4K (4 credits)", field: "resolution" },
  upscale: { flag: "--upscale", type: "boolean", help: "upscale the new look (+1.5 credits)", field: "upscale" },
  lookName: { flag: "--look-name <name>", type: "string", help: "name of the new look", field: "look_name" },
  place: { flag: "--place <place>", type: "string", help: "place or context of the new look", field: "place" },
  tags: { flag: "--tags <list>", type: "string", to: tagList, help: "tags of the new look, comma-separated", field: "tags" },
  ...LOOK_START_FLAGS,
});
export type EditFlags = FlagInput<typeof EDIT_FLAGS>;

export function editBody(flags: EditFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  return EDIT_FLAGS.request(EDIT_FLAGS.values(flags), body);
}

export const LIST_FLAGS = defineFlags({
  gender: { flag: "--gender <gender>", type: "choice", choices: ["male", "female"], help: "male or female", field: "gender" },
  ageRange: { flag: "--age-range <list>", type: "string", help: "senior, adult, young_adult, adolescent", field: "age_range" },
  ethnicity: { flag: "--ethnicity <list>", type: "string", help: "ethnicities", field: "ethnicity" },
  hairColor: { flag: "--hair-color <list>", type: "string", help: "black, brown, blonde, red, gray, white, bald", field: "hair_color" },
  place: { flag: "--place <list>", type: "string", help: "e.g. kitchen,office,podcast", field: "place" },
  action: { flag: "--action <list>", type: "string", help: "e.g. talking,cooking", field: "action" },
  emotion: { flag: "--emotion <list>", type: "string", help: "e.g. happy,calm,confident", field: "emotion" },
  accessories: { flag: "--accessories <list>", type: "string", help: "looks with any of these, e.g. glasses,headphones", field: "accessories" },
  selfie: { flag: "--selfie", type: "boolean", help: "only selfie looks", negate: "only looks that are not selfies", field: "selfie" },
  onlyPublic: { flag: "--only-public", type: "boolean", help: "only the public catalog", field: "onlyPublic" },
  tags: { flag: "--tags <list>", type: "string", help: "looks with any of these tags, e.g. ecommerce,business", field: "tags" },
  legacy: { flag: "--legacy", type: "boolean", help: "the legacy listing (GET /resources/avatars): filters --gender and --tags only" },
});
export type ListFlags = FlagInput<typeof LIST_FLAGS>;

/** The filters the legacy listing (GET /resources/avatars) takes. */
const LEGACY_FILTERS = new Set(["gender", "tags"]);

export function listQuery(f: ListFlags): Record<string, unknown> {
  return LIST_FLAGS.request(LIST_FLAGS.values(f));
}

/** `avatar list --legacy`: another filter than --gender and --tags is a usage error naming it. */
function legacyQuery(ctx: CommandContext, flags: ReturnType<typeof LIST_FLAGS.values>): Record<string, unknown> {
  const query = LIST_FLAGS.request(flags);
  const other = Object.keys(query).find((field) => !LEGACY_FILTERS.has(field));
  if (other !== undefined) {
    const flag = LIST_FLAGS.flagFor(other) ?? other;
    throw usage(flag, `${flag} does not apply to the legacy listing (GET /resources/avatars takes --gender and --tags)`);
  }
  ctx.explainWith?.(LIST_FLAGS.givenFlags(flags), query);
  return query;
}

/**
 * `avatar edit --look <id>` without `--avatar`: a look belongs to one avatar, so the avatar is read
 * from the look list (undefined when the list does not have it: then --avatar is asked for).
 */
async function avatarOfLook(ctx: CommandContext, lookId: string): Promise<string | undefined> {
  const looks = (await (await ctx.engine()).avatarList({})) as { id: string; avatar_id?: string }[];
  return looks.find((l) => l.id === lookId)?.avatar_id;
}

// ---- human output ---------------------------------------------------------------------------------

export { lookStateText };

function statusLines(s: AvatarStatusResponse, withError = true): string[] {
  const r = s.result;
  return keyValues(
    [
      ["avatar", s.avatar_id],
      ["look", s.look_id],
      ["status", lookStateText(s.status)],
      ["name", r ? `${r.avatar_name} / ${r.look_name}` : null],
      ["format", r?.format ?? null],
      ["place", r?.place ?? null],
      ["thumbnail", r?.thumbnail ?? null],
      ["error", withError && s.error ? jobErrorText(s.error) : null],
    ].filter(([, v]) => v !== null) as [string, unknown][],
  );
}

function lookLines(l: LookDetail): string[] {
  return keyValues([
    ["look", l.id],
    ["name", l.look_name],
    ["avatar", l.avatar_name ? `${l.avatar_id ?? "?"} (${l.avatar_name})` : (l.avatar_id ?? null)],
    ["status", l.status ? lookStateText(l.status) : null],
    ["person", [l.gender, l.age_range, l.ethnicity, l.hair_color]],
    ["format", l.format],
    ["place", l.place],
    ["action", l.action],
    ["emotion", l.emotion],
    ["accessories", l.accessories],
    ["selfie", l.selfie],
    ["models", l.model_available],
    ["thumbnail", l.thumbnail ?? null],
    ["preview", l.preview],
    ["error", l.error_message],
  ]);
}

function avatarLines(ctx: CommandContext, a: Avatar): string[] {
  const head = keyValues([
    ["avatar", a.id],
    ["name", a.name],
    ["person", [a.gender, a.age, a.age_range, a.ethnicity, a.hair_color]],
    ["created", a.created_at ?? "public catalog"],
    ["thumbnail", a.thumbnail ?? null],
  ]);
  const looks = table(
    a.looks ?? [],
    [
      { header: "look", get: (l) => l.id, id: true },
      { header: "status", get: (l) => (l.status ? lookStateText(l.status) : null) },
      { header: "format", get: (l) => l.format, optional: true },
      { header: "place", get: (l) => l.place, optional: true },
      { header: "name", get: (l) => l.name, optional: true },
      { header: "emotion", get: (l) => l.emotion, optional: true },
    ],
    widthOf(ctx.io),
  );
  return [...head, "", ...looks];
}

function listTable(ctx: CommandContext, items: AvatarListItem[]): string[] {
  if (!items.length) {
    ctx.io.info("No looks match.");
    return [];
  }
  return table(
    items,
    [
      { header: "look", get: (i) => i.id, id: true },
      { header: "avatar", get: (i) => i.avatar_id, id: true },
      { header: "place", get: (i) => i.place, optional: true },
      { header: "format", get: (i) => i.format, optional: true },
      { header: "gender", get: (i) => i.gender, optional: true },
      { header: "name", get: (i) => i.avatar_name, optional: true },
      { header: "emotion", get: (i) => i.emotion, optional: true },
      { header: "age", get: (i) => i.age_range, optional: true },
      { header: "selfie", get: (i) => i.selfie, optional: true },
      { header: "look name", get: (i) => i.look_name, optional: true },
    ],
    widthOf(ctx.io),
  );
}

function legacyTable(ctx: CommandContext, items: ResourceAvatar[]): string[] {
  if (!items.length) {
    ctx.io.info("No looks match.");
    return [];
  }
  return table(
    items,
    [
      { header: "look", get: (i) => i.id, id: true },
      { header: "avatar", get: (i) => i.avatar_name },
      { header: "look name", get: (i) => i.look_name, optional: true },
      { header: "gender", get: (i) => i.gender, optional: true },
      { header: "place", get: (i) => i.place, optional: true },
      { header: "format", get: (i) => i.format, optional: true },
      { header: "tags", get: (i) => i.tags, optional: true },
    ],
    widthOf(ctx.io),
  );
}

// ---- waiting and saving ---------------------------------------------------------------------------

function thumbnailName(lookId: string, url: string): string {
  let ext = "";
  try {
    ext = path.posix.extname(new URL(url, "file:///").pathname);
  } catch {
    // keep the default
  }
  return `${lookId}${/^\.[a-z0-9]{1,5}$/i.test(ext) ? ext.toLowerCase() : ".png"}`;
}

/** Its terminal states are its life's (./life.ts). */
const lookState = (x: AvatarStatusResponse) => lifeState(avatarLife.jobs!.look!, x as unknown as Record<string, unknown>);
const lookText = (x: AvatarStatusResponse) => lookStateText(x.status);

/** The credits a create or edit costs: prompt-based 2 (2K) or 4 (4K), +1.5 for an upscaled edit; image-based nothing. */
export function lookCost(body: Record<string, unknown>, promptBased: boolean): number {
  return promptBased ? (body.resolution === "4K" ? 4 : 2) + (body.upscale === true ? 1.5 : 0) : 0;
}

/**
 * Waits for the look and saves its thumbnail when asked (see watch.ts for what is printed). `cost`:
 * what the create or edit that started it was charged, when this command knows.
 */
async function watchLook(ctx: CommandContext, engine: Engine, ref: AvatarLookRef, flags: WatchOptionFlags, cost?: number): Promise<void> {
  const { watchJobs } = await import("../../../cli/watch.js");
  const { jobs, kind } = lookWatch(engine, ref, cost);
  await watchJobs(ctx, jobs, kind, flags);
}

/** The wait for a look (watch.ts): its status, its failure, and its thumbnail to save. */
export function lookWatch(engine: Engine, ref: AvatarLookRef, cost?: number): { jobs: WaitJob<AvatarStatusResponse>[]; kind: WatchKind<AvatarStatusResponse> } {
  const job = {
    id: ref.look_id,
    label: `look ${ref.look_id}`,
    poll: (signal: AbortSignal) => engine.avatarStatus({ avatar_id: ref.avatar_id, look_id: ref.look_id }, { signal }),
  };
  return {
    jobs: [job],
    kind: {
      journal: "look",
      state: lookState,
      describe: lookText,
      failure: (x, target) => `${jobErrorText(x.error)}; ${refundNote(cost, refundedOn(target))}`,
      schedule: avatarSchedule,
      unknown: () => ({ avatar_id: ref.avatar_id, look_id: ref.look_id, status: "unknown" }),
      // The reason of a failure is said once, in the error that ends the command.
      human: (x) => statusLines(x, false),
      file: (x) => (x.result?.thumbnail ? { url: x.result.thumbnail, name: thumbnailName(x.look_id ?? ref.look_id, x.result.thumbnail) } : undefined),
      resumeArgs: () => ["avatar", "status", ref.avatar_id, ref.look_id, "--watch"],
    },
  };
}

/** What `avatar edit --dry-run` checks for free: the source look, read through its avatar (GET), as the edit would find it. */
async function checkLookOfAvatar(engine: Engine, body: Record<string, unknown>): Promise<void> {
  await engine.avatarLook({ avatar_id: String(body.avatar_id), look_id: String(body.look_id) });
}

/** Prints a create/edit answer, then waits when asked. */
async function answer(ctx: CommandContext, engine: Engine, res: AvatarLookRef, flags: WatchOptionFlags, line: (r: AvatarLookRef) => string, cost: number): Promise<void> {
  if (!waits(flags)) {
    ctx.print(
      res,
      (r) => [line(r)],
      (r) => [r.avatar_id, r.look_id],
    );
    return;
  }
  // While waiting the answer is talk (stderr): stdout carries only what the wait ends with.
  if (!ctx.opts.json) ctx.io.info(line(res));
  await watchLook(ctx, engine, res, flags, cost);
}

// ---- commands -------------------------------------------------------------------------------------

const LOOK_WATCH = { until: "the look is ready (or failed)", saves: "the look's thumbnail into <dir> as <look_id>.<ext>" };

function registerCreate(avatar: Command, getContext: ContextGetter): void {
  const create = CREATE_FLAGS.addTo(
    avatar.command("create").description("Create an avatar with its first look (POST /avatar/create): from a prompt (2 credits at 2K, 4 at 4K) or from images (free)"),
  );
  watchOptions(create, LOOK_WATCH).action(async (opts: CreateFlags & WatchOptionFlags, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = CREATE_FLAGS.values(opts);
    const body = CREATE_FLAGS.request(flags, flags.body ? await ctx.readBody(flags.body) : {});
    const hasImages = Array.isArray(body.images) && body.images.length > 0;
    if ((typeof body.prompt !== "string" || body.prompt.trim() === "") && !hasImages) {
      throw usage("--prompt", "missing required flag --prompt (or give --image)", "missing_field");
    }
    if ((await ctx.target()) === "hosted") {
      const local = CREATE_FLAGS.hostedMediaError(opts);
      if (local) throw local;
    }
    const simulate = flags.simulate;
    await checkWaitFlags(opts);
    ctx.explainWith?.(CREATE_FLAGS.givenFlags(flags), body);
    const engine = await ctx.engine();
    if ((await guardStart(ctx, engine, "avatarCreate", body, flags)) === "dry-run") return;
    const res = await engine.avatarCreate(body, simulate ? { simulate } : {});
    const promptBased = typeof body.prompt === "string" && body.prompt.trim() !== "";
    await answer(ctx, engine, res, opts, (r) => `Created avatar ${r.avatar_id} with look ${r.look_id}`, lookCost(body, promptBased));
  });
  addWebhookListen(create, getContext, { fields: ["webhookUrl"] });
  examples(create, [
    'mediagen avatar create --prompt "friendly barista, warm light" --watch',
    'mediagen avatar create --prompt "podcast host" --style podcast --format horizontal --resolution 4K --watch --download out/',
    "mediagen avatar create --image me.jpg --image https://example.com/me2.png --name Me",
    'mediagen avatar create --prompt "chef with our apron" --element logo.png --json',
    'mediagen avatar create --prompt "a potter in her studio" --style raw --resolution 4K',
  ]);
}

function registerEdit(avatar: Command, getContext: ContextGetter): void {
  const edit = EDIT_FLAGS.addTo(
    avatar.command("edit").description("A new look from an existing one; the source is unchanged (POST /avatar/edit, 2 credits at 2K, 4 at 4K)"),
  );
  watchOptions(edit, LOOK_WATCH).action(async (opts: EditFlags & WatchOptionFlags, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = EDIT_FLAGS.values(opts);
    const body = EDIT_FLAGS.request(flags, flags.body ? await ctx.readBody(flags.body) : {});
    if (body.avatar_id === undefined && typeof body.look_id === "string") body.avatar_id = await avatarOfLook(ctx, body.look_id);
    for (const [field, flag] of [
      ["avatar_id", "--avatar"],
      ["look_id", "--look"],
      ["prompt", "--prompt"],
    ] as const) {
      if (body[field] === undefined) throw usage(flag, `missing required flag ${flag}`, "missing_field");
    }
    if ((await ctx.target()) === "hosted") {
      const local = EDIT_FLAGS.hostedMediaError(opts);
      if (local) throw local;
    }
    const simulate = flags.simulate;
    await checkWaitFlags(opts);
    ctx.explainWith?.(EDIT_FLAGS.givenFlags(flags), body);
    const engine = await ctx.engine();
    if ((await guardStart(ctx, engine, "avatarEdit", body, flags, () => checkLookOfAvatar(engine, body))) === "dry-run") return;
    const res = await engine.avatarEdit(body, simulate ? { simulate } : {});
    await answer(ctx, engine, res, opts, (r) => `New look ${r.look_id} of avatar ${r.avatar_id}`, lookCost(body, true));
  });
  addWebhookListen(edit, getContext, { fields: ["webhookUrl"] });
  examples(edit, [
    'mediagen avatar edit --look lk_maya_kitchen --prompt "in a bakery" --watch',
    'mediagen avatar edit --avatar av_123 --look lk_456 --prompt "holding our product" --image product.png --format horizontal',
    'mediagen avatar edit --look lk_maya_office --prompt "at a trade fair" --look-name "Maya at the fair" --tags business,events --upscale',
  ]);
}

function registerStatus(avatar: Command, getContext: ContextGetter): void {
  const status = avatar.command("status <avatar_id> <look_id>").description("Status of a look's generation (GET /avatar/status)");
  watchOptions(status, LOOK_WATCH).action(async (avatarId: string, lookId: string, opts: WatchOptionFlags, cmd: Command) => {
    const ctx = getContext(cmd);
    const engine = await ctx.engine();
    if (waits(opts)) {
      await watchLook(ctx, engine, { avatar_id: avatarId, look_id: lookId }, opts);
      return;
    }
    const s = await engine.avatarStatus({ avatar_id: avatarId, look_id: lookId });
    ctx.print(s, statusLines, (x) => [x.look_id ?? lookId]);
    await ctx.recordUpdates?.([{ kind: "look", id: s.look_id ?? lookId, status: s.status }]);
  });
  examples(status, ["mediagen avatar status av_123 lk_456", "mediagen avatar status av_123 lk_456 --watch --download out/"]);
}

function registerGet(avatar: Command, getContext: ContextGetter): void {
  const get = avatar
    .command("get <avatar_id>")
    .description("One avatar with all its looks, from the space or the public catalog (GET /avatar/{avatar_id})")
    .action(async (avatarId: string, _opts: unknown, cmd: Command) => {
      const ctx = getContext(cmd);
      const engine = await ctx.engine();
      const a = await engine.avatarGet({ avatar_id: avatarId });
      ctx.print(
        a,
        (x) => avatarLines(ctx, x),
        (x) => (x.looks ?? []).map((l) => l.id),
      );
    });
  examples(get, ["mediagen avatar get av_maya", "mediagen avatar get av_maya --json | jq '.looks[].id'"]);
}

const LOOK_FLAGS = defineFlags({
  download: { flag: "--download <dir>", type: "string", help: "save the look's thumbnail into <dir> as <look_id>.<ext>" },
  force: { flag: "--force", type: "boolean", help: "overwrite an existing file" },
});

function registerLook(avatar: Command, getContext: ContextGetter): void {
  const look = avatar.command("look <avatar_id> <look_id>").description("One look with its avatar's fields (GET /avatar/{avatar_id}/look/{look_id})");
  LOOK_FLAGS.addTo(look).action(async (avatarId: string, lookId: string, opts: FlagInput<typeof LOOK_FLAGS>, cmd: Command) => {
    const ctx = getContext(cmd);
    const engine = await ctx.engine();
    const l = await engine.avatarLook({ avatar_id: avatarId, look_id: lookId });
    if (opts.download === undefined) {
      ctx.print(l, lookLines, (x) => [x.id]);
      return;
    }
    if (!l.thumbnail) throw new CliError(`look ${l.id} has no thumbnail yet`, EXIT.error, "no_thumbnail");
    const { resumeCommand } = await import("../../../cli/resume.js");
    const saved = await ctx.save(l.thumbnail, opts.download, thumbnailName(l.id, l.thumbnail), {
      force: opts.force === true,
      resume: resumeCommand(ctx.opts, ["avatar", "look", avatarId, lookId, "--download", opts.download, ...(opts.force ? ["--force"] : [])]),
    });
    // As with --watch --download: with --json stdout keeps the object and the path goes to stderr as NDJSON.
    if (ctx.opts.json) {
      ctx.print(l, lookLines);
      ctx.io.info(JSON.stringify({ id: l.id, saved }));
    } else {
      ctx.print(
        saved,
        (p) => [p],
        (p) => [p],
      );
    }
  });
  examples(look, ["mediagen avatar look av_maya lk_maya_office", "mediagen avatar look av_maya lk_maya_office --download thumbs/"]);
}

function registerList(avatar: Command, getContext: ContextGetter): void {
  const list = LIST_FLAGS.addTo(
    avatar.command("list").description("Looks of the space first, then the public catalog (GET /avatar/list); list filters take comma-separated values"),
  ).action(async (opts: ListFlags, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = LIST_FLAGS.values(opts);
    if (flags.legacy) {
      const query = legacyQuery(ctx, flags);
      const items = await (await ctx.engine()).resourceAvatars(query);
      ctx.print(
        items,
        (r) => legacyTable(ctx, r),
        (r) => r.map((i) => i.id),
      );
      return;
    }
    const query = listQuery(opts);
    ctx.explainWith?.(LIST_FLAGS.givenFlags(flags), query);
    const engine = await ctx.engine();
    const items = await engine.avatarList(query);
    ctx.print(
      items,
      (r) => listTable(ctx, r),
      (r) => r.map((i) => i.id),
    );
  });
  examples(list, [
    "mediagen avatar list",
    "mediagen avatar list --gender female --place kitchen,office --selfie",
    "mediagen avatar list --only-public --accessories headphones --json",
    "mediagen avatar list --tags ecommerce,business",
    "mediagen avatar list --legacy --gender female --tags business",
  ]);
}

export const command: CommandModule = {
  register(avatar: Command, getContext) {
    examples(avatar, [
      'mediagen avatar create --prompt "friendly barista, warm light" --watch',
      "mediagen avatar list --gender female --place kitchen,office",
      "mediagen avatar get av_maya",
    ]);

    registerCreate(avatar, getContext);
    registerEdit(avatar, getContext);
    registerStatus(avatar, getContext);
    registerGet(avatar, getContext);
    registerLook(avatar, getContext);
    registerList(avatar, getContext);
  },
};
