import { z } from "zod";
import { op } from "../../contract/operation.js";
import { Timestamp } from "../../contract/common.js";

export const AssetType = z.enum(["image", "video", "audio"]);
export type AssetType = z.infer<typeof AssetType>;
export const AssetStatus = z.enum(["generating", "completed", "failed", "pending"]);
export type AssetStatus = z.infer<typeof AssetStatus>;

/** A reference item: exactly one of `url`, `asset_id`, `avatar_id` (checked by the service). */
export const ReferenceItem = z.looseObject({
  url: z.string().optional(),
  asset_id: z.string().optional(),
  avatar_id: z.string().optional(),
});
export type ReferenceItem = z.infer<typeof ReferenceItem>;

/** Named input slots, in their fixed order. */
export const SLOT_NAMES = ["start_image", "end_image", "motion_video", "source_video", "first_frame", "last_frame"] as const;
export type SlotName = (typeof SLOT_NAMES)[number];

export const IMAGE_EXTENSIONS = [".jpg", ".jpeg", ".png", ".webp"] as const;
export const VIDEO_EXTENSIONS = [".mp4", ".mov", ".webm", ".m4v"] as const;

export const Element = z.looseObject({
  name: z.string().optional(),
  images: z.array(ReferenceItem).optional(),
});
export type Element = z.infer<typeof Element>;

export const AssetStartRequest = z.looseObject({
  type: z.string().optional(),
  model: z.string().optional(),
  prompt: z.string().optional(),
  references: z.array(ReferenceItem).optional(),
  elements: z.array(Element).optional(),
  generation_count: z.number().optional(),
  aspect_ratio: z.string().optional(),
  resolution: z.string().optional(),
  duration: z.number().optional(),
  model_settings: z.record(z.string(), z.unknown()).optional(),
  parent_media_id: z.string().optional(),
  folder_id: z.string().optional(),
  avatar_description: z.string().optional(),
  webhook_url: z.string().optional(),
  file_name: z.string().optional(),
  start_image: ReferenceItem.optional(),
  end_image: ReferenceItem.optional(),
  motion_video: ReferenceItem.optional(),
  source_video: ReferenceItem.optional(),
  first_frame: ReferenceItem.optional(),
  last_frame: ReferenceItem.optional(),
});
export type AssetStartRequest = z.infer<typeof AssetStartRequest>;

export const AssetStartResponse = z.looseObject({
  asset_ids: z.array(z.string()),
  status: z.literal("generating"),
  count: z.number(),
  cost_per_generation: z.number(),
  total_cost: z.number(),
});
export type AssetStartResponse = z.infer<typeof AssetStartResponse>;

/** Spec: model, prompt, aspect_ratio, resolution, duration, references; promptless models have no prompt. */
export const GenerationParams = z.looseObject({
  model: z.string(),
  prompt: z.string().optional(),
  aspect_ratio: z.string().optional(),
  resolution: z.string().optional(),
  duration: z.number().optional(),
  references: z.array(ReferenceItem).optional(),
});
export type GenerationParams = z.infer<typeof GenerationParams>;

export const JobError = z.looseObject({ code: z.string(), message: z.string() });
export type JobError = z.infer<typeof JobError>;

/** The Asset record (asset status). */
export const Asset = z.looseObject({
  asset_id: z.string(),
  status: AssetStatus,
  type: AssetType,
  url: z.string().optional(),
  thumbnail_url: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  duration_seconds: z.number().optional(),
  cost: z.number(),
  created_at: Timestamp,
  /** The spec promises it while `generating` only. */
  generation_params: GenerationParams.optional(),
  error: JobError.optional(),
});
export type Asset = z.infer<typeof Asset>;

export const AssetStatusRequest = z.looseObject({ assetId: z.string() });
export type AssetStatusRequest = z.infer<typeof AssetStatusRequest>;

export const AssetPricingRequest = z.looseObject({
  model: z.string().optional(),
  duration: z.number().optional(),
  resolution: z.string().optional(),
  aspect_ratio: z.string().optional(),
  /** Settings object (the hosted field name is not shown; the local instance uses the start name). */
  model_settings: z.record(z.string(), z.unknown()).optional(),
  /** Number of reference images (name not shown in the spec; local choice). */
  reference_count: z.number().optional(),
  /** Accepted too, so the same body prices and starts: its length counts as `reference_count`. */
  references: z.array(ReferenceItem).optional(),
  generation_count: z.number().optional(),
});
export type AssetPricingRequest = z.infer<typeof AssetPricingRequest>;

export const AssetPricingResponse = z.looseObject({
  model: z.string(),
  cost_per_generation: z.number(),
  total_cost: z.number(),
  currency: z.literal("credits"),
  generation_count: z.number(),
  normalized: z.record(z.string(), z.unknown()).optional(),
});
export type AssetPricingResponse = z.infer<typeof AssetPricingResponse>;

export const ModelSetting = z.looseObject({
  key: z.string(),
  type: z.enum(["boolean", "select"]),
  label: z.string(),
  default_value: z.union([z.boolean(), z.string()]),
  affects_cost: z.boolean(),
  options: z.array(z.string()).optional(),
});
export type ModelSetting = z.infer<typeof ModelSetting>;

/**
 * Hosted facts: the catalog shows "—" for the aspect ratios of some video classes and the durations of
 * every image class, and does not document the resolution keys: all of those may be absent.
 */
export const ModelCapabilities = z.looseObject({
  max_images: z.number(),
  min_images: z.number(),
  supported_aspect_ratios: z.array(z.string()).optional(),
  default_aspect_ratio: z.string().nullable().optional(),
  supported_durations: z.array(z.number()).optional(),
  default_duration: z.number().nullable().optional(),
  supported_resolutions: z.array(z.string()).optional(),
  default_resolution: z.string().nullable().optional(),
});
export type ModelCapabilities = z.infer<typeof ModelCapabilities>;

/** JSON-Schema shaped description of what a model accepts (`required` may be left out, as in JSON Schema). */
export const InputSchema = z.looseObject({
  type: z.literal("object"),
  required: z.array(z.string()).optional(),
  properties: z.record(z.string(), z.unknown()),
});
export type InputSchema = z.infer<typeof InputSchema>;

/** Summary item of GET /asset/models; `type`/`provider` are omitted when filtered on. */
export const ModelSummary = z.looseObject({
  name: z.string(),
  label: z.string(),
  type: z.enum(["image", "video"]).optional(),
  provider: z.string().optional(),
  tags: z.array(z.string()),
  base_cost: z.number(),
  has_audio: z.boolean(),
  /** Absent or null for models without a resolution choice ("—" in the hosted catalog). */
  max_resolution: z.string().nullable().optional(),
  required_plans: z.array(z.string()),
  capabilities: ModelCapabilities,
});
export type ModelSummary = z.infer<typeof ModelSummary>;

export const ModelDetail = ModelSummary.extend({
  type: z.enum(["image", "video"]),
  provider: z.string(),
  /** Only some model classes have settings. */
  settings: z.array(ModelSetting).optional(),
  /** Only some models cap the prompt. */
  max_prompt_length: z.number().nullable().optional(),
  restricted_countries: z.array(z.string()),
  input_schema: InputSchema,
});
export type ModelDetail = z.infer<typeof ModelDetail>;

export const ModelListRequest = z.looseObject({
  type: z.string().optional(),
  provider: z.string().optional(),
  tag: z.string().optional(),
});
export type ModelListRequest = z.infer<typeof ModelListRequest>;

export const ModelListResponse = z.looseObject({
  models: z.array(ModelSummary),
  count: z.number(),
  type: z.string().optional(),
  provider: z.string().optional(),
});
export type ModelListResponse = z.infer<typeof ModelListResponse>;

export const ModelGetRequest = z.looseObject({ name: z.string() });
export type ModelGetRequest = z.infer<typeof ModelGetRequest>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  assetModels: op({ method: "GET", path: "/asset/models", status: 200, request: ModelListRequest, response: ModelListResponse, summary: "List models" }),
  assetModel: op({ method: "GET", path: "/asset/models/{name}", status: 200, request: ModelGetRequest, response: ModelDetail, aliases: ["/models/{name}"], summary: "One model with its input_schema" }),
  assetPricing: op({ method: "POST", path: "/asset/pricing", status: 200, request: AssetPricingRequest, response: AssetPricingResponse, summary: "Dry-run price of an asset generation" }),
  assetStart: op({ method: "POST", path: "/asset/start", status: 201, request: AssetStartRequest, response: AssetStartResponse, summary: "Start image or video generation" }),
  assetStatus: op({ method: "GET", path: "/asset/status/{assetId}", status: 200, request: AssetStatusRequest, response: Asset, summary: "Status of one asset" }),
} as const;
