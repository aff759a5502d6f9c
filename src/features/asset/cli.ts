/**
 * `mediagen asset …`: models, one model, price, start, status. Every request field has a flag, a
 * whole body can come from `--body`, and `--watch`/`--download` wait for the result and save it.
 */
import path from "node:path";
import { Option, type Command } from "commander";
import { CliError, EXIT, type CommandModule, type Context } from "../../cli/types.js";
import { examples, watchOptions, type WatchOptionFlags } from "../../cli/help-text.js";
import { keyValues, table, widthOf } from "../../cli/output.js";
import { absoluteIfFile, checkWaitFlags, collect, overlayFlags, parseSimulate, waits, type FlagField } from "../../cli/parse.js";
import type { Asset, AssetPricingResponse, AssetStartResponse, ModelDetail, ModelListResponse, ReferenceItem } from "./contract.js";
import { assetSchedule } from "../../contract/poll.js";
import type { Engine } from "../../engine/engine.js";
import type { CliContext } from "../../cli/context.js";

// ---- flag values ----------------------------------------------------------------------------------

const usage = (flag: string, message: string) => new CliError(`${flag}: ${message}`, EXIT.usage, "invalid_value", flag);


/**
 * A reference: `asset:<id>`, `avatar:<id>`, or a URL/path. An existing local file is made absolute
 * so the instance finds it whatever its working directory.
 */
export function parseRef(value: string, flag = "--ref"): ReferenceItem {
  const v = value.trim();
  if (!v) throw usage(flag, "empty reference");
  const m = /^(asset|avatar):(.+)$/i.exec(v);
  if (m) return m[1]!.toLowerCase() === "asset" ? { asset_id: m[2]!.trim() } : { avatar_id: m[2]!.trim() };
  return { url: absoluteIfFile(v) };
}

/** `--setting key=value`: true/false become booleans, anything else stays a string. */
export function parseSettings(values: string[]): Record<string, boolean | string> {
  const out: Record<string, boolean | string> = {};
  for (const raw of values) {
    const i = raw.indexOf("=");
    if (i <= 0) throw usage("--setting", `expected key=value, got "${raw}"`);
    const key = raw.slice(0, i).trim();
    const value = raw.slice(i + 1).trim();
    out[key] = value === "true" ? true : value === "false" ? false : value;
  }
  return out;
}

/** `--element name=ref,ref[,…]`. */
export function parseElement(raw: string): { name: string; images: ReferenceItem[] } {
  const i = raw.indexOf("=");
  if (i <= 0) throw usage("--element", `expected name=url,url, got "${raw}"`);
  const images = raw
    .slice(i + 1)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => parseRef(s, "--element"));
  return { name: raw.slice(0, i).trim(), images };
}

function parseNumber(value: string, flag: string, integer: boolean): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw usage(flag, `expected ${integer ? "a whole number" : "a number"}, got "${value}"`);
  }
  return n;
}

export interface StartFlags {
  type?: string;
  model?: string;
  prompt?: string;
  ref?: string[];
  element?: string[];
  count?: string;
  aspectRatio?: string;
  resolution?: string;
  duration?: string;
  setting?: string[];
  parent?: string;
  folder?: string;
  avatarDescription?: string;
  webhookUrl?: string;
  fileName?: string;
  startImage?: string;
  endImage?: string;
  motionVideo?: string;
  sourceVideo?: string;
  firstFrame?: string;
  lastFrame?: string;
}

const refs = (values: string[]) => values.map((r) => parseRef(r));
const slot = (flag: string) => (value: string) => parseRef(value, flag);
const whole = (flag: string) => (value: string) => parseNumber(value, flag, true);

/** `--setting` merges into the body's model_settings key by key instead of replacing them. */
function mergeSettings(values: string[], out: Record<string, unknown>): Record<string, unknown> {
  const prev = out.model_settings && typeof out.model_settings === "object" ? (out.model_settings as object) : {};
  return { ...prev, ...parseSettings(values) };
}

const START_FIELDS: readonly FlagField<StartFlags>[] = [
  ["type", "type"],
  ["model", "model"],
  ["prompt", "prompt"],
  ["ref", "references", refs],
  ["element", "elements", (values: string[]) => values.map(parseElement)],
  ["count", "generation_count", whole("--count")],
  ["aspectRatio", "aspect_ratio"],
  ["resolution", "resolution"],
  ["duration", "duration", whole("--duration")],
  ["setting", "model_settings", mergeSettings],
  ["parent", "parent_media_id"],
  ["folder", "folder_id"],
  ["avatarDescription", "avatar_description"],
  ["webhookUrl", "webhook_url"],
  ["fileName", "file_name"],
  ["startImage", "start_image", slot("--start-image")],
  ["endImage", "end_image", slot("--end-image")],
  ["motionVideo", "motion_video", slot("--motion-video")],
  ["sourceVideo", "source_video", slot("--source-video")],
  ["firstFrame", "first_frame", slot("--first-frame")],
  ["lastFrame", "last_frame", slot("--last-frame")],
];

/** Flags over a `--body`: a flag replaces the body's field (settings are merged key by key). */
export function startBody(flags: StartFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  return overlayFlags(flags, START_FIELDS, body);
}

export interface PriceFlags {
  model?: string;
  duration?: string;
  resolution?: string;
  aspectRatio?: string;
  setting?: string[];
  referenceCount?: string;
  ref?: string[];
  count?: string;
}

const PRICE_FIELDS: readonly FlagField<PriceFlags>[] = [
  ["model", "model"],
  // Pricing coerces durations (an upscale source may be 4.2 s), so decimals are allowed here.
  ["duration", "duration", (value: string) => parseNumber(value, "--duration", false)],
  ["resolution", "resolution"],
  ["aspectRatio", "aspect_ratio"],
  ["setting", "model_settings", mergeSettings],
  ["referenceCount", "reference_count", whole("--reference-count")],
  ["ref", "references", refs],
  ["count", "generation_count", whole("--count")],
];

export function priceBody(flags: PriceFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  return overlayFlags(flags, PRICE_FIELDS, body);
}

// ---- human output ---------------------------------------------------------------------------------

const credits = (n: number) => `${n} credit${n === 1 ? "" : "s"}`;

/** 4,5,6,…,15 reads as 4-15; short or broken runs stay as a list. */
export function formatDurations(ds: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ds.length; ) {
    let j = i;
    while (j + 1 < ds.length && ds[j + 1] === ds[j]! + 1) j++;
    parts.push(j - i >= 2 ? `${ds[i]}-${ds[j]}` : ds.slice(i, j + 1).join(","));
    i = j + 1;
  }
  return parts.join(",");
}

function modelsTable(ctx: Context, r: ModelListResponse): string[] {
  if (!r.models.length) {
    ctx.io.info("No models match.");
    return [];
  }
  return table(
    r.models,
    [
      { header: "name", get: (m) => m.name },
      { header: "type", get: (m) => m.type ?? r.type },
      { header: "provider", get: (m) => m.provider ?? r.provider },
      { header: "cost", get: (m) => m.base_cost, align: "right" },
      { header: "audio", get: (m) => m.has_audio },
      { header: "durations", get: (m) => formatDurations(m.capabilities.supported_durations) },
      { header: "plans", get: (m) => m.required_plans },
      { header: "tags", get: (m) => m.tags },
    ],
    widthOf(ctx.io),
  );
}

function modelLines(m: ModelDetail): string[] {
  const c = m.capabilities;
  const props = m.input_schema.properties as Record<string, unknown>;
  const lines = keyValues([
    ["name", m.name],
    ["label", m.label],
    ["type", m.type],
    ["provider", m.provider],
    ["base cost", credits(m.base_cost)],
    ["audio", m.has_audio],
    ["plans", m.required_plans],
    ["references", `${c.min_images} to ${c.max_images}`],
    ["aspect ratios", c.supported_aspect_ratios.length ? `${c.supported_aspect_ratios.join(", ")} (default ${c.default_aspect_ratio})` : null],
    ["resolutions", c.supported_resolutions?.length ? `${c.supported_resolutions.join(", ")} (default ${c.default_resolution})` : null],
    ["durations", c.supported_durations.length ? `${formatDurations(c.supported_durations)} s (default ${c.default_duration})` : null],
    ["prompt cap", m.max_prompt_length],
    ["inputs", Object.keys(props).map((k) => (m.input_schema.required.includes(k) ? `${k}*` : k))],
    ["tags", m.tags],
  ]);
  for (const s of m.settings) {
    const opts = s.type === "select" ? ` [${s.options?.join("|")}]` : "";
    lines.push(`  setting ${s.key}: ${s.type}${opts}, default ${String(s.default_value)}${s.affects_cost ? ", affects cost" : ""}`);
  }
  return lines;
}

function priceLines(p: AssetPricingResponse): string[] {
  const lines = [
    `${p.model}: ${credits(p.cost_per_generation)} per generation × ${p.generation_count} = ${credits(p.total_cost)}`,
  ];
  if (p.normalized) {
    for (const [k, v] of Object.entries(p.normalized)) lines.push(`  ${k} adjusted to ${typeof v === "object" ? JSON.stringify(v) : String(v)}`);
  }
  return lines;
}

function assetLines(a: Asset): string[] {
  const g = a.generation_params;
  const pairs: [string, unknown][] = [
    ["asset", a.asset_id],
    ["status", a.status],
    ["type", a.type],
    ["model", g.model],
    ["prompt", g.prompt || null],
    ["size", a.width !== undefined ? `${a.width}×${a.height}` : null],
    ["duration", a.duration_seconds !== undefined ? `${a.duration_seconds} s` : null],
    ["cost", credits(a.cost)],
    ["url", a.url ?? null],
    ["thumbnail", a.thumbnail_url ?? null],
    ["error", a.error ? `${a.error.code}: ${a.error.message}` : null],
    ["created", a.created_at],
  ];
  // Fields the record does not carry in this state are left out rather than shown empty.
  return keyValues(pairs.filter(([, v]) => v !== null));
}

// ---- waiting and saving ---------------------------------------------------------------------------

function extensionOf(a: Asset): string {
  const fromUrl = a.url ? path.posix.extname(new URL(a.url, "file:///").pathname).slice(1) : "";
  return fromUrl || (a.type === "image" ? "png" : a.type === "audio" ? "mp3" : "mp4");
}

const assetState = (a: Asset) => (a.status === "completed" ? "done" : a.status === "failed" ? "failed" : "pending");
const assetText = (a: Asset) => (a.status === "failed" && a.error ? `failed (${a.error.code}: ${a.error.message})` : a.status);

/** Waits on every id under one deadline and saves the results (see watch.ts for what is printed). */
async function watchAssets(ctx: Context, engine: Engine, ids: string[], flags: WatchOptionFlags): Promise<void> {
  const { watchJobs } = await import("../../cli/watch.js");
  const jobs = ids.map((id) => ({
    id,
    label: `asset ${id}`,
    poll: (signal: AbortSignal) => engine.assetStatus({ assetId: id }, { signal }),
  }));
  await watchJobs(ctx as CliContext, jobs, {
    state: assetState,
    describe: assetText,
    schedule: assetSchedule,
    unknown: (job) => ({ asset_id: job.id, status: "unknown" }),
    human: (a) => [`${a.asset_id}  ${assetText(a)}  ${a.url ?? ""}`.trimEnd()],
    file: (a) => (a.url ? { url: a.url, name: `${a.asset_id}.${extensionOf(a)}` } : undefined),
    resumeArgs: (js) => ["asset", "status", ...js.map((j) => j.id), "--watch"],
  }, flags);
}

// ---- commands -------------------------------------------------------------------------------------

const ASSET_WATCH = { until: "every generation ends", saves: "each result into <dir> as <asset_id>.<ext>" };

export const command: CommandModule = {
  register(asset: Command, getContext) {
    examples(asset, [
      "mediagen asset models --type video",
      "mediagen asset price --model vidA-3 --duration 6",
      'mediagen asset start --type image --model imgA-4 --prompt "a red fox at dawn" --watch --download out/',
      "mediagen asset status 65f0c2a1b3e4d5f6a7b8c9d0 --watch",
    ]);

    const models = asset
      .command("models")
      .description("List models (GET /asset/models)")
      .addOption(new Option("--type <type>", "only image or video models").choices(["image", "video"]))
      .option("--provider <provider>", "only models of this provider")
      .option("--tag <tag>", "only models with this tag (e.g. upscale, extend, motion-control)")
      .action(async (opts: { type?: string; provider?: string; tag?: string }, cmd: Command) => {
        const ctx = getContext(cmd);
        const engine = await ctx.engine();
        const q: Record<string, string> = {};
        if (opts.type) q.type = opts.type;
        if (opts.provider) q.provider = opts.provider;
        if (opts.tag) q.tag = opts.tag;
        const res = await engine.assetModels(q);
        ctx.print(res, (r) => modelsTable(ctx, r), (r) => r.models.map((m) => m.name));
      });
    examples(models, ["mediagen asset models", "mediagen asset models --type image --json", "mediagen asset models --tag upscale -q"]);

    const model = asset
      .command("model <name>")
      .description("One model with its settings and input_schema (GET /asset/models/{name})")
      .action(async (name: string, _opts: unknown, cmd: Command) => {
        const ctx = getContext(cmd);
        const engine = await ctx.engine();
        const res = await engine.assetModel({ name });
        ctx.print(res, modelLines, (m) => [m.name]);
      });
    examples(model, ["mediagen asset model vidA-3", "mediagen asset model imgA-4 --json | jq .input_schema"]);

    const price = asset
      .command("price")
      .description("Dry-run price of a generation; nothing is debited (POST /asset/pricing)")
      .option("--model <name>", "model (required)")
      .option("--duration <seconds>", "seconds; for an upscale model, the source video's length")
      .option("--resolution <res>", "resolution, e.g. 720p or 2K")
      .option("--aspect-ratio <ratio>", "aspect ratio, e.g. 16:9")
      .option("--setting <key=value>", "model setting (repeatable), e.g. generateAudio=false", collect)
      .option("--reference-count <n>", "number of reference images (models priced per reference)")
      .option("--ref <ref>", "a reference, counted like --reference-count (repeatable)", collect)
      .option("--count <n>", "generation_count (1 to 4)")
      .option("--body <file>", "request body as JSON from a file or - (stdin); flags override its fields")
      .action(async (opts: PriceFlags & { body?: string }, cmd: Command) => {
        const ctx = getContext(cmd);
        const body = priceBody(opts, opts.body ? await ctx.readBody(opts.body) : {});
        if (body.model === undefined) throw new CliError("missing required flag --model", EXIT.usage, "missing_field", "model");
        const engine = await ctx.engine();
        const res = await engine.assetPricing(body);
        ctx.print(res, priceLines, (p) => [String(p.total_cost)]);
      });
    examples(price, [
      "mediagen asset price --model vidA-3 --duration 5",
      "mediagen asset price --model vidA-3 --setting generateAudio=false --count 2",
      "mediagen asset price --model vidC-upscale --duration 12 --json",
    ]);

    const start = asset
      .command("start")
      .description("Start image or video generation (POST /asset/start)")
      .addOption(new Option("--type <type>", "image or video (required; must match the model)").choices(["image", "video"]))
      .option("--model <name>", "model (required); see `mediagen asset models`")
      .option("--prompt <text>", "prompt (required except for promptless models such as upscale)")
      .option("--ref <ref>", "reference: a URL or file, asset:<id> or avatar:<id> (repeatable, in order)", collect)
      .option("--start-image <ref>", "start_image slot (same syntax as --ref)")
      .option("--end-image <ref>", "end_image slot (needs --start-image)")
      .option("--first-frame <ref>", "first_frame slot")
      .option("--last-frame <ref>", "last_frame slot")
      .option("--motion-video <ref>", "motion_video slot (motion control)")
      .option("--source-video <ref>", "source_video slot (edit, extend, upscale)")
      .option("--element <name=ref,ref>", "element: a name and at least 2 images of it (repeatable); write @name in the prompt", collect)
      .option("--count <n>", "generation_count, 1 to 4 (credits are debited per generation)")
      .option("--aspect-ratio <ratio>", "one of the model's aspect ratios")
      .option("--resolution <res>", "one of the model's resolutions")
      .option("--duration <seconds>", "one of the model's durations")
      .option("--setting <key=value>", "model setting (repeatable), e.g. generateAudio=false, quality=high", collect)
      .option("--avatar-description <text>", "appearance and actions of the subject (UGC models)")
      .option("--parent <asset_id>", "parent_media_id: the asset this one derives from (inherits its folder)")
      .option("--folder <folder_id>", "folder_id: an existing assets folder")
      .option("--file-name <name>", "base file name (slugified; extension appended)")
      .option("--webhook-url <url>", "notified when each generation ends")
      .option("--body <file>", "request body as JSON from a file or - (stdin); flags override its fields")
      .option("--simulate <mode>", "local instance only: fail or fail:<CODE> makes the generation fail (refunded)");
    watchOptions(start, ASSET_WATCH).action(async (opts: StartFlags & WatchOptionFlags & { body?: string; simulate?: string }, cmd: Command) => {
      const ctx = getContext(cmd);
      const body = startBody(opts, opts.body ? await ctx.readBody(opts.body) : {});
      for (const [field, flag] of [["type", "--type"], ["model", "--model"]] as const) {
        if (body[field] === undefined) throw new CliError(`missing required flag ${flag}`, EXIT.usage, "missing_field", field);
      }
      const simulate = parseSimulate(opts.simulate);
      const wait = waits(opts);
      await checkWaitFlags(opts);
      const engine = await ctx.engine();
      const res = await engine.assetStart(body, simulate ? { simulate } : {});
      // The price is talk (stderr); stdout carries the ids, or with a wait only what the wait ends with.
      if (!ctx.opts.json) {
        ctx.io.info(
          `Started ${res.count} generation${res.count === 1 ? "" : "s"}: ${credits(res.cost_per_generation)} each, ${credits(res.total_cost)} in total`,
        );
      }
      if (!wait) ctx.print(res, (r: AssetStartResponse) => r.asset_ids, (r) => r.asset_ids);
      else if (!ctx.opts.json) ctx.io.info(res.asset_ids.join("\n"));
      if (wait) await watchAssets(ctx, engine, res.asset_ids, opts);
    });
    examples(start, [
      'mediagen asset start --type image --model imgA-4 --prompt "a red fox at dawn" --watch --download out/',
      'mediagen asset start --type video --model vidA-3 --prompt "waves at night" --duration 4 --setting generateAudio=false',
      'mediagen asset start --type video --model vidA-3-frames --prompt "day to night" --first-frame day.png --last-frame night.png',
      "mediagen asset start --type video --model vidC-upscale --source-video asset:65f0c2a1b3e4d5f6a7b8c9d0 --watch",
      'mediagen asset start --type video --model vidD-omni --prompt "@hero waves" --element hero=front.png,side.png',
      "mediagen asset start --body request.json --model imgA-4-fast --count 4 -q",
    ]);

    const status = asset
      .command("status <asset_id...>")
      .description("Status of assets (GET /asset/status/{assetId})");
    watchOptions(status, ASSET_WATCH).action(async (ids: string[], opts: WatchOptionFlags, cmd: Command) => {
      const ctx = getContext(cmd);
      const engine = await ctx.engine();
      if (waits(opts)) {
        await watchAssets(ctx, engine, ids, opts);
        return;
      }
      if (ctx.opts.json) {
        // One JSON document: the object for one id, an array for several.
        const records: Asset[] = [];
        for (const id of ids) records.push(await engine.assetStatus({ assetId: id }));
        ctx.print(records.length === 1 ? records[0]! : records, () => []);
        return;
      }
      for (const [i, id] of ids.entries()) {
        const a = await engine.assetStatus({ assetId: id });
        if (i > 0 && !ctx.opts.quiet) ctx.io.out("");
        ctx.print(a, assetLines);
      }
    });
    examples(status, [
      "mediagen asset status 65f0c2a1b3e4d5f6a7b8c9d0",
      "mediagen asset status 65f0c2a1b3e4d5f6a7b8c9d0 --watch --download out/",
      "mediagen asset status 65f0c2a1b3e4d5f6a7b8c9d0 65f0c2a1b3e4d5f6a7b8c9d1 --json",
    ]);
  },
};
