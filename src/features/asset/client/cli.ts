/**
 * `mediagen asset …`: models, one model, price, start, status. Every request field has a flag, a
 * whole body can come from `--body`, and `--watch`/`--download` wait for the result and save it.
 */
import path from "node:path";
import type { Command } from "commander";
import { CliError, EXIT } from "../../../cli/types.js";
import type { CommandModule, ContextGetter } from "../../../cli/command-context.js";
import { examples, watchOptions, type WatchOptionFlags } from "../../../cli/help-text.js";
import { addWebhookListen } from "../../../cli/webhook-listen.js";
import { keyValues, stderrWidth, table, widthOf, wrapCell } from "../../../cli/output.js";
import { absoluteIfFile, checkWaitFlags, waits } from "../../../cli/parse.js";
import { BODY_FLAG, defineFlags, SIMULATE_FLAG, type FlagInput } from "../../../cli/flags.js";
import type { Asset, AssetPricingResponse, AssetStartResponse, ModelDetail, ModelListResponse, ReferenceItem } from "../contract.js";
import { assetSchedule } from "../../../contract/poll.js";
import type { Engine } from "../../../engine/engine.js";
import type { CommandContext } from "../../../cli/command-context.js";
import type { WatchKind } from "../../../cli/watch.js";
import type { WaitJob } from "../../../cli/wait.js";
import { refundNote } from "../../../cli/credits-note.js";

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
    // Defined, not assigned: `__proto__=x` must reach the service as a key (which refuses it before
    // any debit) instead of silently replacing this object's prototype.
    Object.defineProperty(out, key, { value: value === "true" ? true : value === "false" ? false : value, enumerable: true, writable: true, configurable: true });
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

/** `--setting` merges into the body's model_settings key by key instead of replacing them. */
function mergeSettings(values: string[], out: Record<string, unknown>): Record<string, unknown> {
  const prev = out.model_settings && typeof out.model_settings === "object" ? (out.model_settings as object) : {};
  return { ...prev, ...parseSettings(values) };
}

const refItem = (value: string, flag: string) => parseRef(value, flag);
const slot = (name: string, help: string) => ({ flag: `--${name.replace(/_/g, "-")} <ref>`, type: "string", to: refItem, help, field: name, media: "ref" }) as const;

const SET_FLAG = {
  flag: "--set <key=value>",
  type: "list",
  help: "one more body field (repeatable); a dotted key reaches into an object (model_settings.camera_fixed=true); JSON values are read as JSON",
} as const;

export const START_FLAGS = defineFlags({
  type: { flag: "--type <type>", type: "choice", choices: ["image", "video"], help: "image or video (required; must match the model)", field: "type" },
  model: { flag: "--model <name>", type: "string", help: "model (required); see `mediagen asset models`", field: "model" },
  prompt: { flag: "--prompt <text>", type: "string", help: "prompt (required except for promptless models such as upscale)", field: "prompt" },
  ref: {
    flag: "--ref <ref>",
    type: "list",
    item: refItem,
    help: "reference: a URL or file, asset:<id> or avatar:<id> (repeatable, in order)",
    field: "references",
    media: "ref",
  },
  startImage: slot("start_image", "start_image slot (same syntax as --ref)"),
  endImage: slot("end_image", "end_image slot (needs --start-image)"),
  firstFrame: slot("first_frame", "first_frame slot"),
  lastFrame: slot("last_frame", "last_frame slot"),
  motionVideo: slot("motion_video", "motion_video slot (motion control)"),
  sourceVideo: slot("source_video", "source_video slot (edit, extend, upscale)"),
  element: {
    flag: "--element <name=ref,ref>",
    type: "list",
    item: (value: string) => parseElement(value),
    help: "element: a name and at least 2 images of it (repeatable); write @name in the prompt",
    field: "elements",
    media: "element",
  },
  count: { flag: "--count <n>", type: "integer", help: "generation_count, 1 to 4 (credits are debited per generation)", field: "generation_count" },
  aspectRatio: { flag: "--aspect-ratio <ratio>", type: "string", help: "one of the model's aspect ratios", field: "aspect_ratio" },
  resolution: { flag: "--resolution <res>", type: "string", help: "one of the model's resolutions", field: "resolution" },
  duration: { flag: "--duration <seconds>", type: "integer", help: "one of the model's durations", field: "duration" },
  setting: {
    flag: "--setting <key=value>",
    type: "list",
    help: "model setting (repeatable), e.g. generateAudio=false, quality=high",
    field: "model_settings",
    fill: mergeSettings,
  },
  avatarDescription: { flag: "--avatar-description <text>", type: "string", help: "appearance and actions of the subject (UGC models)", field: "avatar_description" },
  parent: { flag: "--parent <asset_id>", type: "string", help: "parent_media_id: the asset this one derives from (inherits its folder)", field: "parent_media_id" },
  folder: { flag: "--folder <folder_id>", type: "string", help: "folder_id: an existing assets folder", field: "folder_id" },
  fileName: { flag: "--file-name <name>", type: "string", help: "base file name (slugified; extension appended)", field: "file_name" },
  webhookUrl: { flag: "--webhook-url <url>", type: "string", help: "notified when each generation ends", field: "webhook_url" },
  body: BODY_FLAG,
  set: SET_FLAG,
  simulate: SIMULATE_FLAG,
  dryRun: { flag: "--dry-run", type: "boolean", help: "print the price (POST /asset/pricing) and exit; nothing is started" },
  maxCredits: { flag: "--max-credits <n>", type: "number", help: "refuse to start (exit 2) if it would cost more than n credits" },
  yes: { flag: "-y, --yes", type: "boolean", help: "do not ask for confirmation on a terminal (see MEDIAGEN_CONFIRM_ABOVE)" },
});
export type StartFlags = FlagInput<typeof START_FLAGS>;

/** The pricing request for a start request: the fields that change a price, nothing else. */
import { assetLife, pricingOf, unpricedSettings, UNPRICED_SETTINGS } from "../life.js";
import { jobErrorText, lifeState } from "../../life.js";
import { applySets } from "../../../cli/body.js";
import { PRICING_FIELDS } from "../../../contract/asset-rules.js";
export { pricingOf };

/** A setting's value or option as text: a string or number as is, an object by its value or label, else as JSON. */
function settingValue(v: unknown): string {
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const named = o.value ?? o.label ?? o.name;
    return typeof named === "string" || typeof named === "number" ? String(named) : JSON.stringify(v);
  }
  return String(v);
}

/** Flags over a `--body`: a flag replaces the body's field (settings are merged key by key). */
export function startBody(flags: StartFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  const values = START_FLAGS.values(flags);
  return applySets(START_FLAGS.request(values, body), values.set);
}

export const PRICE_FLAGS = defineFlags({
  model: { flag: "--model <name>", type: "string", help: "model (required)", field: "model" },
  // The spec's pricing duration is an integer (for an upscale model the source's length, rounded).
  duration: { flag: "--duration <seconds>", type: "integer", help: "whole seconds; for an upscale model, the source video's length", field: "duration" },
  resolution: { flag: "--resolution <res>", type: "string", help: "resolution, e.g. 720p or 2K", field: "resolution" },
  imageCount: { flag: "--image-count <n>", type: "integer", help: "image_count: the number of reference images (models priced per reference)", field: "image_count" },
  count: { flag: "--count <n>", type: "integer", help: "generation_count (1 to 4)", field: "generation_count" },
  body: BODY_FLAG,
  set: {
    ...SET_FLAG,
    help:
      "one more body field (repeatable). Model settings: the service documents no pricing field for them, so no flag sends them; " +
      "give them in --body or --set under the name you know (the local instance reads model_settings, as asset start does)",
  },
});
export type PriceFlags = FlagInput<typeof PRICE_FLAGS>;

export function priceBody(flags: PriceFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  const values = PRICE_FLAGS.values(flags);
  return applySets(PRICE_FLAGS.request(values, body), values.set);
}

/**
 * The one stderr line for fields of an open body the contract does not name (pricing's settings
 * object has no documented name): they are sent as given, and the service decides.
 */
function sayUnnamed(ctx: CommandContext, body: Record<string, unknown>, known: readonly string[]): void {
  const extra = Object.keys(body).filter((k) => !known.includes(k));
  if (extra.length) ctx.io.warn(`Sent as given (the contract does not name ${extra.length === 1 ? "it" : "them"}; the service decides): ${extra.join(", ")}`);
}

export const MODELS_FLAGS = defineFlags({
  type: { flag: "--type <type>", type: "choice", choices: ["image", "video"], help: "only image or video models", field: "type" },
  provider: { flag: "--provider <provider>", type: "string", help: "only models of this provider", field: "provider" },
  tag: { flag: "--tag <tag>", type: "string", help: "only models with this tag (e.g. upscale, extend, motion-control)", field: "tag" },
});

// ---- human output ---------------------------------------------------------------------------------

/** "2 credits"; a figure the service's answer left out reads "? credits". */
const credits = (n: number | null | undefined) => (typeof n === "number" ? `${n} credit${n === 1 ? "" : "s"}` : "? credits");

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

/** The COST cell: a generation's price at the model's defaults, with the default duration of a video. */
export function defaultCost(m: { base_cost?: number | null; capabilities?: { default_duration?: number | null } | null }): string {
  if (typeof m.base_cost !== "number") return "-";
  const d = m.capabilities?.default_duration;
  return typeof d === "number" ? `${m.base_cost} (${d} s)` : String(m.base_cost);
}

function modelsTable(ctx: CommandContext, r: ModelListResponse): string[] {
  if (!r.models.length) {
    ctx.io.info("No models match.");
    return [];
  }
  return table(
    r.models,
    [
      { header: "name", get: (m) => m.name, id: true },
      { header: "type", get: (m) => m.type ?? r.type },
      { header: "provider", get: (m) => m.provider ?? r.provider, optional: true },
      { header: "credits", get: (m) => defaultCost(m), align: "right" },
      { header: "audio", get: (m) => m.has_audio, optional: true },
      { header: "durations", get: (m) => formatDurations(m.capabilities?.supported_durations ?? []) },
      { header: "plans", get: (m) => m.required_plans },
      { header: "tags", get: (m) => m.tags, optional: true },
    ],
    widthOf(ctx.io),
  );
}

/** Said under the models table (on stderr: it is talk, not data). */
export const COST_NOTE =
  "CREDITS: the price of one generation at the model's default settings (for a video, at its default duration, in brackets); " +
  "`mediagen asset price --model <name> --duration <s>` prices others.";

/** "a, b (default a)"; without a default just the list; nothing for an empty or absent list. */
function choicesLine<T>(values: readonly T[] | undefined, dflt: T | null | undefined, show: (v: readonly T[]) => string = (v) => v.join(", ")): string | null {
  if (!values?.length) return null;
  return dflt === undefined || dflt === null ? show(values) : `${show(values)} (default ${String(dflt)})`;
}

// Fields the contract makes optional (capabilities of some model classes, settings, `required`) may
// be absent: a line is then left out, never a crash.
function modelLines(m: ModelDetail): string[] {
  const c = m.capabilities ?? {};
  const props = (m.input_schema?.properties ?? {}) as Record<string, unknown>;
  const required = m.input_schema?.required ?? [];
  const orAbsent = <T>(v: T | null | undefined): T | undefined => v ?? undefined;
  // The resolution choices are named in the input schema only (capabilities' keys for them are not documented).
  const r = props.resolution as { enum?: unknown; default?: unknown } | undefined;
  const resolutionProp = r && Array.isArray(r.enum) ? { enum: r.enum.map(String), default: typeof r.default === "string" ? r.default : null } : undefined;

  const lines = keyValues([
    ["name", m.name],
    ["label", m.label],
    ["type", m.type],
    ["provider", m.provider],
    ["base cost", typeof m.base_cost === "number" ? credits(m.base_cost) : null],
    ["audio", m.has_audio],
    ["plans", m.required_plans],
    ["references", typeof c.min_images === "number" || typeof c.max_images === "number" ? `${c.min_images ?? "?"} to ${c.max_images ?? "?"}` : null],
    ["aspect ratios", choicesLine(orAbsent(c.supported_aspect_ratios), c.default_aspect_ratio)],
    ["resolutions", choicesLine(orAbsent(resolutionProp?.enum), resolutionProp?.default)],
    ["durations", choicesLine(orAbsent(c.supported_durations), c.default_duration, (v) => `${formatDurations(v)} s`)],
    ["prompt cap", m.max_prompt_length],
    ["inputs", Object.keys(props).map((k) => (required.includes(k) ? `${k}*` : k))],
    ["tags", m.tags],
  ]);
  for (const s of m.settings ?? []) {
    // hosted-facts does not fix a select's types: numbers and objects are shown as they come.
    const opts = s.type === "select" ? ` [${(s.options ?? []).map(settingValue).join("|")}]` : "";
    lines.push(`  setting ${s.key}: ${s.type}${opts}, default ${settingValue(s.default_value)}${s.affects_cost ? ", affects cost" : ""}`);
  }
  return lines;
}

function priceLines(p: AssetPricingResponse): string[] {
  const each =
    typeof p.cost_per_generation === "number" && typeof p.generation_count === "number"
      ? `${credits(p.cost_per_generation)} per generation × ${p.generation_count} = `
      : "";
  const lines = [`${p.model ?? "price"}: ${each}${credits(p.total_cost)}`];
  if (p.normalized) {
    for (const [k, v] of Object.entries(p.normalized)) lines.push(`  ${k} adjusted to ${typeof v === "object" ? JSON.stringify(v) : String(v)}`);
  }
  return lines;
}

function assetLines(a: Asset): string[] {
  // generation_params is promised while generating only, and a promptless model has no prompt.
  const g = a.generation_params;
  const pairs: [string, unknown][] = [
    ["asset", a.asset_id],
    ["status", a.status],
    ["type", a.type],
    ["model", g?.model ?? null],
    ["prompt", g?.prompt || null],
    ["size", typeof a.width === "number" && typeof a.height === "number" ? `${a.width}×${a.height}` : null],
    ["duration", typeof a.duration_seconds === "number" ? `${a.duration_seconds} s` : null],
    ["cost", typeof a.cost === "number" ? credits(a.cost) : null],
    ["url", a.url ?? null],
    ["thumbnail", a.thumbnail_url ?? null],
    ["error", a.error ? jobErrorText(a.error) : null],
    ["created", a.created_at ?? null],
  ];
  // Fields the record does not carry in this state are left out rather than shown empty.
  return keyValues(pairs.filter(([, v]) => v !== null));
}

// ---- waiting and saving ---------------------------------------------------------------------------

function extensionOf(a: Asset): string {
  let fromUrl = "";
  try {
    fromUrl = a.url ? path.posix.extname(new URL(a.url, "file:///").pathname).slice(1) : "";
  } catch {
    // not a URL: the type decides
  }
  return fromUrl || (a.type === "image" ? "png" : a.type === "audio" ? "mp3" : "mp4");
}

/** Its terminal states are its life's (./life.ts). */
const assetState = (a: Asset) => lifeState(assetLife.jobs!.asset!, a as unknown as Record<string, unknown>);
const assetText = (a: Asset) => a.status;
/** The spec refunds a failed asset on both targets; `cost` is what was debited. */
const assetFailure = (a: Asset) => `${jobErrorText(a.error)}; ${refundNote(typeof a.cost === "number" ? a.cost : undefined, true)}`;

/** The wait for assets (watch.ts): how to poll each id, read its state, and what to save. */
export function assetWatch(engine: Engine, ids: readonly string[]): { jobs: WaitJob<Asset>[]; kind: WatchKind<Asset> } {
  const jobs = ids.map((id) => ({
    id,
    label: `asset ${id}`,
    poll: (signal: AbortSignal) => engine.assetStatus({ assetId: id }, { signal }),
  }));
  return {
    jobs,
    kind: {
      state: assetState,
      describe: assetText,
      failure: assetFailure,
      schedule: assetSchedule,
      unknown: (job) => ({ asset_id: job.id, status: "unknown" }),
      human: (a) => [`${a.asset_id}  ${assetText(a)}  ${a.url ?? ""}`.trimEnd()],
      file: (a) => (a.url ? { url: a.url, name: `${a.asset_id}.${extensionOf(a)}` } : undefined),
      resumeArgs: (js) => ["asset", "status", ...js.map((j) => j.id), "--watch"],
      journal: "asset",
    },
  };
}

/** Waits on every id under one deadline and saves the results (see watch.ts for what is printed). */
async function watchAssets(ctx: CommandContext, engine: Engine, ids: string[], flags: WatchOptionFlags): Promise<void> {
  const { watchJobs } = await import("../../../cli/watch.js");
  const { jobs, kind } = assetWatch(engine, ids);
  await watchJobs(ctx, jobs, kind, flags);
}

// ---- commands -------------------------------------------------------------------------------------

const ASSET_WATCH = { until: "every generation ends", saves: "each result into <dir> as <asset_id>.<ext>" };

function registerModels(asset: Command, getContext: ContextGetter): void {
  const models = MODELS_FLAGS.addTo(asset.command("models").description("List models (GET /asset/models)")).action(
    async (opts: FlagInput<typeof MODELS_FLAGS>, cmd: Command) => {
      const ctx = getContext(cmd);
      // An empty filter is no filter.
      const q = Object.fromEntries(Object.entries(MODELS_FLAGS.request(MODELS_FLAGS.values(opts))).filter(([, v]) => v !== ""));
      const engine = await ctx.engine();
      const res = await engine.assetModels(q);
      ctx.print(
        res,
        (r) => modelsTable(ctx, r),
        (r) => r.models.map((m) => m.name),
      );
      if (!ctx.opts.json && res.models.length) for (const l of wrapCell(COST_NOTE, stderrWidth(ctx.io))) ctx.io.info(l);
    },
  );
  examples(models, ["mediagen asset models", "mediagen asset models --type image --json", "mediagen asset models --tag upscale -q"]);
}

function registerModel(asset: Command, getContext: ContextGetter): void {
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
}

function registerPrice(asset: Command, getContext: ContextGetter): void {
  const price = PRICE_FLAGS.addTo(asset.command("price").description("Dry-run price of a generation; nothing is debited (POST /asset/pricing)")).action(
    async (opts: PriceFlags, cmd: Command) => {
      const ctx = getContext(cmd);
      const flags = PRICE_FLAGS.values(opts);
      const body = applySets(PRICE_FLAGS.request(flags, flags.body ? await ctx.readBody(flags.body) : {}), flags.set);
      if (body.model === undefined) throw new CliError("missing required flag --model", EXIT.usage, "missing_field", "model");
      ctx.explainWith?.(PRICE_FLAGS.givenFlags(flags), body);
      // aspect_ratio is named (and refused) by the contract: the service's answer, not this line, says so.
      sayUnnamed(ctx, body, [...PRICING_FIELDS, "aspect_ratio"]);
      const engine = await ctx.engine();
      const res = await engine.assetPricing(body);
      ctx.print(res, priceLines, (p) => [String(p.total_cost)]);
    },
  );
  examples(price, [
    "mediagen asset price --model vidA-3 --duration 5",
    "mediagen asset price --model imgB-edit --image-count 3 --count 2",
    "mediagen asset price --model vidC-upscale --duration 12 --json",
  ]);
}

function registerStart(asset: Command, getContext: ContextGetter): void {
  const start = START_FLAGS.addTo(asset.command("start").description("Start image or video generation (POST /asset/start)"));
  watchOptions(start, ASSET_WATCH).action(async (opts: StartFlags & WatchOptionFlags, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = START_FLAGS.values(opts);
    const body = applySets(START_FLAGS.request(flags, flags.body ? await ctx.readBody(flags.body) : {}), flags.set);
    for (const [field, flag] of [
      ["type", "--type"],
      ["model", "--model"],
    ] as const) {
      if (body[field] === undefined) throw new CliError(`missing required flag ${flag}`, EXIT.usage, "missing_field", field);
    }
    if ((await ctx.target()) === "hosted") {
      const local = START_FLAGS.hostedMediaError(opts);
      if (local) throw local;
    }
    const simulate = flags.simulate;
    const wait = waits(opts);
    if (!flags.dryRun) await checkWaitFlags(opts);
    ctx.explainWith?.(START_FLAGS.givenFlags(flags), body);
    const engine = await ctx.engine();
    const cli = ctx;
    const { guardCost, needsPrice } = await import("../../../cli/cost-guard.js");
    const guard = { ...(flags.maxCredits !== undefined ? { maxCredits: flags.maxCredits } : {}), ...(flags.yes ? { yes: true } : {}) };
    if (flags.maxCredits !== undefined && !(flags.maxCredits >= 0)) throw usage("--max-credits", "expected 0 or more credits");
    if (flags.dryRun || needsPrice(cli, guard)) {
      // A start the service would refuse has no price: judged first, as the start itself would be.
      await (await import("../../../cli/contract-check.js")).refuseAsTheServiceWould("assetStart", body);
      // The price of exactly this request, from the service's dry-run pricing (nothing is debited).
      const price = await engine.assetPricing(pricingOf(body));
      if (flags.dryRun) {
        ctx.print(price, priceLines, (p) => [String(p.total_cost)]);
        if (!ctx.opts.json && unpricedSettings(body)) ctx.io.info(UNPRICED_SETTINGS);
        if (!ctx.opts.json) ctx.io.info("Dry run: nothing was started.");
        return;
      }
      const n = price.generation_count ?? (typeof body.generation_count === "number" ? body.generation_count : 1);
      await guardCost(cli, { ...guard, price: price.total_cost, what: `${n} generation${n === 1 ? "" : "s"} of ${price.model ?? body.model}` });
    }
    const res = await engine.assetStart(body, simulate ? { simulate } : {});
    // The price is talk (stderr); stdout carries the ids, or with a wait only what the wait ends with.
    if (!ctx.opts.json) {
      const n = res.count ?? res.asset_ids.length;
      ctx.io.info(`Started ${n} generation${n === 1 ? "" : "s"}: ${credits(res.cost_per_generation)} each, ${credits(res.total_cost)} in total`);
    }
    if (!wait)
      ctx.print(
        res,
        (r: AssetStartResponse) => r.asset_ids,
        (r) => r.asset_ids,
      );
    else if (!ctx.opts.json) ctx.io.info(res.asset_ids.join("\n"));
    if (wait) await watchAssets(ctx, engine, res.asset_ids, opts);
  });
  addWebhookListen(start, getContext, { fields: ["webhookUrl"], expected: (o) => (typeof o.count === "string" ? Number(o.count) || 1 : 1) });
  examples(start, [
    'mediagen asset start --type image --model imgA-4 --prompt "a red fox at dawn" --watch --download out/',
    'mediagen asset start --type video --model vidA-3 --prompt "waves at night" --duration 4 --setting generateAudio=false',
    'mediagen asset start --type video --model vidA-3-frames --prompt "day to night" --first-frame day.png --last-frame night.png',
    "mediagen asset start --type video --model vidC-upscale --source-video asset:65f0c2a1b3e4d5f6a7b8c9d0 --watch",
    'mediagen asset start --type video --model vidD-omni --prompt "@hero waves" --element hero=front.png,side.png',
    "mediagen asset start --body request.json --model imgA-4-fast --count 4 -q",
    'mediagen asset start --type video --model vidA-3 --prompt "waves" --duration 8 --count 2 --dry-run',
    'mediagen asset start --type video --model vidA-3 --prompt "waves" --max-credits 40 --watch',
  ]);
}

function registerStatus(asset: Command, getContext: ContextGetter): void {
  const status = asset.command("status <asset_id...>").description("Status of assets (GET /asset/status/{assetId})");
  watchOptions(status, ASSET_WATCH).action(async (ids: string[], opts: WatchOptionFlags, cmd: Command) => {
    const ctx = getContext(cmd);
    const engine = await ctx.engine();
    if (waits(opts)) {
      await watchAssets(ctx, engine, ids, opts);
      return;
    }
    const { printEach } = await import("../../../cli/each.js");
    await printEach(ctx, {
      ids,
      read: (id) => engine.assetStatus({ assetId: id }),
      label: (id) => `asset ${id}`,
      human: assetLines,
      journal: "asset",
      idOf: (a) => a.asset_id,
    });
  });
  examples(status, [
    "mediagen asset status 65f0c2a1b3e4d5f6a7b8c9d0",
    "mediagen asset status 65f0c2a1b3e4d5f6a7b8c9d0 --watch --download out/",
    "mediagen asset status 65f0c2a1b3e4d5f6a7b8c9d0 65f0c2a1b3e4d5f6a7b8c9d1 --json",
  ]);
}

export const command: CommandModule = {
  register(asset: Command, getContext) {
    examples(asset, [
      "mediagen asset models --type video",
      "mediagen asset price --model vidA-3 --duration 6",
      'mediagen asset start --type image --model imgA-4 --prompt "a red fox at dawn" --watch --download out/',
      "mediagen asset status 65f0c2a1b3e4d5f6a7b8c9d0 --watch",
    ]);

    registerModels(asset, getContext);
    registerModel(asset, getContext);
    registerPrice(asset, getContext);
    registerStart(asset, getContext);
    registerStatus(asset, getContext);
  },
};
