/**
 * A model catalog copied from the hosted service into the local instance (`mediagen local catalog
 * sync`), so a pipeline built against the local instance meets the hosted models, prices and rules.
 *
 * - Conversion: each hosted model record (GET /asset/models/{name}, with its `input_schema`) becomes a
 *   local definition (catalog/models.ts) of a capability class the local renderer knows (image,
 *   text/image-to-video, frames, extend, motion, edit, upscale, UGC). A model whose inputs or type
 *   belong to no known class is listed as skipped, never guessed.
 * - Prices: the hosted pricing endpoint is asked at every resolution, with a reference more and at
 *   both ends of the durations, so the local formula gives the hosted figures. Only the fields the
 *   docs name are sent: a cost-changing setting (the settings object has no documented name on that
 *   endpoint) is priced at its default, and the sync says so (a file source carries no prices: `base_cost` at default parameters is
 *   spread per second, or taken flat).
 * - Storage: one row of `model_catalog` (migration 8) in the instance's SQLite; the handlers read it
 *   per request through `catalogOf`, cached per database by its revision, so a sync or reset is seen
 *   by the server and the in-process instance alike. No row: the built-in catalog.
 */
import type { LocalInstance } from "../../../../local/instance.js";
import type { DB } from "../../../../local/types.js";
import { MODELS, type ModelDef, type PricingDef, type RenderMode, type SettingDef, type SlotDef } from "../catalog/models.js";
import type { SlotName } from "../../contract.js";
import type { VoiceFacts } from "../../../voice/voice-facts.js";
export { CATALOG_MIGRATION_VERSION } from "../schema.js";

/** A public voice copied from the hosted service, spoken locally by an espeak-ng voice of its language and gender. */
export type SyncedVoice = VoiceFacts;

/** The synced public voices, or undefined when the instance uses its built-in ones. */
export function syncedVoicesOf(db: DB): SyncedVoice[] | undefined {
  const row = db.prepare("SELECT voices FROM model_catalog WHERE id = 1").get() as { voices: string | null } | undefined;
  return row?.voices ? (JSON.parse(row.voices) as SyncedVoice[]) : undefined;
}

/**
 * Hosted voices (GET /voice/list?onlyPublic=true, with the accent of GET /resources/voices) as local
 * ones: each speaks with the built-in voice of the same language and gender (else the language), so
 * generation and previews work; a language the local speech does not have is skipped.
 */
export function convertVoices(
  list: unknown[],
  resources: unknown[],
  builtIn: readonly { language: string; gender: string; tts: string }[],
): { voices: SyncedVoice[]; skipped: SkippedModel[] } {
  const accent = new Map<string, string>();
  for (const r of resources) if (isObj(r) && typeof r.id === "string" && typeof r.accent === "string") accent.set(r.id, r.accent);
  const voices: SyncedVoice[] = [];
  const skipped: SkippedModel[] = [];
  for (const v of list) {
    if (!isObj(v) || typeof v.id !== "string") continue;
    if (v.source === "space") continue;
    const language = typeof v.language === "string" ? v.language.toLowerCase().split(/[-_]/)[0]! : "";
    const gender = v.gender === "male" || v.gender === "female" ? v.gender : undefined;
    const speaker = builtIn.find((b) => b.language === language && b.gender === gender) ?? builtIn.find((b) => b.language === language);
    if (!gender || !speaker) {
      skipped.push({ name: `voice ${v.id}`, reason: !gender ? "no gender" : `the local speech has no voice for language ${JSON.stringify(v.language)}` });
      continue;
    }
    voices.push({
      id: v.id,
      name: typeof v.name === "string" ? v.name : v.id,
      language,
      accent: accent.get(v.id) ?? "",
      gender,
      tags: strings(v.tags),
      tts: speaker.tts,
    });
  }
  return { voices, skipped };
}

export type ModelLookup = (name: string) => ModelDef | undefined;

export interface Catalog {
  models: readonly ModelDef[];
  find: ModelLookup;
  /** "built-in", or where the synced catalog came from. */
  source: string;
}

export interface SkippedModel {
  name: string;
  reason: string;
}

const BUILT_IN: Catalog = (() => {
  const byName = new Map(MODELS.map((m) => [m.name, m]));
  return { models: MODELS, find: (n) => byName.get(n), source: "built-in" };
})();

const cache = new WeakMap<DB, { revision: number; catalog: Catalog }>();

interface CatalogRow {
  source: string;
  synced_at: string;
  revision: number;
  models: string;
  skipped: string;
}

function readRow(db: DB): CatalogRow | undefined {
  return db.prepare("SELECT source, synced_at, revision, models, skipped FROM model_catalog WHERE id = 1").get() as CatalogRow | undefined;
}

/** The catalog the instance serves: the synced one, else the built-in. */
export function catalogOf(instance: Pick<LocalInstance, "db">): Catalog {
  const db = instance.db;
  const row = db.prepare("SELECT revision FROM model_catalog WHERE id = 1").get() as { revision: number } | undefined;
  if (!row) return BUILT_IN;
  const hit = cache.get(db);
  if (hit && hit.revision === row.revision) return hit.catalog;
  const full = readRow(db)!;
  const models = JSON.parse(full.models) as ModelDef[];
  const byName = new Map(models.map((m) => [m.name, m]));
  const catalog: Catalog = { models, find: (n) => byName.get(n), source: full.source };
  cache.set(db, { revision: row.revision, catalog });
  return catalog;
}

export interface CatalogStatus {
  source: string;
  synced_at: string | null;
  age_seconds: number | null;
  models: number;
  /** Public voices copied by the sync; null: the built-in voices. */
  voices: number | null;
  /** Public avatars and their looks copied by the sync (`--avatars`); null: the built-in avatars. */
  avatars: { avatars: number; looks: number } | null;
  skipped: SkippedModel[];
}

export function catalogStatus(instance: Pick<LocalInstance, "db" | "clock">): CatalogStatus {
  const row = readRow(instance.db);
  if (!row) return { source: "built-in", synced_at: null, age_seconds: null, models: MODELS.length, voices: null, avatars: null, skipped: [] };
  const voices = syncedVoicesOf(instance.db);
  const avatarsRow = instance.db.prepare("SELECT avatars FROM model_catalog WHERE id = 1").get() as { avatars: string | null };
  const avatars = avatarsRow.avatars ? (JSON.parse(avatarsRow.avatars) as { looks: unknown[] }[]) : null;
  return {
    source: row.source,
    synced_at: row.synced_at,
    age_seconds: Math.max(0, Math.round((instance.clock.now() - Date.parse(row.synced_at)) / 1000)),
    models: (JSON.parse(row.models) as unknown[]).length,
    voices: voices ? voices.length : null,
    avatars: avatars ? { avatars: avatars.length, looks: avatars.reduce((n, a) => n + a.looks.length, 0) } : null,
    skipped: JSON.parse(row.skipped) as SkippedModel[],
  };
}

export function storeCatalog(
  instance: Pick<LocalInstance, "db" | "nowIso">,
  source: string,
  models: readonly ModelDef[],
  skipped: readonly SkippedModel[],
  voices?: readonly SyncedVoice[],
  /** Public avatars with their looks (avatar/catalog-sync.ts); absent: the built-in avatars. */
  avatars?: readonly unknown[],
): void {
  const db = instance.db;
  db.transaction(() => {
    const prev = db.prepare("SELECT revision FROM model_catalog WHERE id = 1").get() as { revision: number } | undefined;
    db.prepare("DELETE FROM model_catalog WHERE id = 1").run();
    db.prepare("INSERT INTO model_catalog (id, source, synced_at, revision, models, skipped, voices, avatars) VALUES (1, ?, ?, ?, ?, ?, ?, ?)").run(
      source,
      instance.nowIso(),
      (prev?.revision ?? 0) + 1,
      JSON.stringify(models),
      JSON.stringify(skipped),
      voices ? JSON.stringify(voices) : null,
      avatars ? JSON.stringify(avatars) : null,
    );
  }).immediate();
}

/** Back to the built-in catalog. */
export function resetCatalog(instance: Pick<LocalInstance, "db">): boolean {
  return instance.db.prepare("DELETE FROM model_catalog WHERE id = 1").run().changes > 0;
}

// ---- conversion -------------------------------------------------------------------------------------

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === "number" && Number.isFinite(x)) : []);

const SLOT_NAMES: readonly SlotName[] = ["start_image", "end_image", "first_frame", "last_frame", "motion_video", "source_video"];
/** The inputs a local model can take; any other property of an input_schema is a class the renderer does not know. */
const KNOWN_INPUTS = new Set<string>([
  "prompt",
  "references",
  "elements",
  "avatar_description",
  "aspect_ratio",
  "resolution",
  "duration",
  "generation_count",
  "model_settings",
  ...SLOT_NAMES,
]);

/** What the pricing probes found (hosted source): totals for one generation, in credits. */
export type PriceProbe = (request: Json) => Promise<number>;

/** The capability class of a hosted model, from its inputs (or why none fits). */
function classOf(type: string, props: Json, tags: string[]): RenderMode | { skip: string } {
  const slots = SLOT_NAMES.filter((s) => s in props);
  if (type === "image") return slots.length ? { skip: "an image model with named slots is not a class the local renderer knows" } : "image";
  const has = (...names: string[]) => names.every((n) => slots.includes(n as SlotName)) && slots.length === names.length;
  if (slots.length === 0) return "avatar_description" in props ? "ugc" : "text-to-video";
  if (has("first_frame", "last_frame")) return "frames";
  if (has("start_image", "end_image") || has("start_image")) return "frames";
  if (has("start_image", "motion_video")) return "motion";
  if (has("source_video")) {
    if (tags.includes("upscale") || !("prompt" in props)) return "upscale";
    if (tags.includes("extend")) return "extend";
    return "edit";
  }
  return { skip: `its slots (${slots.join(", ")}) match no class the local renderer knows` };
}

function settingsOf(v: unknown): SettingDef[] {
  const out: SettingDef[] = [];
  for (const s of Array.isArray(v) ? v : []) {
    if (!isObj(s) || typeof s.key !== "string") continue;
    const label = typeof s.label === "string" ? s.label : s.key;
    const affects = s.affects_cost === true;
    if (s.type === "select" && Array.isArray(s.options)) {
      out.push({ key: s.key, type: "select", label, default_value: String(s.default_value ?? s.options[0]), affects_cost: affects, options: strings(s.options) });
    } else if (s.type === "boolean") {
      out.push({
        key: s.key,
        type: "boolean",
        label,
        default_value: s.default_value === true,
        affects_cost: affects,
        ...(/audio/i.test(s.key) ? { controlsAudio: true } : {}),
      });
    }
  }
  return out;
}

const milli = (credits: number) => Math.round(credits * 1000);

/** Converts one hosted model record; `probe` asks the hosted pricing endpoint (absent: a file source). */
export async function convertModel(detail: unknown, probe?: PriceProbe): Promise<{ model: ModelDef; warnings?: string[] } | { skipped: SkippedModel }> {
  const d = isObj(detail) ? detail : {};
  const name = typeof d.name === "string" ? d.name : "";
  if (!name) return { skipped: { name: "(no name)", reason: "the record has no name" } };
  const skip = (reason: string) => ({ skipped: { name, reason } });
  const type = d.type;
  if (type !== "image" && type !== "video") return skip(`type ${JSON.stringify(type)}: the local renderer makes images and videos only`);
  const schema = isObj(d.input_schema) ? d.input_schema : undefined;
  if (!schema || !isObj(schema.properties)) return skip("the record has no input_schema");
  const props = schema.properties;
  const unknown = Object.keys(props).filter((k) => !KNOWN_INPUTS.has(k));
  if (unknown.length) return skip(`it takes ${unknown.join(", ")}, which the local renderer does not know`);
  const tags = strings(d.tags);
  const cls = classOf(type, props, tags);
  if (typeof cls !== "string") return skip(cls.skip);
  const required = new Set(strings(schema.required));
  const caps = isObj(d.capabilities) ? d.capabilities : {};
  const enumOf = (field: string, fallback: unknown) => {
    const p = props[field];
    return isObj(p) && Array.isArray(p.enum) ? p.enum : Array.isArray(fallback) ? fallback : [];
  };
  const defaultOf = (field: string, fallback: unknown) => {
    const p = props[field];
    return isObj(p) && p.default !== undefined ? p.default : fallback;
  };
  const aspect = strings(enumOf("aspect_ratio", caps.supported_aspect_ratios));
  // The resolution choices: the input schema's (capabilities' keys for them are not documented).
  const resolutions = strings(enumOf("resolution", undefined));
  const durations = numbers(enumOf("duration", caps.supported_durations));
  const settings = settingsOf(d.settings);
  const refs = isObj(props.references) ? props.references : undefined;
  const slots: SlotDef[] = SLOT_NAMES.filter((s) => s in props).map((s) => {
    const p = isObj(props[s]) ? (props[s] as Json) : {};
    const keys = isObj(p.properties) ? Object.keys(p.properties) : [];
    const assetOnly = keys.length === 1 && keys[0] === "asset_id";
    return { name: s, kind: s === "motion_video" || s === "source_video" ? "video" : "image", required: required.has(s), ...(assetOnly ? { assetOnly: true } : {}) };
  });
  const promptSchema = isObj(props.prompt) ? props.prompt : undefined;
  const def: ModelDef = {
    name,
    label: typeof d.label === "string" ? d.label : name,
    type,
    provider: typeof d.provider === "string" ? d.provider : "unknown",
    tags,
    has_audio: d.has_audio === true,
    required_plans: strings(d.required_plans),
    restricted_countries: strings(d.restricted_countries),
    max_prompt_length:
      typeof d.max_prompt_length === "number" ? d.max_prompt_length : promptSchema && typeof promptSchema.maxLength === "number" ? promptSchema.maxLength : null,
    ...(!required.has("prompt") ? { promptless: true } : {}),
    ...(refs
      ? { references: { min: typeof refs.minItems === "number" ? refs.minItems : 0, max: typeof refs.maxItems === "number" ? refs.maxItems : 1, kinds: ["image"] } }
      : slots.length === 0
        ? { references: { min: 0, max: 0, kinds: ["image"] } }
        : {}),
    ...(slots.length ? { slots } : {}),
    aspect_ratios: aspect,
    default_aspect_ratio: aspect.length ? String(defaultOf("aspect_ratio", caps.default_aspect_ratio ?? aspect[0])) : null,
    resolutions,
    default_resolution: resolutions.length ? String(defaultOf("resolution", resolutions[0])) : null,
    durations,
    default_duration: durations.length ? Number(defaultOf("duration", caps.default_duration ?? durations[0])) : null,
    settings,
    ...("elements" in props ? { elements: true } : {}),
    ...("avatar_description" in props ? { avatarDescription: true } : {}),
    pricing: { kind: "flat", milli: 0 },
    render: cls,
  };
  const base = typeof d.base_cost === "number" && d.base_cost >= 0 ? d.base_cost : 0;
  const warnings: string[] = [];
  def.pricing = await pricingOf(def, base, probe, (w) => warnings.push(w));
  if (probe) warnings.push(...(await checkPrices(def, probe)));
  return warnings.length ? { model: def, warnings } : { model: def };
}

/**
 * The fitted formula checked where it was not fitted: the shortest and longest durations. A model
 * the local formulas cannot follow keeps the fit, with a warning naming the difference.
 */
async function checkPrices(def: ModelDef, probe: PriceProbe): Promise<string[]> {
  const { quote } = await import("../catalog/pricing.js");
  const points = [...new Set([def.durations[0], def.durations.at(-1)])].filter((d): d is number => d !== undefined && d !== def.default_duration);
  const out: string[] = [];
  for (const duration of points) {
    const req = { model: def.name, duration };
    const hosted = await probe(req);
    const local = quote(req, (n) => (n === def.name ? def : undefined)).total_cost;
    if (Math.abs(hosted - local) > 0.0005) out.push(`${def.name}: at ${duration} s the hosted price is ${hosted}, the local formula gives ${local}`);
  }
  return out;
}

/**
 * The local formula that gives the hosted prices (see the module comment). The probes send only the
 * pricing fields the docs name (PRICING_FIELDS): the settings object has no documented name on the
 * pricing endpoint, so a cost-changing setting is priced at its default, with a warning.
 */
async function pricingOf(def: ModelDef, baseCost: number, probe?: PriceProbe, warn: (w: string) => void = () => {}): Promise<PricingDef> {
  const seconds = def.default_duration;
  const priced = def.settings.find((s) => s.type === "select" && s.affects_cost);
  const audio = def.settings.find((s) => s.type === "boolean" && s.affects_cost && s.controlsAudio);
  const unpriced = (s: SettingDef) =>
    warn(
      `${def.name}: ${s.key} changes the price, but the service documents no pricing field for model settings; the local price is the one at its default (${String(s.default_value)})`,
    );
  if (seconds !== null && seconds > 0) {
    const byResolution: Record<string, number> = {};
    const resolutions = def.resolutions.length ? def.resolutions : [def.type === "video" ? "720p" : "1K"];
    for (const r of resolutions) {
      const total = probe ? await probe({ model: def.name, resolution: r, duration: seconds }) : baseCost;
      byResolution[r] = Math.round(milli(total) / seconds);
    }
    if (audio && probe) unpriced(audio);
    if (!def.resolutions.length) {
      // A model without a resolution choice is priced at the renderer's default resolution.
      return {
        kind: "per_second",
        byResolution: { [def.type === "video" ? "720p" : "1K"]: byResolution[resolutions[0]!]! },
      };
    }
    return { kind: "per_second", byResolution };
  }
  if (priced && priced.type === "select" && probe) {
    unpriced(priced);
    const prices: Record<string, number> = {};
    const atDefault = milli(await probe({ model: def.name }));
    for (const o of priced.options) prices[o] = atDefault;
    // The resolution multiplies the setting's price (at the default resolution).
    const at = prices[priced.default_value];
    const resolutionFactor: Record<string, number> = {};
    if (at && def.resolutions.length > 1) {
      for (const r of def.resolutions) resolutionFactor[r] = milli(await probe({ model: def.name, resolution: r })) / at;
    }
    return { kind: "by_setting", setting: priced.key, milli: prices, ...(Object.keys(resolutionFactor).length ? { resolutionFactor } : {}) };
  }
  if (probe && def.references && def.references.max > 0) {
    const zero = await probe({ model: def.name, image_count: 0 });
    const one = await probe({ model: def.name, image_count: 1 });
    if (one !== zero) return { kind: "per_reference", baseMilli: milli(zero), perReferenceMilli: milli(one) - milli(zero) };
  }
  if (def.render === "upscale" && probe) {
    // Priced by the source's seconds: the rate from a 10 s source, the default length from base_cost.
    const rate = Math.round(milli(await probe({ model: def.name, duration: 10 })) / 10);
    const defaultSourceSeconds = rate > 0 && baseCost > 0 ? Math.max(1, Math.round(milli(baseCost) / rate)) : 10;
    return { kind: "per_source_second", milli: rate, defaultSourceSeconds };
  }
  return { kind: "flat", milli: milli(probe ? await probe({ model: def.name }) : baseCost) };
}
