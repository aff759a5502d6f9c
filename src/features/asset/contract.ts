import { z } from "zod";
import { op } from "../../contract/operation.js";
import { assetRoutes } from "./routes.js";
import { Timestamp } from "../../contract/common.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { IMAGE_EXTENSIONS, ImageReferenceInput, NonEmptyString, ReferenceInput, VIDEO_EXTENSIONS, WebhookUrl, wholeBetween } from "../../contract/request-fields.js";
import { present } from "../../contract/present.js";
import { ELEMENT_NAME_PATTERN, MAX_GENERATIONS, MIN_ELEMENT_IMAGES, MIN_GENERATIONS, SLOT_NEEDS, mentions } from "../../contract/asset-rules.js";

export const AssetType = z.enum(["image", "video", "audio"]);
export type AssetType = z.infer<typeof AssetType>;
export const AssetStatus = z.enum(["generating", "completed", "failed", "pending"]);
export type AssetStatus = z.infer<typeof AssetStatus>;

/** A reference item as the service returns it (requests are judged by ReferenceInput). */
export const ReferenceItem = z.looseObject({
  url: z.string().nullish(),
  asset_id: z.string().nullish(),
  avatar_id: z.string().nullish(),
});
export type ReferenceItem = z.infer<typeof ReferenceItem>;

export { SLOT_NAMES, type SlotName } from "../../contract/asset-rules.js";
export { IMAGE_EXTENSIONS, VIDEO_EXTENSIONS, MIN_ELEMENT_IMAGES, present };

const ELEMENT_NAME_RULE = "must be letters, digits, _ or - (it is written @name in the prompt)";

/** An element: a name written `@name` in the prompt, and at least 2 images of the same subject. */
export const Element = z.strictObject({
  // The spec reports every element problem as invalid_value on `.name` or `.images`, a missing name too.
  name: present(z.string().regex(new RegExp(ELEMENT_NAME_PATTERN), { error: ELEMENT_NAME_RULE }), "invalid_value", {
    absentToo: true,
    message: `is required: it ${ELEMENT_NAME_RULE}`,
  }),
  images: z.array(ImageReferenceInput).min(MIN_ELEMENT_IMAGES, { error: `needs at least ${MIN_ELEMENT_IMAGES} images of the same subject, frontal view first` }),
});
export type Element = z.infer<typeof Element>;

/**
 * Model settings: the spec names some (`generateAudio`, `camera_fixed`, `quality`) and leaves the set
 * to each model (its `settings`): any key passes here, the model judges it.
 */
const ModelSettingsInput = z.record(z.string(), z.union([z.boolean(), z.string(), z.number()]), {
  error: "must be an object of settings (true/false or a choice)",
});

/** The spec's slot order, element names (each once, each named `@name` in the prompt): judged once every field is well formed. */
function startRules(req: z.output<typeof AssetStartShape>, ctx: z.RefinementCtx): void {
  // `references` fill the empty slots in order (the model says which): then the model judges.
  if (!req.references?.length) {
    for (const { later, earlier, required } of SLOT_NEEDS) {
      if (req[later] === undefined || req[earlier] !== undefined) continue;
      if (required)
        ctx.addIssue({ code: "custom", path: [earlier], message: `${earlier} is required with ${later} (the slot group takes both)`, params: { code: "missing_field" } });
      else ctx.addIssue({ code: "custom", path: [later], message: `${later} requires ${earlier}` });
    }
  }
  const seen = new Set<string>();
  const prompt = req.prompt?.trim() ?? "";
  req.elements?.forEach((el, i) => {
    const name = el.name;
    if (seen.has(name.toLowerCase())) ctx.addIssue({ code: "custom", path: ["elements", i, "name"], message: `elements[${i}].name "${name}" is used twice` });
    else if (!mentions(prompt, name)) ctx.addIssue({ code: "custom", path: ["elements", i, "name"], message: `the prompt must reference elements[${i}] as @${name}` });
    seen.add(name.toLowerCase());
  });
}

/**
 * POST /asset/start as the spec gives it for every model, in the order the service judges it (type and
 * model, prompt, references and slots, elements, choices, delivery, placement). What depends on the
 * model (its type, plan, slots, ratios, resolutions, durations, prompt cap, settings) is judged with
 * the model at hand, after this (features/asset/emulator/validate.ts).
 */
const AssetStartShape = z.strictObject({
  type: present(z.enum(["image", "video"], { error: "must be image or video" }), "missing_field"),
  model: present(z.string(), "missing_field"),
  prompt: z.string().optional(),
  avatar_description: z.string().optional(),
  references: z.array(ReferenceInput).optional(),
  start_image: ReferenceInput.optional(),
  end_image: ReferenceInput.optional(),
  motion_video: ReferenceInput.optional(),
  source_video: ReferenceInput.optional(),
  first_frame: ReferenceInput.optional(),
  last_frame: ReferenceInput.optional(),
  elements: z.array(Element).optional(),
  generation_count: wholeBetween(MIN_GENERATIONS, MAX_GENERATIONS).optional(),
  aspect_ratio: z.string().optional(),
  resolution: z.string().optional(),
  duration: z.number().int({ error: "must be a whole number of seconds" }).optional(),
  model_settings: ModelSettingsInput.optional(),
  webhook_url: WebhookUrl.optional(),
  file_name: z.string().optional(),
  parent_media_id: NonEmptyString.optional(),
  folder_id: NonEmptyString.optional(),
});
export const AssetStartRequest = AssetStartShape.superRefine(startRules);
export type AssetStartRequest = z.input<typeof AssetStartRequest>;
/** A start request as the door passed it (the local handler's input). */
export type AssetStartInput = z.output<typeof AssetStartRequest>;

/**
 * Responses are read tolerantly (src/hosted/response-check.ts): what a command needs to go on is
 * required (here the ids of what was paid for); every other field may be absent or null.
 */
export const AssetStartResponse = z.looseObject({
  asset_ids: z.array(z.string()),
  status: z.literal("generating").nullish(),
  count: z.number().nullish(),
  cost_per_generation: z.number().nullish(),
  total_cost: z.number().nullish(),
});
export type AssetStartResponse = z.infer<typeof AssetStartResponse>;

/** Spec: model, prompt, aspect_ratio, resolution, duration, references; promptless models have no prompt. */
export const GenerationParams = z.looseObject({
  model: z.string().nullish(),
  prompt: z.string().nullish(),
  aspect_ratio: z.string().nullish(),
  resolution: z.string().nullish(),
  duration: z.number().nullish(),
  references: z.array(ReferenceItem).nullish(),
});
export type GenerationParams = z.infer<typeof GenerationParams>;

export const JobError = z.looseObject({ code: z.string().nullish(), message: z.string().nullish() });
export type JobError = z.infer<typeof JobError>;

/** The Asset record (asset status). A wait reads its status, and its url once completed: only the status is needed. */
export const Asset = z.looseObject({
  asset_id: z.string().nullish(),
  status: AssetStatus,
  type: AssetType.nullish(),
  url: z.string().nullish(),
  thumbnail_url: z.string().nullish(),
  width: z.number().nullish(),
  height: z.number().nullish(),
  duration_seconds: z.number().nullish(),
  cost: z.number().nullish(),
  created_at: Timestamp.nullish(),
  /** The spec promises it while `generating` only. */
  generation_params: GenerationParams.nullish(),
  error: JobError.nullish(),
});
export type Asset = z.infer<typeof Asset>;

export const AssetStatusRequest = z.strictObject({ assetId: NonEmptyString });
export type AssetStatusRequest = z.infer<typeof AssetStatusRequest>;

/**
 * POST /asset/pricing: the spec's fields, with the reference count under the service's name
 * (`image_count`, hosted-facts). The spec also takes "an object of model settings" whose name it
 * does not show: the body is open, so a key this contract does not name passes at the client's doors
 * (the service may know it; the CLI names it on stderr), and the local instance answers for its own
 * names (features/asset/pricing-local.ts). `aspect_ratio` is a start field the spec leaves out of
 * pricing: refused.
 */
export const AssetPricingRequest = z
  .looseObject({
    model: present(z.string(), "missing_field"),
    duration: z.number().int({ error: "must be a whole number of seconds" }).min(0, { error: "must not be negative" }).optional(),
    resolution: z.string().optional(),
    image_count: z.number().int({ error: "must be a whole number" }).min(0, { error: "must not be negative" }).optional(),
    generation_count: wholeBetween(MIN_GENERATIONS, MAX_GENERATIONS).optional(),
  })
  .superRefine((req, ctx) => {
    if (req.aspect_ratio !== undefined)
      ctx.addIssue({ code: "custom", path: ["aspect_ratio"], message: "aspect_ratio is not a field of pricing (the spec prices without it)" });
  });
export type AssetPricingRequest = z.input<typeof AssetPricingRequest>;
export type AssetPricingInput = z.output<typeof AssetPricingRequest>;

/** A price is what pricing is asked for: `total_cost` is needed, the rest may be absent. */
export const AssetPricingResponse = z.looseObject({
  model: z.string().nullish(),
  cost_per_generation: z.number().nullish(),
  total_cost: z.number(),
  currency: z.literal("credits").nullish(),
  generation_count: z.number().nullish(),
  normalized: z.record(z.string(), z.unknown()).nullish(),
});
export type AssetPricingResponse = z.infer<typeof AssetPricingResponse>;

export const ModelSetting = z.looseObject({
  key: z.string(),
  type: z.enum(["boolean", "select"]).nullish(),
  label: z.string().nullish(),
  // hosted-facts does not fix the types of a select's default and options: any JSON value passes
  // (an array default, a list of objects).
  default_value: z.unknown(),
  affects_cost: z.boolean().nullish(),
  options: z.array(z.unknown()).nullish(),
});
export type ModelSetting = z.infer<typeof ModelSetting>;

/**
 * Hosted facts: the catalog shows "—" for the aspect ratios of some video classes and the durations of
 * every image class, and does not document the resolution keys: all of those may be absent.
 */
export const ModelCapabilities = z.looseObject({
  max_images: z.number().nullish(),
  min_images: z.number().nullish(),
  supported_aspect_ratios: z.array(z.string()).nullish(),
  default_aspect_ratio: z.string().nullish(),
  supported_durations: z.array(z.number()).nullish(),
  default_duration: z.number().nullish(),
});
export type ModelCapabilities = z.infer<typeof ModelCapabilities>;

/** JSON-Schema shaped description of what a model accepts (`required` may be left out, as in JSON Schema). */
export const InputSchema = z.looseObject({
  type: z.literal("object").nullish(),
  required: z.array(z.string()).nullish(),
  properties: z.record(z.string(), z.unknown()),
});
export type InputSchema = z.infer<typeof InputSchema>;

/**
 * Summary item of GET /asset/models; `type`/`provider` are omitted when filtered on. Only the name is
 * needed: an entry without one is left out of a listing (with a warning), never the whole listing.
 */
export const ModelSummary = z.looseObject({
  name: z.string(),
  label: z.string().nullish(),
  type: z.enum(["image", "video"]).nullish(),
  provider: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  base_cost: z.number().nullish(),
  has_audio: z.boolean().nullish(),
  /** Absent (or null) for models without a resolution choice ("—" in the hosted catalog). */
  max_resolution: z.string().nullish(),
  required_plans: z.array(z.string()).nullish(),
  capabilities: ModelCapabilities.nullish(),
});
export type ModelSummary = z.infer<typeof ModelSummary>;

export const ModelDetail = ModelSummary.extend({
  type: z.enum(["image", "video"]).nullish(),
  provider: z.string().nullish(),
  /** Only some model classes have settings. */
  settings: z.array(ModelSetting).nullish(),
  /** Only some models cap the prompt. */
  max_prompt_length: z.number().nullish(),
  restricted_countries: z.array(z.string()).nullish(),
  input_schema: InputSchema.nullish(),
});
export type ModelDetail = z.infer<typeof ModelDetail>;

export const ModelListRequest = z.strictObject({
  type: z.enum(["image", "video"], { error: "must be image or video" }).optional(),
  provider: z.string().optional(),
  tag: z.string().optional(),
});
export type ModelListRequest = z.input<typeof ModelListRequest>;

export const ModelListResponse = z.looseObject({
  models: z.array(ModelSummary),
  count: z.number().nullish(),
  type: z.string().nullish(),
  provider: z.string().nullish(),
});
export type ModelListResponse = z.infer<typeof ModelListResponse>;

export const ModelGetRequest = z.strictObject({ name: NonEmptyString });
export type ModelGetRequest = z.infer<typeof ModelGetRequest>;

/** The spec's codes for a bad request, per operation: lower-case on every asset endpoint. */
const ASSET_CODES: RequestCodes = {
  missing: "missing_field",
  invalid: "invalid_value",
  // The spec reports any element problem on `elements[i].images` or `elements[i].name` (a non-object on its name).
  fieldOf: (field) => field.replace(/^(elements\[\d+\]\.images)\[.*$/, "$1").replace(/^(elements\[\d+\])$/, "$1.name"),
};
export const requestCodes = {
  assetModels: ASSET_CODES,
  assetModel: ASSET_CODES,
  assetPricing: ASSET_CODES,
  assetStart: ASSET_CODES,
  assetStatus: ASSET_CODES,
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  assetModels: op(assetRoutes.assetModels, { request: ModelListRequest, response: ModelListResponse }),
  assetModel: op(assetRoutes.assetModel, { request: ModelGetRequest, response: ModelDetail }),
  assetPricing: op(assetRoutes.assetPricing, { request: AssetPricingRequest, response: AssetPricingResponse }),
  assetStart: op(assetRoutes.assetStart, { request: AssetStartRequest, response: AssetStartResponse }),
  assetStatus: op(assetRoutes.assetStatus, { request: AssetStatusRequest, response: Asset }),
} as const;
