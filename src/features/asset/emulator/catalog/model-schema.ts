/**
 * The public records of the catalog (GET /asset/models and /asset/models/{name}), built from the
 * same definitions the start validator reads, so `input_schema` cannot drift from what is accepted.
 */
import type { ModelDetail, ModelSummary } from "../../contract.js";
import { MAX_GENERATIONS, MIN_GENERATIONS, baseCost } from "./pricing.js";
import { imageBounds, type ModelDef, type SlotDef } from "./models.js";

type JsonSchema = Record<string, unknown>;

import { ELEMENT_NAME_PATTERN, MIN_ELEMENT_IMAGES } from "../../../../contract/asset-rules.js";

export { ELEMENT_NAME_PATTERN, MIN_ELEMENT_IMAGES };

/** One reference item: exactly one of `url`, `asset_id`, `avatar_id`. */
export function referenceItemSchema(opts: { assetOnly?: boolean; allowAvatar?: boolean } = {}): JsonSchema {
  const properties: JsonSchema = {};
  const oneOf: JsonSchema[] = [];
  if (!opts.assetOnly) {
    properties.url = { type: "string", format: "uri" };
    oneOf.push({ required: ["url"] });
  }
  properties.asset_id = { type: "string" };
  oneOf.push({ required: ["asset_id"] });
  if (!opts.assetOnly && opts.allowAvatar !== false) {
    properties.avatar_id = { type: "string" };
    oneOf.push({ required: ["avatar_id"] });
  }
  return { type: "object", properties, additionalProperties: false, ...(oneOf.length > 1 ? { oneOf } : { required: ["asset_id"] }) };
}

function slotSchema(slot: SlotDef): JsonSchema {
  return {
    ...referenceItemSchema({ assetOnly: slot.assetOnly, allowAvatar: slot.kind === "image" }),
    description: `${slot.kind} (${slot.required ? "required" : "optional"})`,
  };
}

export function inputSchema(model: ModelDef): ModelDetail["input_schema"] {
  const properties: JsonSchema = {};
  const required: string[] = [];

  const prompt: JsonSchema = { type: "string" };
  if (model.max_prompt_length !== null) prompt.maxLength = model.max_prompt_length;
  properties.prompt = prompt;
  if (!model.promptless) required.push("prompt");

  if (model.references) {
    properties.references = {
      type: "array",
      minItems: model.references.min,
      maxItems: model.references.max,
      items: referenceItemSchema(),
    };
    if (model.references.min > 0) required.push("references");
  }
  for (const slot of model.slots ?? []) {
    properties[slot.name] = slotSchema(slot);
    if (slot.required) required.push(slot.name);
  }
  if (model.elements) {
    properties.elements = {
      type: "array",
      items: {
        type: "object",
        required: ["name", "images"],
        properties: {
          name: { type: "string", pattern: ELEMENT_NAME_PATTERN },
          images: { type: "array", minItems: MIN_ELEMENT_IMAGES, items: referenceItemSchema() },
        },
      },
    };
  }
  if (model.avatarDescription) properties.avatar_description = { type: "string" };
  if (model.aspect_ratios.length > 0) {
    properties.aspect_ratio = { type: "string", enum: [...model.aspect_ratios], default: model.default_aspect_ratio };
  }
  if (model.resolutions.length > 0) {
    properties.resolution = { type: "string", enum: [...model.resolutions], default: model.default_resolution };
  }
  if (model.durations.length > 0) {
    properties.duration = { type: "integer", enum: [...model.durations], default: model.default_duration };
  }
  properties.generation_count = { type: "integer", minimum: MIN_GENERATIONS, maximum: MAX_GENERATIONS, default: 1 };
  if (model.settings.length > 0) {
    properties.model_settings = {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(
        model.settings.map((s) => [
          s.key,
          s.type === "boolean"
            ? { type: "boolean", default: s.default_value, title: s.label }
            : { type: "string", enum: [...s.options], default: s.default_value, title: s.label },
        ]),
      ),
    };
  }
  return { type: "object", required, properties };
}

/**
 * The spec says "or null" only where null is allowed: a model without a resolution, ratio or
 * duration choice leaves `max_resolution`, `default_aspect_ratio` and `default_duration` out.
 */
export function modelSummary(model: ModelDef): ModelSummary {
  const bounds = imageBounds(model);
  const maxResolution = model.resolutions.at(-1);
  return {
    name: model.name,
    label: model.label,
    type: model.type,
    provider: model.provider,
    tags: [...model.tags],
    base_cost: baseCost(model),
    has_audio: model.has_audio,
    ...(maxResolution !== undefined ? { max_resolution: maxResolution } : {}),
    required_plans: [...model.required_plans],
    capabilities: {
      max_images: bounds.max,
      min_images: bounds.min,
      supported_aspect_ratios: [...model.aspect_ratios],
      ...(model.default_aspect_ratio !== null ? { default_aspect_ratio: model.default_aspect_ratio } : {}),
      supported_durations: [...model.durations],
      ...(model.default_duration !== null ? { default_duration: model.default_duration } : {}),
      // No resolution keys: the service has them here but its docs do not name them (hosted-facts);
      // the choices are in the detail's input_schema (`resolution` enum and default) and max_resolution.
    },
  };
}

export function modelDetail(model: ModelDef): ModelDetail {
  const summary = modelSummary(model);
  return {
    ...summary,
    type: model.type,
    provider: model.provider,
    settings: model.settings.map((s) =>
      s.type === "select"
        ? { key: s.key, type: s.type, label: s.label, default_value: s.default_value, affects_cost: s.affects_cost, options: [...s.options] }
        : { key: s.key, type: s.type, label: s.label, default_value: s.default_value, affects_cost: s.affects_cost },
    ),
    max_prompt_length: model.max_prompt_length,
    restricted_countries: [...model.restricted_countries],
    input_schema: inputSchema(model),
  };
}
