/**
 * `mediagen voice …`: list (GET /voice/list), resources (GET /resources/voices: accent and a preview
 * sample), get (GET /voice/{id}). Space voices come first; the catalog is limited by the plan.
 */
import type { Command } from "commander";
import type { Context } from "../../../cli/types.js";
import type { CommandModule } from "../../../cli/command-context.js";
import { examples } from "../../../cli/help-text.js";
import { keyValues, table, widthOf } from "../../../cli/output.js";
import { defineFlags, type FlagInput } from "../../../cli/flags.js";
import type { ResourceVoice, Voice } from "../contract.js";
import { parseLanguages } from "./language.js";

/** The filters both listings take. */
export const FILTER_FLAGS = defineFlags({
  language: {
    flag: "--language <code>",
    type: "string",
    to: (value: string, flag: string) => parseLanguages(value, flag),
    help: "one language code, e.g. en or fr (a tag like pt-BR is sent as typed; French reads as fr)",
    field: "language",
  },
  gender: { flag: "--gender <gender>", type: "choice", choices: ["male", "female"], help: "male or female", field: "gender" },
  tags: { flag: "--tags <list>", type: "string", help: "voices with any of these tags, comma-separated, e.g. narration,calm", field: "tags" },
});
type FilterFlags = FlagInput<typeof FILTER_FLAGS>;

export const LIST_FLAGS = FILTER_FLAGS.extend({
  onlyPublic: { flag: "--only-public", type: "boolean", help: "leave out the space's own voices", field: "onlyPublic" },
  resources: { flag: "--resources", type: "boolean", help: "list with accent and preview instead (GET /resources/voices), like `voice resources`" },
});
type ListFlags = FlagInput<typeof LIST_FLAGS>;

export function voiceQuery(f: ListFlags): Record<string, unknown> {
  return LIST_FLAGS.request(LIST_FLAGS.values(f));
}

function voicesTable(ctx: Context, voices: Voice[]): string[] {
  if (!voices.length) return [];
  return table(
    voices,
    [
      { header: "id", get: (v) => v.id, id: true },
      { header: "name", get: (v) => v.name },
      { header: "language", get: (v) => v.language },
      { header: "gender", get: (v) => v.gender },
      { header: "source", get: (v) => v.source, optional: true },
      { header: "tags", get: (v) => v.tags, optional: true },
    ],
    widthOf(ctx.io),
  );
}

function resourcesTable(ctx: Context, voices: ResourceVoice[]): string[] {
  if (!voices.length) return [];
  return table(
    voices,
    [
      { header: "id", get: (v) => v.id, id: true },
      { header: "name", get: (v) => v.name },
      { header: "language", get: (v) => v.language },
      { header: "accent", get: (v) => v.accent, optional: true },
      { header: "gender", get: (v) => v.gender },
      { header: "tags", get: (v) => v.tags, optional: true },
      // A sample's URL is only useful whole: it is the first column left out on a narrow terminal.
      { header: "preview", get: (v) => v.preview, optional: true, whole: true },
    ],
    widthOf(ctx.io),
  );
}

async function resources(ctx: Context, flags: FilterFlags): Promise<void> {
  const query = FILTER_FLAGS.request(FILTER_FLAGS.values(flags));
  const engine = await ctx.engine();
  const res = await engine.resourceVoices(query);
  ctx.print(
    res,
    (r) => resourcesTable(ctx, r),
    (r) => r.map((v) => v.id),
  );
  if (!res.length) await noneMatch(ctx, query, async () => engine.resourceVoices({}));
}

/** Nothing matched: say so, and with a language filter, which languages do have voices. */
async function noneMatch(ctx: Context, query: Record<string, unknown>, all: () => Promise<{ language?: string | null }[]>): Promise<void> {
  if (ctx.opts.json || ctx.opts.quiet) return;
  if (typeof query.language !== "string") {
    ctx.io.info("No voices match.");
    return;
  }
  const languages = [...new Set((await all().catch(() => [])).flatMap((v) => (v.language ? [v.language] : [])))].sort();
  ctx.io.info(`No voices match language ${query.language}.${languages.length ? ` Languages with voices: ${languages.join(", ")}.` : ""}`);
}

export const command: CommandModule = {
  register(voice: Command, getContext) {
    examples(voice, ["mediagen voice list --language fr", "mediagen voice resources --gender female", "mediagen voice get vc_emma"]);

    const list = LIST_FLAGS.addTo(voice.command("list").description("List voices, space voices first (GET /voice/list)")).action(
      async (opts: ListFlags, cmd: Command) => {
        const ctx = getContext(cmd);
        const flags = LIST_FLAGS.values(opts);
        if (flags.resources) {
          if (flags.onlyPublic) ctx.io.warn("--only-public does not apply to the resources listing; ignored");
          await resources(ctx, opts);
          return;
        }
        const query = LIST_FLAGS.request(flags);
        ctx.explainWith?.(LIST_FLAGS.givenFlags(flags), query);
        const engine = await ctx.engine();
        const res = await engine.voiceList(query);
        ctx.print(
          res,
          (r) => voicesTable(ctx, r),
          (r) => r.map((v) => v.id),
        );
        if (!res.length) await noneMatch(ctx, query, async () => engine.voiceList({}));
      },
    );
    examples(list, [
      "mediagen voice list",
      "mediagen voice list --language en --gender female --tags narration,calm",
      "mediagen voice list --only-public --json",
      "mediagen voice list --resources --language de",
    ]);

    const res = FILTER_FLAGS.addTo(voice.command("resources").description("Voices with accent and a preview sample URL (GET /resources/voices)")).action(
      async (opts: FilterFlags, cmd: Command) => {
        await resources(getContext(cmd), opts);
      },
    );
    examples(res, ["mediagen voice resources", "mediagen voice resources --language es --json | jq -r '.[].preview'"]);

    const get = voice
      .command("get <voice_id>")
      .description("One voice, from the space or the catalog your plan unlocks (GET /voice/{id})")
      .action(async (id: string, _opts: unknown, cmd: Command) => {
        const ctx = getContext(cmd);
        const engine = await ctx.engine();
        const v = await engine.voiceGet({ id });
        ctx.print(
          v,
          (x) =>
            keyValues([
              ["voice", x.id],
              ["name", x.name],
              ["language", x.language],
              ["gender", x.gender],
              ["tags", x.tags],
              ["source", x.source === "space" ? "space (custom)" : "public catalog"],
            ]),
          (x) => [x.id],
        );
      });
    examples(get, ["mediagen voice get vc_emma", "mediagen voice get vc_emma --json"]);
  },
};
