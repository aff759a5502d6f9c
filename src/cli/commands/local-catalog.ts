/**
 * `mediagen local catalog sync|status|reset`: the local instance's model catalog, copied from the
 * hosted service (or a file of its model records) so that local validation, pricing and
 * `input_schema` are the hosted ones (src/features/asset/emulator/public/catalog-sync.ts), and back to the built-in.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Command } from "commander";
import type { Engine } from "../../engine/engine.js";
import { CliError, EXIT } from "../types.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { table, widthOf } from "../output.js";
import { defineFlags, type FlagInput } from "../flags.js";

type Getter = (cmd: Command) => CommandContext;

const SYNC_FLAGS = defineFlags({
  fromHosted: {
    flag: "--from-hosted",
    type: "boolean",
    help: "read the hosted service of this profile (its base URL and key; see `mediagen auth login --target hosted`)",
  },
  from: {
    flag: "--from <file.json>",
    type: "string",
    help: 'read model records from a file: {"models": [GET /asset/models/{name} answers], "voices"?: [GET /voice/list items]}; prices from each base_cost',
  },
  voices: {
    flag: "--voices",
    type: "boolean",
    help: "also replace the public voices with the hosted ones (GET /voice/list?onlyPublic=true), each spoken by a local voice of its language and gender",
  },
  avatars: {
    flag: "--avatars",
    type: "boolean",
    help: "also replace the public avatars with the hosted ones (GET /avatar/list?onlyPublic=true, each avatar's looks), copying each look's picture: hosted plans then generate locally with the same ids (--from-hosted only)",
  },
});
type SyncOptions = FlagInput<typeof SYNC_FLAGS>;

type AvatarSync = typeof import("../../features/avatar/emulator/catalog-sync.js");

/**
 * The hosted public avatars and their looks, with each look's picture copied into the local media
 * dir (under a temp name first, then renamed to its real type's extension).
 */
async function copyHostedAvatars(ctx: CommandContext, engine: Engine, mediaDir: string): Promise<{ avatars: unknown[]; skipped: { name: string; reason: string }[] }> {
  const sync: AvatarSync = await import("../../features/avatar/emulator/catalog-sync.js");
  const ids = sync.publicAvatarIds(await engine.avatarList({ onlyPublic: true } as never));
  const records: unknown[] = [];
  for (const id of ids) records.push(await engine.avatarGet({ avatar_id: id }));
  const converted = sync.convertAvatars(records);
  const copied = new Map<string, string>();
  const failed = new Map<string, string>();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mediagen-looks-"));
  try {
    for (const pic of converted.pictures) {
      try {
        const file = await ctx.download(pic.url, tmp, "picture", { force: true });
        const head = Buffer.alloc(16);
        const fd = fs.openSync(file, "r");
        fs.readSync(fd, head, 0, 16, 0);
        fs.closeSync(fd);
        const ext = sync.pictureExtension(head);
        if (!ext) {
          failed.set(pic.lookId, "its thumbnail is not a PNG, JPEG or WebP picture");
          continue;
        }
        const rel = `${pic.rel}.${ext}`;
        fs.mkdirSync(path.dirname(path.join(mediaDir, rel)), { recursive: true });
        fs.copyFileSync(file, path.join(mediaDir, rel));
        copied.set(pic.lookId, rel);
      } catch (e) {
        failed.set(pic.lookId, `its thumbnail could not be copied (${(e as Error).message.split("\n")[0]})`);
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const kept = sync.withPictures(converted.avatars, copied, failed);
  return { avatars: kept.avatars, skipped: [...converted.skipped, ...kept.skipped] };
}

/** Model records from a file: `{"models":[…], "voices"?:[…]}` (each model with its input_schema) or a bare array of models. */
function readModelsFile(file: string): { models: unknown[]; voices?: unknown[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new CliError(`--from: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.usage, "usage_error", "--from");
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new CliError(`--from: ${file} is not valid JSON (${(e as Error).message})`, EXIT.usage, "invalid_json", "--from");
  }
  const list = Array.isArray(data)
    ? data
    : data && typeof data === "object" && Array.isArray((data as { models?: unknown }).models)
      ? (data as { models: unknown[] }).models
      : undefined;
  if (!list) throw new CliError(`--from: ${file} must hold {"models": [model records with input_schema]} or an array of them`, EXIT.usage, "invalid_value", "--from");
  const voices = !Array.isArray(data) && Array.isArray((data as { voices?: unknown }).voices) ? (data as { voices: unknown[] }).voices : undefined;
  return { models: list, ...(voices ? { voices } : {}) };
}

/** `local catalog sync`: reads the source, converts, stores; prints what was copied and skipped. */
async function syncCatalog(ctx: CommandContext, opts: SyncOptions): Promise<void> {
  if ((opts.fromHosted ? 1 : 0) + (opts.from !== undefined ? 1 : 0) !== 1) {
    throw new CliError("give exactly one of --from-hosted and --from <file.json>", EXIT.usage, "usage_error", "--from-hosted");
  }
  if (opts.avatars && !opts.fromHosted) {
    throw new CliError("--avatars copies the hosted service's avatars and their pictures: use it with --from-hosted", EXIT.usage, "usage_error", "--avatars");
  }
  const { convertModel, storeCatalog } = await import("../../features/asset/emulator/public/catalog-sync.js");
  let records: unknown[];
  let source: string;
  let probe: ((req: Record<string, unknown>) => Promise<number>) | undefined;
  let voiceList: unknown[] | undefined;
  let voiceResources: unknown[] = [];
  let avatarSync: { avatars: unknown[]; skipped: { name: string; reason: string }[] } | undefined;
  if (opts.fromHosted) {
    ctx.useTarget({ target: "hosted" });
    const engine = await ctx.engine();
    const { config } = ctx.resolve();
    source = engine.target === "hosted" ? `hosted ${config.baseUrl ?? ""}`.trim() : "local (the --target given)";
    const list = await engine.assetModels({});
    records = [];
    for (const m of list.models) records.push(await engine.assetModel({ name: m.name }));
    probe = async (req) => (await engine.assetPricing(req as never)).total_cost;
    if (opts.voices) {
      voiceList = (await engine.voiceList({ onlyPublic: true } as never)) as unknown[];
      voiceResources = (await engine.resourceVoices({})) as unknown[];
    }
    if (opts.avatars) avatarSync = await copyHostedAvatars(ctx, engine, (await ctx.localInstance()).mediaDir);
  } else {
    const file = readModelsFile(opts.from!);
    records = file.models;
    source = `file ${opts.from}`;
    if (opts.voices) {
      if (!file.voices) throw new CliError(`--voices: ${opts.from} has no "voices" list`, EXIT.usage, "missing_field", "--voices");
      voiceList = file.voices;
    }
  }
  const models = [];
  const skipped = [];
  let voices: Awaited<ReturnType<typeof import("../../features/asset/emulator/public/catalog-sync.js")["convertVoices"]>>["voices"] | undefined;
  if (voiceList) {
    const [{ convertVoices }, { CATALOG_VOICES }] = await Promise.all([
      import("../../features/asset/emulator/public/catalog-sync.js"),
      import("../../features/voice/emulator/catalog.js"),
    ]);
    const converted = convertVoices(voiceList, voiceResources, CATALOG_VOICES);
    voices = converted.voices;
    skipped.push(...converted.skipped);
  }
  if (avatarSync) skipped.push(...avatarSync.skipped);
  const warnings: string[] = [];
  for (const r of records) {
    const c = await convertModel(r, probe);
    if ("model" in c) {
      models.push(c.model);
      warnings.push(...(c.warnings ?? []));
    } else skipped.push(c.skipped);
  }
  if (!models.length) {
    throw new CliError(
      `nothing to sync: none of the ${records.length} model(s) is of a class the local renderer knows; the catalog is unchanged`,
      EXIT.error,
      "nothing_to_sync",
    );
  }
  const instance = await ctx.localInstance();
  storeCatalog(instance, source, models, skipped, voices, avatarSync?.avatars);
  const avatarIds = (avatarSync?.avatars ?? []) as { id: string; looks: { id: string }[] }[];
  const result = {
    source,
    models: models.map((m) => m.name),
    ...(voices ? { voices: voices.map((v) => v.id) } : {}),
    ...(avatarSync ? { avatars: avatarIds.map((a) => a.id), looks: avatarIds.flatMap((a) => a.looks.map((l) => l.id)) } : {}),
    skipped,
    warnings,
  };
  ctx.print(
    result,
    (r) => [
      `Synced ${r.models.length} model${r.models.length === 1 ? "" : "s"} from ${r.source}: ${r.models.join(", ")}`,
      ...(r.voices ? [`Synced ${r.voices.length} public voice${r.voices.length === 1 ? "" : "s"}: ${r.voices.join(", ")}`] : []),
      ...(r.avatars
        ? [
            `Synced ${r.avatars.length} public avatar${r.avatars.length === 1 ? "" : "s"} with ${r.looks!.length} look${r.looks!.length === 1 ? "" : "s"} (pictures copied): ${r.avatars.join(", ")}`,
          ]
        : []),
      ...(r.skipped.length ? [`Skipped ${r.skipped.length} (not a class the local renderer knows):`, ...r.skipped.map((s) => `  ${s.name}: ${s.reason}`)] : []),
      ...(r.warnings.length ? ["Prices the local formulas follow only approximately:", ...r.warnings.map((w) => `  ${w}`)] : []),
    ],
    (r) => r.models,
  );
}

export function registerCatalog(local: Command, get: Getter): void {
  const catalog = local
    .command("catalog")
    .description("The local model catalog: copy the hosted one (models, input_schema, prices), show it, or go back to the built-in");
  examples(catalog, [
    "mediagen local catalog sync --from-hosted",
    "mediagen local catalog sync --from models.json",
    "mediagen local catalog status",
    "mediagen local catalog reset",
  ]);

  registerSync(catalog, get);
  registerStatus(catalog, get);
  registerReset(catalog, get);
}

function registerSync(catalog: Command, get: Getter): void {
  const sync = SYNC_FLAGS.addTo(
    catalog
      .command("sync")
      .description("Replace the local model catalog with the hosted service's (GET /asset/models, each model's input_schema, prices from POST /asset/pricing)"),
  ).action(async (opts: SyncOptions, cmd: Command) => {
    await syncCatalog(get(cmd), opts);
  });
  examples(sync, [
    "mediagen local catalog sync --from-hosted",
    "mediagen local catalog sync --from-hosted --voices",
    "mediagen local catalog sync --from-hosted --voices --avatars",
    "mediagen local catalog sync --from models.json --json",
  ]);
}

function registerStatus(catalog: Command, get: Getter): void {
  const status = catalog
    .command("status")
    .description("Where the local model catalog comes from, how old it is, and the models a sync skipped")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const { catalogStatus } = await import("../../features/asset/emulator/public/catalog-sync.js");
      const s = catalogStatus(instance);
      const { formatDuration } = await import("../parse.js");
      ctx.print(
        s,
        (x) => [
          `source: ${x.source}`,
          `models: ${x.models}`,
          `voices: ${x.voices === null ? "built-in" : x.voices}`,
          `avatars: ${x.avatars === null ? "built-in" : `${x.avatars.avatars} (${x.avatars.looks} look${x.avatars.looks === 1 ? "" : "s"}, pictures copied)`}`,
          ...(x.synced_at ? [`synced: ${x.synced_at} (${formatDuration((x.age_seconds ?? 0) * 1000)} ago)`] : []),
          ...(x.skipped.length
            ? [
                "skipped:",
                ...table(
                  x.skipped,
                  [
                    { header: "model", get: (k) => k.name },
                    { header: "reason", get: (k) => k.reason },
                  ],
                  widthOf(ctx.io),
                ).map((l) => `  ${l}`),
              ]
            : []),
        ],
        (x) => [x.source],
      );
    });

  examples(status, ["mediagen local catalog status", "mediagen local catalog status --json | jq .age_seconds"]);
}

function registerReset(catalog: Command, get: Getter): void {
  const reset = catalog
    .command("reset")
    .description("Go back to the built-in model catalog")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const { resetCatalog } = await import("../../features/asset/emulator/public/catalog-sync.js");
      const was = resetCatalog(instance);
      ctx.print(
        { reset: was },
        () => [],
        () => [],
      );
      if (!ctx.opts.json) ctx.io.info(was ? "The local instance uses its built-in model catalog again." : "The local instance already uses its built-in model catalog.");
    });
  examples(reset, ["mediagen local catalog reset"]);
}
