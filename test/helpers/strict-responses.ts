/**
 * The STRICT response schemas, for tests only: the full records the spec gives
 * (/work/shared/spec/service-spec.md) with the names hosted-facts.md gives where the spec says "not
 * shown". The product reads answers tolerantly (src/hosted/response-check.ts, issue 34: only what a
 * command needs is required), so drift in the emulator's optional fields would go unseen there; the
 * project's own tests read the emulator's answers (local target, `serve`) with these instead.
 *
 * - Every field the spec gives is required, with its type; `null` only where the spec says "or null".
 * - Fields the spec gives in some states only (an asset's `url` when completed, `error` when failed, a
 *   job's `result` on completion) are checked by state: present in that state, absent in the others.
 * - Closed lists (statuses, types, formats, steps, model families) come from src/contract and the
 *   features' contracts, not re-typed here.
 * - A field neither document names is reported ("has a field the spec does not give"): the records
 *   are closed, except where the spec itself leaves a value open (a model's `input_schema`
 *   properties are JSON Schema).
 * - Where the emulator and the documents disagree in a way this file cannot settle, the schema
 *   accepts the emulator's answer and says why in a comment marked UNSETTLED.
 */
import { z } from "zod";
import type { OpName } from "../../src/features/operations.js";
import { responseProblems, type ResponseProblem } from "../../src/hosted/response-check.js";
import { FOLDER_TYPES } from "../../src/contract/folder-types.js";
import { PLANS } from "../../src/contract/plans.js";
import { MAX_GENERATIONS, MIN_GENERATIONS, type PRICING_FIELDS, SLOT_NAMES } from "../../src/contract/asset-rules.js";
import { LOOK_FORMATS } from "../../src/contract/avatar-vocabulary.js";
import { AssetStartRequest, AssetStatus, AssetType } from "../../src/features/asset/contract.js";
import { AvatarJobStatus, LookStatus, MODEL_AVAILABLE } from "../../src/features/avatar/contract.js";
import { GENERATION_STEPS, JOB_STATUSES } from "../../src/features/generation/contract.js";
import { EXPORT_STEPS } from "../../src/features/export/contract.js";

// ---------------------------------------------------------------------------------------------
// Building blocks

/** ISO 8601 with a time and a zone (`Z` or an offset). */
const Iso = z.iso.datetime({ offset: true, error: "should be an ISO 8601 timestamp" });
/** A URL (the emulator's media links are http(s) through `serve`, file:// in process). */
const Url = z.url({ error: "should be a URL" });
const Text = z.string();
const Id = z.string().min(1, { error: "should be a non-empty id" });
const Credits = z.number().min(0, { error: "should not be negative" });
const Percent = z.number().min(0).max(100);
const Gender = z.enum(["male", "female"]);
/** A code in the upper-case style of the job errors (`EXPORT_FAILED`, `LOOK_GENERATION_FAILED`): `simulate` may pick any such code. */
const UpperCode = z.string().regex(/^[A-Z][A-Z0-9_]*$/, { error: "should be an upper-case error code" });
/**
 * `model_available`: the spec's list, plus the names hosted-facts gives for the service's latest
 * lists ("the set grows"); a value in neither is drift.
 */
const MODEL_NAMES = [...MODEL_AVAILABLE, "veo-3", "veo-3-fast", "veo-3-lite", "seedance-2", "seedance-2-fast", "seedance-2-1080p"] as const;
const ModelAvailable = z.array(z.enum(MODEL_NAMES));
/** hosted-facts, GET /avatar/list: the catalog's age ranges (a closed list there; src has it only as help text). */
const AgeRange = z.enum(["senior", "adult", "young_adult", "adolescent"]);
/**
 * hosted-facts: the catalog's hair colours (a closed list there). UNSETTLED: an avatar made from a
 * prompt that names no hair colour says `unspecified` on the emulator; the documents do not say what
 * the service answers for it.
 */
const HairColor = z.enum(["black", "brown", "blonde", "red", "gray", "white", "bald", "unspecified"]);
/** hosted-facts: "Languages are codes such as `en`; regional tags are not documented". */
const Language = z.string().regex(/^[a-z]{2,3}$/, { error: "should be a language code such as en" });

interface StateRule {
  /** The values of the state field this rule is for. */
  when: readonly string[];
  /** Fields the spec gives in these states. */
  present?: readonly string[];
  /** Fields the spec gives only in other states. */
  absent?: readonly string[];
}

type Ctx = z.RefinementCtx;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks presence by state: `url` present when `completed`, absent otherwise, and so on. */
function stateRules(key: string, rules: readonly StateRule[]) {
  return (v: unknown, ctx: Ctx): void => {
    if (!isRecord(v) || typeof v[key] !== "string") return;
    const state = v[key] as string;
    for (const r of rules) {
      if (!r.when.includes(state)) continue;
      for (const f of r.present ?? []) {
        if (v[f] === undefined) ctx.addIssue({ code: "custom", path: [f], input: undefined, message: `is missing (the spec gives it when ${key} is ${state})` });
      }
      for (const f of r.absent ?? []) {
        if (v[f] !== undefined) ctx.addIssue({ code: "custom", path: [f], input: v[f], message: `should be absent when ${key} is ${state}` });
      }
    }
  };
}

/** The same rules, run even when a field's own check failed (so one answer reports all its problems). */
function refined<T extends z.ZodType>(schema: T, ...checks: ((v: unknown, ctx: Ctx) => void)[]): T {
  return schema.superRefine(
    (v, ctx) => {
      for (const c of checks) c(v, ctx);
    },
    { when: () => true },
  ) as unknown as T;
}

/** `total` = `per` × `count` (credits may be fractional: compared to a thousandth). */
function product(total: string, per: string, count: string) {
  return (v: unknown, ctx: Ctx): void => {
    if (!isRecord(v)) return;
    const [t, p, n] = [v[total], v[per], typeof v[count] === "number" ? v[count] : Array.isArray(v[count]) ? (v[count] as unknown[]).length : undefined];
    if (typeof t !== "number" || typeof p !== "number" || typeof n !== "number") return;
    if (Math.abs(t - p * n) > 0.001) ctx.addIssue({ code: "custom", path: [total], input: t, message: `should be ${per} × ${count} (${p} × ${n}), got ${t}` });
  };
}

// ---------------------------------------------------------------------------------------------
// Folder

const Folder = z.strictObject({
  // hosted-facts: "Ids are 24 lowercase hex characters".
  id: z.string().regex(/^[0-9a-f]{24}$/, { error: "should be 24 lowercase hex characters" }),
  name: Text,
  type: z.enum(FOLDER_TYPES),
  parent_folder_id: z
    .string()
    .regex(/^[0-9a-f]{24}$/, { error: "should be a folder id (24 lowercase hex characters) or null" })
    .nullable(),
  created_at: Iso,
});

// ---------------------------------------------------------------------------------------------
// Models (hosted-facts: GET /asset/models, GET /asset/models/{name})

const ModelType = AssetType.exclude(["audio"]);

/** "—" in the hosted catalog: a model without a ratio or duration choice has no default either. */
function defaultsInChoices(v: unknown, ctx: Ctx): void {
  if (!isRecord(v)) return;
  for (const [list, def] of [
    ["supported_aspect_ratios", "default_aspect_ratio"],
    ["supported_durations", "default_duration"],
  ] as const) {
    const choices = v[list];
    if (!Array.isArray(choices)) continue;
    const d = v[def];
    if (choices.length === 0 && d !== undefined && d !== null) ctx.addIssue({ code: "custom", path: [def], input: d, message: `should be absent: ${list} is empty` });
    if (choices.length > 0 && !choices.includes(d))
      ctx.addIssue({ code: "custom", path: [def], input: d, message: `should be one of ${list} (${choices.join(", ")}), got ${String(d)}` });
  }
}

const Capabilities = refined(
  z.strictObject({
    max_images: z.number().int().min(0),
    min_images: z.number().int().min(0),
    supported_aspect_ratios: z.array(Text),
    default_aspect_ratio: Text.optional(),
    supported_durations: z.array(z.number().int({ error: "should be whole seconds" })),
    default_duration: z.number().int().optional(),
    // No resolution keys: hosted-facts says the service's are not documented, so the emulator sends
    // none (the choices are the detail's input_schema `resolution`, and max_resolution).
  }),
  defaultsInChoices,
);

const summaryFields = {
  name: Id,
  label: Text,
  type: ModelType.optional(),
  provider: Text.optional(),
  tags: z.array(Text),
  base_cost: Credits,
  has_audio: z.boolean(),
  /** Absent for a model without a resolution choice ("—" in the hosted catalog). */
  max_resolution: Text.optional(),
  required_plans: z.array(z.enum(PLANS)),
  capabilities: Capabilities,
};

/** A detail's `max_resolution` is one of its input schema's resolutions: present exactly when it has a choice. */
function maxResolution(v: unknown, ctx: Ctx): void {
  if (!isRecord(v) || !isRecord(v.input_schema) || !isRecord(v.input_schema.properties)) return;
  const r = (v.input_schema.properties as Record<string, { enum?: unknown[] } | undefined>).resolution;
  const list = r?.enum ?? [];
  if (list.length === 0 && v.max_resolution !== undefined)
    ctx.addIssue({ code: "custom", path: ["max_resolution"], input: v.max_resolution, message: "should be absent: the model has no resolution choice" });
  if (list.length > 0 && !list.includes(v.max_resolution))
    ctx.addIssue({ code: "custom", path: ["max_resolution"], input: v.max_resolution, message: `should be one of the model's resolutions (${list.join(", ")})` });
}

// A summary has no input schema to check max_resolution against: the detail's check does (maxResolution).
const ModelSummary = z.strictObject(summaryFields);

/** A filtered listing gives the filtered `type`/`provider` once at the root and leaves it out of every item; unfiltered items carry both. */
function filteredOnce(v: unknown, ctx: Ctx): void {
  if (!isRecord(v) || !Array.isArray(v.models)) return;
  v.models.forEach((m, i) => {
    if (!isRecord(m)) return;
    for (const k of ["type", "provider"] as const) {
      if (v[k] !== undefined && m[k] !== undefined)
        ctx.addIssue({ code: "custom", path: ["models", i, k], input: m[k], message: `should be absent: the listing is filtered on ${k} (given once at the root)` });
      if (v[k] === undefined && m[k] === undefined)
        ctx.addIssue({ code: "custom", path: ["models", i, k], input: undefined, message: `is missing (an unfiltered item carries ${k})` });
    }
  });
  if (typeof v.count === "number" && v.count !== v.models.length)
    ctx.addIssue({ code: "custom", path: ["count"], input: v.count, message: `should be the number of models listed (${v.models.length}), got ${v.count}` });
}

const ModelList = refined(
  z.strictObject({
    models: z.array(ModelSummary),
    count: z.number().int().min(0),
    type: ModelType.optional(),
    provider: Text.optional(),
  }),
  filteredOnce,
);

/** A select has `options` and its default is one of them; a boolean has a boolean default and no options. */
function settingShape(v: unknown, ctx: Ctx): void {
  if (!isRecord(v)) return;
  if (v.type === "boolean") {
    if (v.options !== undefined) ctx.addIssue({ code: "custom", path: ["options"], input: v.options, message: "should be absent for a boolean setting" });
    if (typeof v.default_value !== "boolean")
      ctx.addIssue({ code: "custom", path: ["default_value"], input: v.default_value, message: "should be a boolean (the setting is boolean)" });
  }
  if (v.type === "select") {
    if (!Array.isArray(v.options)) ctx.addIssue({ code: "custom", path: ["options"], input: v.options, message: "is missing (a select setting has options)" });
    else if (!v.options.includes(v.default_value))
      ctx.addIssue({ code: "custom", path: ["default_value"], input: v.default_value, message: "should be one of the options" });
  }
}

const ModelSetting = refined(
  z.strictObject({
    key: Id,
    type: z.enum(["boolean", "select"]),
    label: Text,
    default_value: z.union([z.boolean(), z.string(), z.number()]),
    affects_cost: z.boolean(),
    options: z.array(z.union([z.string(), z.number()])).optional(),
  }),
  settingShape,
);

/** The fields asset start takes: what an `input_schema` may list (hosted-facts). */
const START_FIELDS = Object.keys(AssetStartRequest.shape).filter((k) => !["type", "model", "webhook_url", "file_name", "parent_media_id", "folder_id"].includes(k));
/** A JSON Schema property with a closed choice (`aspect_ratio`, `resolution`, `duration`): `enum` and a `default` in it. */
const Choice = (item: z.ZodType) =>
  z
    .looseObject({ type: z.enum(["string", "integer"]), enum: z.array(item).min(1), default: item })
    .refine((p) => p.enum.includes(p.default), { error: "default should be one of enum", path: ["default"] });

const InputSchema = z
  .strictObject({
    type: z.literal("object"),
    required: z.array(z.enum(START_FIELDS as [string, ...string[]])),
    // JSON Schema per field: open values (the spec gives only the `duration` enum and the slots), closed names.
    properties: z
      .looseObject({
        aspect_ratio: Choice(Text).optional(),
        resolution: Choice(Text).optional(),
        duration: Choice(z.number().int({ error: "should be whole seconds" })).optional(),
      })
      .superRefine((props, ctx) => {
        for (const k of Object.keys(props)) {
          if (!START_FIELDS.includes(k)) ctx.addIssue({ code: "custom", path: [k], input: props[k], message: "is not a field of asset start" });
        }
      }),
  })
  .superRefine((s, ctx) => {
    s.required.forEach((k, i) => {
      if (!(k in s.properties)) ctx.addIssue({ code: "custom", path: ["required", i], input: k, message: `names ${k}, which properties does not list` });
    });
  });

/** The input schema and the capabilities tell the same choices. */
function detailAgrees(v: unknown, ctx: Ctx): void {
  if (!isRecord(v) || !isRecord(v.input_schema) || !isRecord(v.input_schema.properties) || !isRecord(v.capabilities)) return;
  const props = v.input_schema.properties as Record<string, { enum?: unknown[] } | undefined>;
  for (const [prop, cap] of [
    ["duration", "supported_durations"],
    ["aspect_ratio", "supported_aspect_ratios"],
  ] as const) {
    const a = JSON.stringify(props[prop]?.enum ?? []);
    const b = JSON.stringify(v.capabilities[cap] ?? []);
    if (a !== b)
      ctx.addIssue({ code: "custom", path: ["input_schema", "properties", prop], input: props[prop], message: `enum ${a} should equal capabilities.${cap} ${b}` });
  }
  const slots = Object.keys(props).filter((k) => (SLOT_NAMES as readonly string[]).includes(k));
  if (slots.length && props.references)
    ctx.addIssue({
      code: "custom",
      path: ["input_schema", "properties", "references"],
      input: props.references,
      message: "should be absent: a slot model lists its named slots instead of references",
    });
}

const ModelDetail = refined(
  z.strictObject({
    ...summaryFields,
    type: ModelType,
    provider: Text,
    settings: z.array(ModelSetting),
    // UNSETTLED: hosted-facts names the field, not its value for a model without a cap; the emulator
    // sends null there (the spec: "some models cap its length").
    max_prompt_length: z.number().int().min(1).nullable(),
    restricted_countries: z.array(Text),
    input_schema: InputSchema,
  }),
  maxResolution,
  detailAgrees,
);

// ---------------------------------------------------------------------------------------------
// Assets

const AssetStart = refined(
  z.strictObject({
    asset_ids: z.array(Id).min(1),
    status: z.literal("generating"),
    count: z.number().int().min(MIN_GENERATIONS).max(MAX_GENERATIONS),
    cost_per_generation: Credits,
    total_cost: Credits,
  }),
  product("total_cost", "cost_per_generation", "count"),
  (v, ctx) => {
    if (isRecord(v) && Array.isArray(v.asset_ids) && typeof v.count === "number" && v.asset_ids.length !== v.count)
      ctx.addIssue({
        code: "custom",
        path: ["asset_ids"],
        input: v.asset_ids,
        message: `should hold one id per generation (count ${v.count}), got ${v.asset_ids.length}`,
      });
  },
);

/** Pricing's `normalized`: only pricing fields (src/contract/asset-rules.ts PRICING_FIELDS), each only when coerced. */
const Normalized = z
  .strictObject({
    duration: z.number().int().optional(),
    resolution: Text.optional(),
    image_count: z.number().int().optional(),
    generation_count: z.number().int().optional(),
  } satisfies Partial<Record<(typeof PRICING_FIELDS)[number], z.ZodType>>)
  .refine((n) => Object.keys(n).length > 0, { error: "should be absent when nothing was coerced" });

const AssetPricing = refined(
  z.strictObject({
    model: Id,
    cost_per_generation: Credits,
    total_cost: Credits,
    currency: z.literal("credits"),
    generation_count: z.number().int().min(MIN_GENERATIONS).max(MAX_GENERATIONS),
    normalized: Normalized.optional(),
  }),
  product("total_cost", "cost_per_generation", "generation_count"),
);

/** Exactly one of `url`, `asset_id`, `avatar_id` (an `asset_id` reference: the id only). */
/**
 * A reference's `url` as submitted: a URL, or (in process, docs/local-differences.md "References") a
 * local path the CLI made absolute, which the record shows as given.
 */
const ReferenceUrl = z.string().refine((v) => v.startsWith("/") || URL.canParse(v), { error: "should be a URL (or, in process, an absolute local path)" });
const ReferenceItem = z
  .strictObject({ url: ReferenceUrl.optional(), asset_id: Id.optional(), avatar_id: Id.optional() })
  .refine((r) => Object.keys(r).length === 1, { error: "should have exactly one of url, asset_id, avatar_id" });

const GenerationParams = z.strictObject({
  model: Id,
  // A promptless model (an upscale) has no prompt to show: the record keeps the field (the spec lists it).
  prompt: Text,
  // The ratio and resolution used, for a model without a choice too (its fixed ones).
  aspect_ratio: Text,
  resolution: Text,
  // Seconds of video: a video's is required (checked with the asset's type), an image has none.
  duration: z.number().min(0).optional(),
  references: z.array(ReferenceItem).min(1, { error: "should be omitted when no reference was used" }).optional(),
});

const ASSET_STATES = AssetStatus.options;
const Asset = refined(
  z.strictObject({
    asset_id: Id,
    status: AssetStatus,
    type: AssetType,
    url: Url.optional(),
    thumbnail_url: Url.optional(),
    width: z.number().int().min(1).optional(),
    height: z.number().int().min(1).optional(),
    duration_seconds: z.number().min(0).optional(),
    cost: Credits,
    created_at: Iso,
    generation_params: GenerationParams.optional(),
    error: z.strictObject({ code: Id, message: Text }).optional(),
  }),
  stateRules("status", [
    { when: ["completed"], present: ["url"], absent: ["error"] },
    { when: ["failed"], present: ["error"], absent: ["url"] },
    { when: ["generating"], present: ["generation_params"], absent: ["url", "error"] },
    { when: ASSET_STATES.filter((s) => !["completed", "failed", "generating"].includes(s)), absent: ["url", "error"] },
  ]),
  stateRules("type", [
    { when: ["image", "audio"], absent: ["thumbnail_url", "duration_seconds"] },
    // A video has its length when its file exists.
  ]),
  (v, ctx) => {
    if (!isRecord(v)) return;
    if ((v.width === undefined) !== (v.height === undefined))
      ctx.addIssue({
        code: "custom",
        path: [v.width === undefined ? "width" : "height"],
        input: undefined,
        message: "is missing (width and height come together, when known)",
      });
    if (isRecord(v.generation_params)) {
      const d = v.generation_params.duration;
      if (v.type === "video" && d === undefined)
        ctx.addIssue({ code: "custom", path: ["generation_params", "duration"], input: undefined, message: "is missing (a video's generation has a duration)" });
      if (v.type !== "video" && d !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["generation_params", "duration"],
          input: d,
          message: `should be absent for ${String(v.type)} (duration is seconds of video)`,
        });
    }
    if (v.type === "video" && v.status === "completed") {
      for (const f of ["thumbnail_url", "duration_seconds"]) {
        if (v[f] === undefined) ctx.addIssue({ code: "custom", path: [f], input: undefined, message: "is missing (a completed video has it)" });
      }
    }
  },
);

// ---------------------------------------------------------------------------------------------
// Avatars and looks

const lookTraits = {
  place: Text,
  accessories: z.array(Text),
  action: Text,
  emotion: Text,
  selfie: z.boolean(),
};

const LookFormat = z.enum(LOOK_FORMATS);

/**
 * UNSETTLED: the spec gives a look's `thumbnail` (a URL) with no condition; a look still pending (or
 * failed) has no picture yet, and the emulator leaves the field out then (never ""). Required once
 * the look is `ready`.
 */
const thumbnailWhenReady = stateRules("status", [{ when: ["ready"], present: ["thumbnail"] }]);

const lookFields = {
  id: Id,
  name: Text,
  ...lookTraits,
  format: LookFormat,
  thumbnail: Url.optional(),
  preview: Url.nullable(),
  status: LookStatus,
  model_available: ModelAvailable,
};
const Look = refined(z.strictObject(lookFields), thumbnailWhenReady);

const person = {
  avatar_id: Id,
  avatar_name: Text,
  look_name: Text,
  gender: Gender,
  age_range: AgeRange,
  ethnicity: Text,
  hair_color: HairColor,
};

/** `error_message`: a string when the look is `error`, otherwise null. */
function errorMessageByStatus(v: unknown, ctx: Ctx): void {
  if (!isRecord(v)) return;
  if (v.status === "error" && typeof v.error_message !== "string")
    ctx.addIssue({ code: "custom", path: ["error_message"], input: v.error_message, message: "should be a string when status is error" });
  if (v.status !== "error" && v.error_message !== null)
    ctx.addIssue({ code: "custom", path: ["error_message"], input: v.error_message, message: `should be null when status is ${String(v.status)}` });
}

const LookDetail = refined(z.strictObject({ ...lookFields, ...person, error_message: Text.nullable() }), thumbnailWhenReady, errorMessageByStatus);

const Avatar = z.strictObject({
  id: Id,
  name: Text,
  gender: Gender,
  age: Text,
  age_range: AgeRange,
  ethnicity: Text,
  hair_color: HairColor,
  // UNSETTLED (as a look's): an avatar with no ready look has no picture yet; the emulator leaves it out.
  thumbnail: Url.optional(),
  looks: z.array(Look),
  // Spec: "timestamp, or null" (catalog avatars have none).
  created_at: Iso.nullable(),
});

const LookRef = z.strictObject({ avatar_id: Id, look_id: Id });

const AvatarStatus = refined(
  z.strictObject({
    avatar_id: Id,
    look_id: Id,
    status: AvatarJobStatus,
    result: z
      .strictObject({
        id: Id,
        avatar_name: Text,
        look_name: Text,
        gender: Gender,
        ...lookTraits,
        format: LookFormat,
        thumbnail: Url,
        model_available: ModelAvailable,
      })
      .optional(),
    error: z.strictObject({ code: UpperCode, message: Text }).optional(),
  }),
  stateRules("status", [
    { when: ["completed"], present: ["result"], absent: ["error"] },
    { when: ["failed"], present: ["error"], absent: ["result"] },
    { when: ["pending", "processing"], absent: ["result", "error"] },
  ]),
);

/** hosted-facts, GET /avatar/list: the look with its avatar's fields; items may carry `tags`. */
const AvatarListItem = z.strictObject({
  id: Id,
  ...person,
  ...lookTraits,
  format: LookFormat,
  // UNSETTLED (as a look's): a pending space look has no picture yet.
  thumbnail: Url.optional(),
  preview: Url.nullable(),
  model_available: ModelAvailable,
  tags: z.array(Text).optional(),
});

/** hosted-facts, GET /resources/avatars. */
const ResourceAvatar = z.strictObject({
  id: Id,
  avatar_name: Text,
  look_name: Text,
  gender: Gender,
  place: Text,
  format: LookFormat,
  tags: z.array(Text),
  // UNSETTLED (as a look's): a pending space look has no picture yet.
  thumbnail: Url.optional(),
  preview: Url.nullable(),
  model_available: ModelAvailable,
});

// ---------------------------------------------------------------------------------------------
// Voices

const Voice = z.strictObject({
  id: Id,
  name: Text,
  language: Language,
  gender: Gender,
  tags: z.array(Text),
  source: z.enum(["space", "config"]),
  /** hosted-facts: voice list items "may carry accent". */
  accent: Text.optional(),
});

const ResourceVoice = z.strictObject({
  id: Id,
  name: Text,
  language: Language,
  accent: Text,
  gender: Gender,
  tags: z.array(Text),
  preview: Url,
});

// ---------------------------------------------------------------------------------------------
// Script, generation, video, export

const Script = z.strictObject({ script: z.string().min(1), cost: Credits, extractedImages: z.array(Url) });

const JobStarted = z.strictObject({ job_id: Id, status: z.literal("pending"), estimated_credits: Credits });
/** hosted-facts: generation job ids are `run_` followed by an opaque id. */
const RunId = z.string().regex(/^run_./, { error: "should be run_ followed by an id" });
const GenerationStarted = JobStarted.extend({ job_id: RunId });

const GenerationStatus = refined(
  z.strictObject({
    job_id: RunId,
    status: z.enum(JOB_STATUSES),
    progress_step: Percent,
    current_step: z.enum(GENERATION_STEPS).nullable(),
    result: z.strictObject({ video_id: Id, thumbnail_url: Url, duration: z.number().min(0), cost: Credits, created_at: Iso }).optional(),
    error: z.strictObject({ code: UpperCode, message: Text }).optional(),
  }),
  stateRules("status", [
    { when: ["completed"], present: ["result"], absent: ["error"] },
    { when: ["failed"], present: ["error"], absent: ["result"] },
    { when: ["pending", "processing"], absent: ["result", "error"] },
  ]),
  // hosted-facts: `current_step` is null once completed (a step name before).
  (v, ctx) => {
    if (!isRecord(v) || !("current_step" in v)) return;
    if (v.status === "completed" && v.current_step !== null)
      ctx.addIssue({ code: "custom", path: ["current_step"], input: v.current_step, message: "should be null once completed" });
    if (v.status !== "completed" && v.current_step === null)
      ctx.addIssue({ code: "custom", path: ["current_step"], input: null, message: `should be a step name while ${String(v.status)}` });
  },
);

const VideoDuplicate = z.strictObject({
  video_id: Id,
  // Spec: "typically done"; other video statuses are not shown.
  status: z.string().min(1),
  message: Text,
  changes_applied: z.strictObject({ voice_changed: z.boolean(), avatar_changed: z.boolean() }),
});

const ExportStatus = refined(
  z.strictObject({
    job_id: Id,
    status: z.enum(JOB_STATUSES),
    progress: Percent,
    current_step: z.enum(EXPORT_STEPS),
    result: z.strictObject({ video_url: Url, thumbnail_url: Url, cost: Credits, created_at: Iso }).optional(),
    error: z.strictObject({ code: UpperCode, message: Text }).optional(),
  }),
  stateRules("status", [
    { when: ["completed"], present: ["result"], absent: ["error"] },
    { when: ["failed"], present: ["error"], absent: ["result"] },
    { when: ["pending", "processing"], absent: ["result", "error"] },
  ]),
);

// ---------------------------------------------------------------------------------------------
// The table and the check

/** One strict schema per operation's 2xx answer. */
export const STRICT_RESPONSES = {
  folderCreate: Folder,
  folderList: z.strictObject({ folders: z.array(Folder) }),
  assetModels: ModelList,
  assetModel: ModelDetail,
  assetPricing: AssetPricing,
  assetStart: AssetStart,
  assetStatus: Asset,
  avatarCreate: LookRef,
  avatarEdit: LookRef,
  avatarStatus: AvatarStatus,
  avatarList: z.array(AvatarListItem),
  avatarLook: LookDetail,
  avatarGet: Avatar,
  resourceAvatars: z.array(ResourceAvatar),
  voiceList: z.array(Voice),
  voiceGet: Voice,
  resourceVoices: z.array(ResourceVoice),
  scriptGenerate: Script,
  generationStart: GenerationStarted,
  generationStatus: GenerationStatus,
  videoDuplicate: VideoDuplicate,
  exportStart: JobStarted,
  exportStatus: ExportStatus,
} satisfies Record<OpName, z.ZodType>;

/** Every problem of `body` as the answer of `op`, strictly (empty when it conforms): `path problem`. */
export function strictProblems(op: OpName, body: unknown): ResponseProblem[] {
  return responseProblems(STRICT_RESPONSES[op], body).map((p) => ({
    path: p.path,
    problem: p.problem.replace(/^Unrecognized keys?: (.*)$/, "has a field the spec does not give: $1"),
  }));
}

/** Throws with every problem of `body`, named by field, when it is not the spec's answer to `op`. */
export function expectStrict(op: OpName, body: unknown): void {
  const problems = strictProblems(op, body);
  if (problems.length) {
    throw new Error(`${op} answered a body the spec's record refuses: ${problems.map((p) => `${p.path} ${p.problem}`).join("; ")}\nbody: ${JSON.stringify(body)}`);
  }
}
