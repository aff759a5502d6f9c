/**
 * `mediagen local …`: the dashboard of the local instance (spaces, keys, credits, ledger, webhooks,
 * reset). Always acts on the instance under $MEDIAGEN_HOME, whatever the target.
 */
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandModule, ContextGetter } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { cell, table, widthOf, type Column } from "../output.js";
import { parseCredits } from "../parse.js";
import { registerCatalog } from "./local-catalog.js";
import { counted } from "../../engine/words.js";
import { registerFaults } from "./local-faults.js";
import { registerRequests } from "./local-requests.js";
import { registerSnapshots } from "./local-snapshot.js";
import { registerWebhookReplay } from "./local-webhooks.js";
import { registerClock } from "./local-clock.js";
import { defineFlags, type FlagInput } from "../flags.js";

type Getter = (cmd: Command) => CommandContext;

/**
 * A key on the command line shows in `ps` and the shell's history, so revoke and regenerate also take
 * the key's id (`local keys list`) or `-` to read the key from stdin (a hidden prompt on a terminal).
 */
const KEY_ARGUMENT = "the key's id (key_…, from `local keys list`), - to read the key from stdin, or the key itself";
const KEY_STDIN_MAX = 4096;

async function keyArgument(ctx: CommandContext, ref: string): Promise<string> {
  if (ref !== "-") return ref;
  const io = ctx.io;
  if ((io.stdin as { isTTY?: boolean }).isTTY === true) {
    const { readKey } = await import("./auth.js");
    return readKey(io, true);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of io.stdin) {
    const b = typeof c === "string" ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > KEY_STDIN_MAX) throw new CliError("<key> -: stdin holds more than a key", EXIT.usage, "invalid_value", "key");
    chunks.push(b);
  }
  const key = Buffer.concat(chunks).toString("utf8").trim();
  if (!key) throw new CliError("<key> -: stdin is empty; pipe the key in", EXIT.usage, "missing_field", "key");
  return key;
}

const SHOWN_ONCE = "This key is shown once: store it now (e.g. `mediagen auth login --with-key`).";

async function plan(value: string) {
  const { parsePlan, PLANS } = await import("../../contract/plans.js");
  const p = parsePlan(value);
  if (!p) throw new CliError(`--plan: unknown plan "${value}" (plans: ${PLANS.join(", ")})`, EXIT.usage, "invalid_value", "plan");
  return p;
}

/** Prints a freshly minted key: data on stdout, the shown-once warning on stderr. */
function printKey(ctx: CommandContext, result: { api_key: string; space_id?: string }, extra: string[] = []) {
  ctx.print(
    result,
    (r) => [r.api_key],
    (r) => [r.api_key],
  );
  if (!ctx.opts.json) {
    for (const line of extra) ctx.io.info(line);
    ctx.io.warn(SHOWN_ONCE);
  }
}

const KEYS_CREATE_FLAGS = defineFlags({
  plan: { flag: "--plan <plan>", type: "string", required: true, help: "free, start, PRO or ENTREPRISE (any case)" },
  credits: { flag: "--credits <n>", type: "string", required: true, to: parseCredits, help: "starting credits" },
  name: { flag: "--name <name>", type: "string", help: "space name" },
});

/** `--space <space_id>` of the lists, each with its own help. */
const spaceFlags = (help: string) => defineFlags({ space: { flag: "--space <space_id>", type: "string", help } });

const NOTE_FLAGS = defineFlags({ note: { flag: "--note <text>", type: "string", help: "note stored with the ledger entry" } });

const RESET_FLAGS = defineFlags({ yes: { flag: "-y, --yes", type: "boolean", help: "do not ask for confirmation" } });

function registerKeys(local: Command, get: Getter) {
  const keys = local.command("keys").description("Create, revoke and regenerate API keys of the local instance");
  examples(keys, ["mediagen local keys create --plan PRO --credits 500 --json", "mediagen local keys list", "mediagen local keys revoke key_65f0c2a1b3e4d5f6a7b8c9d0"]);

  const create = KEYS_CREATE_FLAGS.addTo(keys.command("create").description("Create a space with a plan and credits, and its first API key")).action(
    async (raw: FlagInput<typeof KEYS_CREATE_FLAGS>, cmd: Command) => {
      const ctx = get(cmd);
      const opts = KEYS_CREATE_FLAGS.values(raw);
      const p = await plan(opts.plan!);
      const credits = opts.credits!;
      const instance = await ctx.localInstance();
      const { space, api_key } = instance.createSpace({ ...(opts.name !== undefined ? { name: opts.name } : {}), plan: p, credits });
      printKey(ctx, { api_key, space_id: space.id }, [`Space ${space.id} (${space.name}): plan ${space.plan}, ${space.credits} credits.`]);
    },
  );
  examples(create, [
    "mediagen local keys create --plan PRO --credits 1000",
    "mediagen local keys create --plan free --credits 0 --name trial --json",
    "KEY=$(mediagen local keys create --plan PRO --credits 50 -q)",
  ]);

  const list = spaceFlags("only keys of this space")
    .addTo(keys.command("list").description("List keys (id, space, last four characters, state); revoke or regenerate one by its id"))
    .action(async (opts: { space?: string }, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const rows = instance.listKeys(opts.space);
      ctx.print(
        rows,
        (r) =>
          table(
            r,
            [
              { header: "id", get: (k) => k.id },
              { header: "space", get: (k) => k.space_id },
              { header: "key", get: (k) => k.key },
              { header: "created", get: (k) => k.created_at },
              { header: "revoked", get: (k) => k.revoked_at },
            ],
            widthOf(ctx.io),
          ),
        (r) => r.map((k) => k.id),
      );
    });
  examples(list, ["mediagen local keys list", "mediagen local keys list --space 65f0c2a1b3e4d5f6a7b8c9d0 --json"]);

  const revoke = keys
    .command("revoke")
    .description("Revoke a key at once")
    .argument("<key>", KEY_ARGUMENT)
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const key = await keyArgument(ctx, ref);
      const instance = await ctx.localInstance();
      instance.revokeKey(key);
      ctx.print(
        { revoked: true },
        () => [],
        () => [],
      );
      if (!ctx.opts.json) ctx.io.info("Key revoked.");
    });
  examples(revoke, ["mediagen local keys revoke key_65f0c2a1b3e4d5f6a7b8c9d0", 'printf %s "$KEY" | mediagen local keys revoke -']);

  const regenerate = keys
    .command("regenerate")
    .description("Revoke a key and print its replacement")
    .argument("<key>", KEY_ARGUMENT)
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const key = await keyArgument(ctx, ref);
      const instance = await ctx.localInstance();
      const space = instance.spaceForKey(key);
      const fresh = instance.regenerateKey(key);
      printKey(ctx, { api_key: fresh, ...(space ? { space_id: space.id } : {}) }, ["The old key no longer works."]);
    });
  examples(regenerate, ["NEW=$(mediagen local keys regenerate key_65f0c2a1b3e4d5f6a7b8c9d0 -q)", "NEW=$(mediagen local keys regenerate - -q < old-key.txt)"]);
}

function registerSpaces(local: Command, get: Getter) {
  const spaces = local.command("spaces").description("Spaces of the local instance");
  examples(spaces, ["mediagen local spaces list", "mediagen local spaces list -q"]);
  const list = spaces
    .command("list")
    .description("List spaces with plan and credit balance")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const rows = instance.listSpaces();
      ctx.print(
        rows,
        (r) =>
          table(
            r,
            [
              { header: "id", get: (s) => s.id, id: true },
              { header: "name", get: (s) => s.name },
              { header: "plan", get: (s) => s.plan },
              { header: "credits", get: (s) => s.credits, align: "right" },
              { header: "default", get: (s) => s.is_default },
              { header: "keys", get: (s) => s.keys, align: "right", optional: true },
              { header: "created", get: (s) => s.created_at, optional: true, whole: true },
            ],
            widthOf(ctx.io),
          ),
        (r) => r.map((s) => s.id),
      );
    });
  examples(list, ["mediagen local spaces list", "mediagen local spaces list --json | jq '.[].credits'"]);
}

function registerCredits(local: Command, get: Getter) {
  const credits = local.command("credits").description("Credit balances of local spaces");
  examples(credits, ["mediagen local credits add 65f0c2a1b3e4d5f6a7b8c9d0 250", "mediagen local spaces list --json | jq '.[].credits'"]);
  const add = credits
    .command("add")
    .description("Grant credits to a space (recorded in the ledger)")
    .argument("<space_id>", "space id")
    .argument("<credits>", "credits to add");
  NOTE_FLAGS.addTo(add).action(async (spaceId: string, amount: string, opts: { note?: string }, cmd: Command) => {
    const ctx = get(cmd);
    const n = parseCredits(amount, "credits");
    const instance = await ctx.localInstance();
    const space = instance.addCredits(spaceId, n, opts.note);
    ctx.print(
      space,
      (s) => [`Added ${n} credits to ${s.id}. Balance: ${s.credits}.`],
      (s) => [s.id],
    );
  });
  examples(add, ["mediagen local credits add 65f0c2a1b3e4d5f6a7b8c9d0 250", 'mediagen local credits add "$SPACE" 0.5 --note refund']);
}

function registerLedger(local: Command, get: Getter) {
  const ledger = local
    .command("ledger")
    .description("Show a space's credit ledger, or verify every balance against its ledger")
    .argument("[space_id]", "space id (default: the space of the key in use, else the default space)")
    .action(async (given: string | undefined, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      let spaceId = given;
      if (!spaceId) {
        const space = (await ctx.localSpace().catch(() => undefined)) ?? instance.spaceForKey(instance.defaultKey());
        if (!space) throw new CliError("missing <space_id> (or use `mediagen local ledger verify`)", EXIT.usage, "missing_field", "space_id");
        spaceId = space.id;
        if (!ctx.opts.json) ctx.io.info(`Ledger of space ${space.id} (${space.name}); \`mediagen local ledger <space_id>\` shows another.`);
      }
      const rows = instance.ledgerEntries(spaceId);
      ctx.print(
        rows,
        (r) =>
          table(
            r,
            [
              { header: "created", get: (e) => e.created_at, whole: true },
              { header: "kind", get: (e) => e.kind },
              { header: "amount", get: (e) => e.amount, align: "right" },
              { header: "balance", get: (e) => e.balance_after, align: "right" },
              { header: "ref", get: (e) => e.ref, id: true },
              { header: "note", get: (e) => e.note },
            ],
            widthOf(ctx.io),
          ),
        (r) => r.map((e) => String(e.id)),
      );
    });
  examples(ledger, ["mediagen local ledger", "mediagen local ledger 65f0c2a1b3e4d5f6a7b8c9d0", "mediagen local ledger verify"]);

  const verify = ledger
    .command("verify")
    .description("Check that every balance equals the sum of its ledger (exit 1 on a mismatch)")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const rows = instance.verifyLedger();
      ctx.print(
        rows,
        (r) =>
          table(
            r,
            [
              { header: "space", get: (v) => v.space_id, id: true },
              { header: "balance", get: (v) => v.balance, align: "right" },
              { header: "ledger", get: (v) => v.ledger_sum, align: "right" },
              { header: "ok", get: (v) => v.ok },
            ],
            widthOf(ctx.io),
          ),
        (r) => r.filter((v) => !v.ok).map((v) => v.space_id),
      );
      const bad = rows.filter((v) => !v.ok);
      if (bad.length) {
        throw new CliError(`ledger mismatch in ${counted(bad.length, "space")}: ${bad.map((v) => v.space_id).join(", ")}`, EXIT.error, "ledger_mismatch");
      }
      if (!ctx.opts.json) ctx.io.info(`All ${rows.length} balances match their ledgers.`);
    });
  examples(verify, ["mediagen local ledger verify", "mediagen local ledger verify --json"]);
}

function registerWebhooks(local: Command, get: Getter) {
  const webhooks = spaceFlags("only deliveries of this space")
    .addTo(local.command("webhooks").description("List webhook deliveries and their attempts"))
    .action(async (opts: { space?: string }, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const rows = instance.webhookDeliveries(opts.space) as unknown as Record<string, unknown>[];
      ctx.print(
        rows,
        (r) => {
          if (!r.length) {
            ctx.io.info("No webhook deliveries.");
            return [];
          }
          const keys = Object.keys(r[0]!).filter((k) => r.some((row) => row[k] === null || typeof row[k] !== "object"));
          const cols: Column<Record<string, unknown>>[] = keys.map((k) => ({
            header: k.replace(/_/g, " "),
            get: (row) => row[k],
            ...(k === "id" || k.endsWith("_id") ? { id: true } : {}),
            ...(k === "url" || k.endsWith("_at") ? { whole: true } : {}),
          }));
          return table(r, cols, widthOf(ctx.io));
        },
        (r) => r.map((d) => cell(d.id)),
      );
    });
  examples(webhooks, ["mediagen local webhooks", "mediagen local webhooks --space 65f0c2a1b3e4d5f6a7b8c9d0 --json"]);

  const secret = webhooks.command("secret").description("Signing secret for Standard Webhooks headers on deliveries");
  examples(secret, ["mediagen local webhooks secret set", "mediagen local webhooks secret clear"]);
  const set = secret
    .command("set")
    .description("Set the signing secret (generated when not given) and print it")
    .argument("[secret]", "the secret to use (default: a new random whsec_ secret)")
    .action(async (value: string | undefined, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      let s = value;
      if (s === undefined) {
        const { randomBytes } = await import("node:crypto");
        s = `whsec_${randomBytes(24).toString("base64")}`;
      }
      if (s.trim() === "") throw new CliError("the secret must not be empty", EXIT.usage, "invalid_value", "secret");
      const instance = await ctx.localInstance();
      instance.setSetting("webhook_secret", s);
      ctx.print(
        { webhook_secret: s },
        (r) => [r.webhook_secret],
        (r) => [r.webhook_secret],
      );
      if (!ctx.opts.json) ctx.io.info("Deliveries are now signed (webhook-id, webhook-timestamp, webhook-signature).");
    });
  examples(set, ["mediagen local webhooks secret set", "mediagen local webhooks secret set whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]);

  const clear = secret
    .command("clear")
    .description("Remove the signing secret: deliveries go unsigned")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      instance.setSetting("webhook_secret", null);
      ctx.print(
        { webhook_secret: null },
        () => [],
        () => [],
      );
      if (!ctx.opts.json) ctx.io.info("Webhook signing secret cleared.");
    });
  examples(clear, ["mediagen local webhooks secret clear"]);
  registerWebhookReplay(webhooks, get);
}

function registerVideos(local: Command, get: Getter) {
  const videos = local.command("videos").description("Videos of the local instance and their timelines (what generation made, what export renders)");
  examples(videos, ["mediagen local videos list", "mediagen local videos show 65f0c2a1b3e4d5f6a7b8c9d0"]);
  const list = spaceFlags("only videos of this space")
    .addTo(videos.command("list").description("List videos: status, origin, duration"))
    .action(async (opts: { space?: string }, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const [{ listVideos }, { videoView }] = await Promise.all([
        import("../../features/video/emulator/public/record.js"),
        import("../../features/video/emulator/show.js"),
      ]);
      const rows = listVideos(instance.db, opts.space).map((r) => {
        const { timeline: _t, ...rest } = videoView(r);
        return rest;
      });
      ctx.print(
        rows,
        (r) =>
          r.length
            ? table(
                r,
                [
                  { header: "video", get: (v) => v.video_id, id: true },
                  { header: "status", get: (v) => v.status },
                  { header: "seconds", get: (v) => (v.duration_ms === null ? null : v.duration_ms / 1000), align: "right" },
                  { header: "origin", get: (v) => (v.origin === "duplicate" ? `copy of ${v.parent_video_id}` : v.generation_id), id: true },
                  { header: "space", get: (v) => v.space_id, optional: true, whole: true },
                  { header: "created", get: (v) => v.created_at, optional: true, whole: true },
                ],
                widthOf(ctx.io),
              )
            : noVideos(ctx),
        (r) => r.map((v) => v.video_id),
      );
    });
  examples(list, ["mediagen local videos list", "mediagen local videos list --json | jq '.[].status'"]);

  const show = videos
    .command("show")
    .description("One video with its timeline: blocks, sequences, sentences with times, looks, media")
    .argument("<video_id>", "video id")
    .action(async (videoId: string, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const [{ readVideo }, { videoView, videoLines }] = await Promise.all([
        import("../../features/video/emulator/public/record.js"),
        import("../../features/video/emulator/show.js"),
      ]);
      const row = readVideo(instance.db, videoId);
      if (!row) throw new CliError(`No video with id ${videoId}`, EXIT.notFound, "not_found", "video_id");
      ctx.print(videoView(row), videoLines, (v) => [v.video_id]);
    });
  examples(show, ["mediagen local videos show 65f0c2a1b3e4d5f6a7b8c9d0", "mediagen local videos show 65f0c2a1b3e4d5f6a7b8c9d0 --json | jq .timeline.duration_ms"]);
}

function registerReset(local: Command, get: Getter) {
  const reset = RESET_FLAGS.addTo(local.command("reset").description("Delete every space, key, job and file of the local instance")).action(
    async (opts: { yes?: boolean }, cmd: Command) => {
      const ctx = get(cmd);
      if (!opts.yes) {
        if (!ctx.io.canPrompt) {
          throw new CliError("refusing to reset the local instance without --yes (no terminal to confirm on)", EXIT.usage, "confirmation_required", "--yes");
        }
        const { confirm } = await import("@inquirer/prompts");
        const ok = await confirm(
          { message: `Reset the local instance in ${ctx.home}? Everything in it is deleted.`, default: false },
          { input: ctx.io.stdin, output: ctx.io.stderr },
        );
        if (!ok) throw new CliError("reset cancelled", EXIT.error, "cancelled");
      }
      const instance = await ctx.localInstance();
      await instance.reset();
      ctx.print(
        { reset: true },
        () => [],
        () => [],
      );
      if (!ctx.opts.json) ctx.io.info("Local instance reset.");
    },
  );
  examples(reset, ["mediagen local reset --yes"]);
}

export const command: CommandModule = {
  register(local: Command, getContext: ContextGetter) {
    const get = getContext as Getter;
    examples(local, [
      "mediagen local keys create --plan PRO --credits 1000 --json",
      "mediagen local spaces list",
      "mediagen local credits add <space_id> 100",
      "mediagen local ledger verify",
    ]);
    registerKeys(local, get);
    registerSpaces(local, get);
    registerCredits(local, get);
    registerLedger(local, get);
    registerWebhooks(local, get);
    registerVideos(local, get);
    registerReset(local, get);
    registerCatalog(local, get);
    registerFaults(local, get);
    registerSnapshots(local, get);
    registerClock(local, get);
    registerRequests(local, get);
  },
};

/** The human view of an empty list: a note on stderr, no rows. */
function noVideos(ctx: CommandContext): string[] {
  ctx.io.info("No videos.");
  return [];
}
