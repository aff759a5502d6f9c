/**
 * `mediagen avatar …`: create (prompt or images), edit, status, get, look, list. `--watch` on create
 * and edit waits for the look; `--download` saves the look's thumbnail.
 */
import path from "node:path";
import { Option, type Command } from "commander";
import { CliError, EXIT, type CommandModule, type Context } from "../../cli/types.js";
import { examples, watchOptions, type WatchOptionFlags } from "../../cli/help-text.js";
import { keyValues, table, widthOf } from "../../cli/output.js";
import { absoluteIfFile, checkWaitFlags, collect, overlayFlags, parseSimulate, waits, type FlagField } from "../../cli/parse.js";
import type { Avatar, AvatarListItem, AvatarLookRef, AvatarStatusResponse, LookDetail } from "./contract.js";
import { avatarSchedule } from "../../contract/poll.js";
import type { Engine } from "../../engine/engine.js";
import type { CliContext } from "../../cli/context.js";

// The spec's style lists, repeated here because the contract module loads zod, which --help must not.
const CREATE_STYLES = ["iphone", "selfie", "podcast", "car", "conference"];
const EDIT_STYLES = ["selfie", "podcast", "car", "iphone", "conference", "raw"];

const usage = (flag: string, message: string, code = "invalid_value") => new CliError(`${flag}: ${message}`, EXIT.usage, code, flag);

/** An image URL or a local file (made absolute). */
const imageRef = (value: string) => absoluteIfFile(value.trim());

export interface CreateFlags {
  prompt?: string;
  style?: string;
  format?: string;
  name?: string;
  place?: string;
  image?: string[];
  element?: string[];
  resolution?: string;
  webhookUrl?: string;
}

const images = (values: string[]) => values.map(imageRef);

const CREATE_FIELDS: readonly FlagField<CreateFlags>[] = [
  ["prompt", "prompt"],
  ["style", "style"],
  ["format", "format"],
  ["name", "name"],
  ["place", "place"],
  ["image", "images", images],
  ["element", "elementImages", images],
  ["resolution", "resolution"],
  ["webhookUrl", "webhook_url"],
];

export function createBody(flags: CreateFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  return overlayFlags(flags, CREATE_FIELDS, body);
}

export interface EditFlags {
  avatar?: string;
  look?: string;
  prompt?: string;
  format?: string;
  style?: string;
  image?: string[];
  resolution?: string;
  webhookUrl?: string;
}

const EDIT_FIELDS: readonly FlagField<EditFlags>[] = [
  ["avatar", "avatar_id"],
  ["look", "look_id"],
  ["prompt", "prompt"],
  ["format", "format"],
  ["style", "style"],
  ["image", "imageUrls", images],
  ["resolution", "resolution"],
  ["webhookUrl", "webhook_url"],
];

export function editBody(flags: EditFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  return overlayFlags(flags, EDIT_FIELDS, body);
}

export interface ListFlags {
  gender?: string;
  ageRange?: string;
  ethnicity?: string;
  hairColor?: string;
  place?: string;
  action?: string;
  emotion?: string;
  accessories?: string;
  selfie?: boolean;
  onlyPublic?: boolean;
}

export function listQuery(f: ListFlags): Record<string, string | boolean> {
  const q: Record<string, string | boolean> = {};
  const pairs: [keyof ListFlags, string][] = [
    ["gender", "gender"], ["ageRange", "age_range"], ["ethnicity", "ethnicity"], ["hairColor", "hair_color"],
    ["place", "place"], ["action", "action"], ["emotion", "emotion"], ["accessories", "accessories"],
  ];
  for (const [flag, field] of pairs) {
    const v = f[flag];
    if (typeof v === "string") q[field] = v;
  }
  if (f.selfie !== undefined) q.selfie = f.selfie;
  if (f.onlyPublic) q.onlyPublic = true;
  return q;
}

// ---- human output ---------------------------------------------------------------------------------

function statusLines(s: AvatarStatusResponse): string[] {
  const r = s.result;
  return keyValues([
    ["avatar", s.avatar_id],
    ["look", s.look_id],
    ["status", s.status],
    ["name", r ? `${r.avatar_name} / ${r.look_name}` : null],
    ["format", r?.format ?? null],
    ["place", r?.place ?? null],
    ["thumbnail", r?.thumbnail ?? null],
    ["error", s.error ? `${s.error.code}: ${s.error.message}` : null],
  ]);
}

function lookLines(l: LookDetail): string[] {
  return keyValues([
    ["look", l.id],
    ["name", l.look_name],
    ["avatar", `${l.avatar_id} (${l.avatar_name})`],
    ["status", l.status],
    ["person", [l.gender, l.age_range, l.ethnicity, l.hair_color]],
    ["format", l.format],
    ["place", l.place],
    ["action", l.action],
    ["emotion", l.emotion],
    ["accessories", l.accessories],
    ["selfie", l.selfie],
    ["models", l.model_available],
    ["thumbnail", l.thumbnail],
    ["preview", l.preview],
    ["error", l.error_message],
  ]);
}

function avatarLines(ctx: Context, a: Avatar): string[] {
  const head = keyValues([
    ["avatar", a.id],
    ["name", a.name],
    ["person", [a.gender, a.age, a.age_range, a.ethnicity, a.hair_color]],
    ["created", a.created_at ?? "public catalog"],
    ["thumbnail", a.thumbnail],
  ]);
  const looks = table(
    a.looks,
    [
      { header: "look", get: (l) => l.id },
      { header: "status", get: (l) => l.status },
      { header: "format", get: (l) => l.format, optional: true },
      { header: "place", get: (l) => l.place, optional: true },
      { header: "name", get: (l) => l.name, optional: true },
      { header: "emotion", get: (l) => l.emotion, optional: true },
    ],
    widthOf(ctx.io),
  );
  return [...head, "", ...looks];
}

function listTable(ctx: Context, items: AvatarListItem[]): string[] {
  if (!items.length) {
    ctx.io.info("No looks match.");
    return [];
  }
  return table(
    items,
    [
      { header: "look", get: (i) => i.id },
      { header: "avatar", get: (i) => i.avatar_id },
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

const lookState = (x: AvatarStatusResponse) => (x.status === "completed" ? "done" : x.status === "failed" ? "failed" : "pending");
const lookText = (x: AvatarStatusResponse) => (x.status === "failed" && x.error ? `failed (${x.error.code}: ${x.error.message})` : x.status);

/** Waits for the look and saves its thumbnail when asked (see watch.ts for what is printed). */
async function watchLook(ctx: Context, engine: Engine, ref: AvatarLookRef, flags: WatchOptionFlags): Promise<void> {
  const { watchJobs } = await import("../../cli/watch.js");
  const job = {
    id: ref.look_id,
    label: `look ${ref.look_id}`,
    poll: (signal: AbortSignal) => engine.avatarStatus({ avatar_id: ref.avatar_id, look_id: ref.look_id }, { signal }),
  };
  await watchJobs(ctx as CliContext, [job], {
    state: lookState,
    describe: lookText,
    schedule: avatarSchedule,
    unknown: () => ({ avatar_id: ref.avatar_id, look_id: ref.look_id, status: "unknown" }),
    human: statusLines,
    file: (x) => (x.result?.thumbnail ? { url: x.result.thumbnail, name: thumbnailName(x.look_id, x.result.thumbnail) } : undefined),
    resumeArgs: () => ["avatar", "status", ref.avatar_id, ref.look_id, "--watch"],
  }, flags);
}

/** Prints a create/edit answer, then waits when asked. */
async function answer(ctx: Context, engine: Engine, res: AvatarLookRef, flags: WatchOptionFlags, line: (r: AvatarLookRef) => string): Promise<void> {
  if (!waits(flags)) {
    ctx.print(res, (r) => [line(r)], (r) => [r.avatar_id, r.look_id]);
    return;
  }
  // While waiting the answer is talk (stderr): stdout carries only what the wait ends with.
  if (!ctx.opts.json) ctx.io.info(line(res));
  await watchLook(ctx, engine, res, flags);
}

// ---- commands -------------------------------------------------------------------------------------

const LOOK_WATCH = { until: "the look is ready (or failed)", saves: "the look's thumbnail into <dir> as <look_id>.<ext>" };

export const command: CommandModule = {
  register(avatar: Command, getContext) {
    examples(avatar, [
      'mediagen avatar create --prompt "friendly barista, warm light" --watch',
      "mediagen avatar list --gender female --place kitchen,office",
      "mediagen avatar get av_maya",
    ]);

    const create = avatar
      .command("create")
      .description("Create an avatar with its first look (POST /avatar/create): from a prompt (2 credits at 2K, 4 at 4K) or from images (free)")
      .option("--prompt <text>", "describe the person and the scene (wins over --image)")
      .addOption(new Option("--style <style>", "style (default iphone)").choices(CREATE_STYLES))
      .addOption(new Option("--format <format>", "vertical (9:16, default) or horizontal (16:9); prompt only").choices(["vertical", "horizontal"]))
      .option("--name <name>", "avatar name")
      .option("--place <place>", "place or context")
      .option("--image <url>", "an image used as-is as a look, URL or file (repeatable; only without --prompt)", collect)
      .option("--element <url>", "reference element image such as a logo or product (repeatable; prompt only)", collect)
      .addOption(new Option("--resolution <res>", "2K (default) or 4K").choices(["2K", "4K"]))
      .option("--webhook-url <url>", "notified when the look is ready or failed")
      .option("--body <file>", "request body as JSON from a file or - (stdin); flags override its fields")
      .option("--simulate <mode>", "local instance only: fail or fail:<CODE> makes the generation fail (refunded)");
    watchOptions(create, LOOK_WATCH).action(async (opts: CreateFlags & WatchOptionFlags & { body?: string; simulate?: string }, cmd: Command) => {
      const ctx = getContext(cmd);
      const body = createBody(opts, opts.body ? await ctx.readBody(opts.body) : {});
      const hasImages = Array.isArray(body.images) && body.images.length > 0;
      if ((typeof body.prompt !== "string" || body.prompt.trim() === "") && !hasImages) {
        throw usage("--prompt", "missing required flag --prompt (or give --image)", "missing_field");
      }
      const simulate = parseSimulate(opts.simulate);
      await checkWaitFlags(opts);
      const engine = await ctx.engine();
      const res = await engine.avatarCreate(body, simulate ? { simulate } : {});
      await answer(ctx, engine, res, opts, (r) => `Created avatar ${r.avatar_id} with look ${r.look_id}`);
    });
    examples(create, [
      'mediagen avatar create --prompt "friendly barista, warm light" --watch',
      'mediagen avatar create --prompt "podcast host" --style podcast --format horizontal --resolution 4K --watch --download out/',
      "mediagen avatar create --image me.jpg --image https://example.com/me2.png --name Me",
      'mediagen avatar create --prompt "chef with our apron" --element logo.png --json',
    ]);

    const edit = avatar
      .command("edit")
      .description("A new look from an existing one; the source is unchanged (POST /avatar/edit, 2 credits at 2K, 4 at 4K)")
      .option("--avatar <avatar_id>", "avatar (required)")
      .option("--look <look_id>", "source look (required)")
      .option("--prompt <text>", "what changes (required)")
      .addOption(new Option("--format <format>", "vertical (default) or horizontal").choices(["vertical", "horizontal"]))
      .addOption(new Option("--style <style>", "style").choices(EDIT_STYLES))
      .option("--image <url>", "extra image, URL or file (repeatable; the source look's image comes first)", collect)
      .addOption(new Option("--resolution <res>", "2K (default) or 4K").choices(["2K", "4K"]))
      .option("--webhook-url <url>", "notified when the look is ready or failed")
      .option("--body <file>", "request body as JSON from a file or - (stdin); flags override its fields")
      .option("--simulate <mode>", "local instance only: fail or fail:<CODE> makes the generation fail (refunded)");
    watchOptions(edit, LOOK_WATCH).action(async (opts: EditFlags & WatchOptionFlags & { body?: string; simulate?: string }, cmd: Command) => {
      const ctx = getContext(cmd);
      const body = editBody(opts, opts.body ? await ctx.readBody(opts.body) : {});
      for (const [field, flag] of [["avatar_id", "--avatar"], ["look_id", "--look"], ["prompt", "--prompt"]] as const) {
        if (body[field] === undefined) throw usage(flag, `missing required flag ${flag}`, "missing_field");
      }
      const simulate = parseSimulate(opts.simulate);
      await checkWaitFlags(opts);
      const engine = await ctx.engine();
      const res = await engine.avatarEdit(body, simulate ? { simulate } : {});
      await answer(ctx, engine, res, opts, (r) => `New look ${r.look_id} of avatar ${r.avatar_id}`);
    });
    examples(edit, [
      'mediagen avatar edit --avatar av_maya --look lk_maya_kitchen --prompt "in a bakery" --watch',
      'mediagen avatar edit --avatar av_123 --look lk_456 --prompt "holding our product" --image product.png --format horizontal',
    ]);

    const status = avatar
      .command("status <avatar_id> <look_id>")
      .description("Status of a look's generation (GET /avatar/status)");
    watchOptions(status, LOOK_WATCH).action(async (avatarId: string, lookId: string, opts: WatchOptionFlags, cmd: Command) => {
      const ctx = getContext(cmd);
      const engine = await ctx.engine();
      if (waits(opts)) {
        await watchLook(ctx, engine, { avatar_id: avatarId, look_id: lookId }, opts);
        return;
      }
      const s = await engine.avatarStatus({ avatar_id: avatarId, look_id: lookId });
      ctx.print(s, statusLines, (x) => [x.look_id]);
    });
    examples(status, ["mediagen avatar status av_123 lk_456", "mediagen avatar status av_123 lk_456 --watch --download out/"]);

    const get = avatar
      .command("get <avatar_id>")
      .description("One avatar with all its looks, from the space or the public catalog (GET /avatar/{avatar_id})")
      .action(async (avatarId: string, _opts: unknown, cmd: Command) => {
        const ctx = getContext(cmd);
        const engine = await ctx.engine();
        const a = await engine.avatarGet({ avatar_id: avatarId });
        ctx.print(a, (x) => avatarLines(ctx, x), (x) => x.looks.map((l) => l.id));
      });
    examples(get, ["mediagen avatar get av_maya", "mediagen avatar get av_maya --json | jq '.looks[].id'"]);

    const look = avatar
      .command("look <avatar_id> <look_id>")
      .description("One look with its avatar's fields (GET /avatar/{avatar_id}/look/{look_id})")
      .option("--download <dir>", "save the look's thumbnail into <dir> as <look_id>.<ext>")
      .option("--force", "overwrite an existing file")
      .action(async (avatarId: string, lookId: string, opts: { download?: string; force?: boolean }, cmd: Command) => {
        const ctx = getContext(cmd);
        const engine = await ctx.engine();
        const l = await engine.avatarLook({ avatar_id: avatarId, look_id: lookId });
        if (opts.download === undefined) {
          ctx.print(l, lookLines, (x) => [x.id]);
          return;
        }
        if (!l.thumbnail) throw new CliError(`look ${l.id} has no thumbnail yet`, EXIT.error, "no_thumbnail");
        const { resumeCommand } = await import("../../cli/resume.js");
        const saved = await (ctx as CliContext).save(l.thumbnail, opts.download, thumbnailName(l.id, l.thumbnail), {
          force: opts.force === true,
          resume: resumeCommand(ctx.opts, ["avatar", "look", avatarId, lookId, "--download", opts.download, ...(opts.force ? ["--force"] : [])]),
        });
        // As with --watch --download: with --json stdout keeps the object and the path goes to stderr as NDJSON.
        if (ctx.opts.json) {
          ctx.print(l, lookLines);
          ctx.io.info(JSON.stringify({ id: l.id, saved }));
        } else {
          ctx.print(saved, (p) => [p], (p) => [p]);
        }
      });
    examples(look, ["mediagen avatar look av_maya lk_maya_office", "mediagen avatar look av_maya lk_maya_office --download thumbs/"]);

    const list = avatar
      .command("list")
      .description("Looks of the space first, then the public catalog (GET /avatar/list); list filters take comma-separated values")
      .addOption(new Option("--gender <gender>", "male or female").choices(["male", "female"]))
      .option("--age-range <list>", "senior, adult, young_adult, adolescent")
      .option("--ethnicity <list>", "ethnicities")
      .option("--hair-color <list>", "black, brown, blonde, red, gray, white, bald")
      .option("--place <list>", "e.g. kitchen,office,podcast")
      .option("--action <list>", "e.g. talking,cooking")
      .option("--emotion <list>", "e.g. happy,calm,confident")
      .option("--accessories <list>", "looks with any of these, e.g. glasses,headphones")
      .option("--selfie", "only selfie looks")
      .option("--no-selfie", "only looks that are not selfies")
      .option("--only-public", "only the public catalog")
      .action(async (opts: ListFlags, cmd: Command) => {
        const ctx = getContext(cmd);
        const engine = await ctx.engine();
        const items = await engine.avatarList(listQuery(opts));
        ctx.print(items, (r) => listTable(ctx, r), (r) => r.map((i) => i.id));
      });
    examples(list, [
      "mediagen avatar list",
      "mediagen avatar list --gender female --place kitchen,office --selfie",
      "mediagen avatar list --only-public --accessories headphones --json",
    ]);
  },
};
