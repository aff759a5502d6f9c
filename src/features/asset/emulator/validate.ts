/**
 * The rules of POST /asset/start that need the model or the space, in the service's order: model and
 * type → plan → prompt → references/slots/elements → the model's choices and settings → folder/parent.
 * Every rule of the request's shape (types, the slot order, element names, counts, URLs) is the
 * contract's (./contract.ts), judged once at the door: this takes a request that passed it. (Credits
 * come last, in the transaction that debits.) Pure apart from the lookups it is given, so it is
 * tested by tables.
 */
import type { AssetStartInput, SlotName } from "../contract.js";
import { SLOT_NAMES } from "../../../contract/asset-rules.js";
import { PROMPT_MAX } from "../../../contract/limits.js";
import { meetsRequiredPlans, type Plan } from "../../../contract/plans.js";
import { ApiError } from "../../../engine/errors.js";
import type { PriceParams } from "./catalog/pricing.js";
import { audioOn, findModel, type ModelDef, type SlotDef } from "./catalog/models.js";
import { assetBaseName } from "./names.js";
import { resolveRef, type ResolvedRef, type StartLookups } from "./public/refs.js";
import { withArticle } from "../../../engine/words.js";

/** A start request the contract accepted (the door judged its shape). */
export type StartInput = AssetStartInput;
type RefInput = NonNullable<StartInput["references"]>[number];

export interface ResolvedElement {
  name: string;
  images: ResolvedRef[];
}

export interface ValidStart {
  model: ModelDef;
  type: "image" | "video";
  prompt: string;
  /** Free-form references in submission order (non-slot models). */
  references: ResolvedRef[];
  /** Filled slots (slot models), explicit or mapped from `references`. */
  slots: Partial<Record<SlotName, ResolvedRef>>;
  elements: ResolvedElement[];
  generationCount: number;
  aspectRatio: string | null;
  resolution: string | null;
  duration: number | null;
  settings: Record<string, boolean | string>;
  audio: boolean;
  avatarDescription: string | null;
  parentMediaId: string | null;
  folderId: string | null;
  webhookUrl: string | null;
  fileName: string;
  /** Seconds of the source video when the price depends on it and it is already known. */
  sourceSeconds: number | null;
}

const missing = (field: string, message = `${field} is required`) => ApiError.of("missing_field", message, { field });
const invalid = (field: string, message: string) => ApiError.of("invalid_value", message, { field });

function choose(v: string | undefined, field: string, options: readonly string[], dflt: string | null): string | null {
  if (v === undefined) return options.length > 0 ? dflt : null;
  if (options.length === 0) throw invalid(field, `this model takes no ${field}`);
  if (!options.includes(v)) throw invalid(field, `${field} must be one of ${options.join(", ")}`);
  return v;
}

/**
 * POST /asset/start's rules that need the model, the plan or the space's library, one step after the
 * other in the service's order; each step is a function named for it.
 */
export function validateStart(input: StartInput, plan: Plan, lookups: StartLookups): ValidStart {
  const model = requireTypeAndModel(input, lookups);
  checkPlanAllowsModel(model, plan);
  const { prompt, avatarDescription } = checkPrompt(model, input);
  const { references, slots } = model.slots ? resolveSlots(model, model.slots, input, lookups) : { references: resolveReferences(model, input, lookups), slots: {} };
  const elements = resolveElements(model, input.elements, lookups);
  const choices = resolveChoices(model, input);
  const placement = resolvePlacement(input, lookups);
  const source = slots.source_video;
  return {
    model,
    type: model.type,
    prompt,
    references,
    slots,
    elements,
    ...choices,
    audio: audioOn(model, choices.settings),
    avatarDescription: avatarDescription ?? null,
    ...placement,
    webhookUrl: input.webhook_url?.trim() ?? null,
    fileName: assetBaseName(input.file_name, prompt, model.name),
    sourceSeconds: model.pricing.kind === "per_source_second" ? (source?.durationSeconds ?? null) : null,
  };
}

/** 1–2. The model exists and is of the type asked for. */
function requireTypeAndModel(input: StartInput, lookups: StartLookups): ModelDef {
  const model = (lookups.model ?? findModel)(input.model);
  if (!model) throw invalid("model", `Unknown model: ${input.model}`);
  if (model.type !== input.type) {
    throw invalid("type", `type must match the model: ${model.name} is ${withArticle(model.type)} model`);
  }
  return model;
}

/** 3. The space's plan opens the model (403 `not_eligible`). */
function checkPlanAllowsModel(model: ModelDef, plan: Plan): void {
  if (!meetsRequiredPlans(plan, model.required_plans)) {
    throw ApiError.of("not_eligible", `Model ${model.name} requires plan ${model.required_plans.join(" or ")}`, {
      status: 403,
      field: "model",
    });
  }
}

/** 4. The prompt (required unless promptless, within the model's cap) and the UGC description. */
function checkPrompt(model: ModelDef, input: StartInput): { prompt: string; avatarDescription: string | undefined } {
  const prompt = input.prompt?.trim() ?? "";
  if (!prompt && !model.promptless) throw missing("prompt");
  const promptCap = model.max_prompt_length ?? PROMPT_MAX;
  if (prompt.length > promptCap) {
    throw invalid("prompt", `prompt is longer than ${promptCap} characters for ${model.name}`);
  }
  const avatarDescription = input.avatar_description;
  if (avatarDescription !== undefined && !model.avatarDescription) {
    throw invalid("avatar_description", `${model.name} does not take avatar_description (UGC models only)`);
  }
  return { prompt, avatarDescription };
}

type Choices = Pick<ValidStart, "generationCount" | "aspectRatio" | "resolution" | "duration" | "settings">;

/** 6. The model's ratios, resolutions and durations, and its settings. */
function resolveChoices(model: ModelDef, input: StartInput): Choices {
  const generationCount = input.generation_count ?? 1;
  const aspectRatio = choose(input.aspect_ratio, "aspect_ratio", model.aspect_ratios, model.default_aspect_ratio);
  const resolution = choose(input.resolution, "resolution", model.resolutions, model.default_resolution);
  let duration = model.default_duration;
  if (input.duration !== undefined) {
    if (model.durations.length === 0) throw invalid("duration", `${model.name} takes no duration`);
    if (!model.durations.includes(input.duration)) {
      throw invalid("duration", `duration must be one of ${model.durations.join(", ")} seconds`);
    }
    duration = input.duration;
  }
  return { generationCount, aspectRatio, resolution, duration, settings: resolveSettings(model, input.model_settings) };
}

/** 7. Lineage and folder: a derived asset lives with its parent, and `folder_id` is then ignored. */
function resolvePlacement(input: StartInput, lookups: StartLookups): { parentMediaId: string | null; folderId: string | null } {
  const parentMediaId = input.parent_media_id;
  if (parentMediaId !== undefined) {
    const parent = lookups.asset(parentMediaId);
    if (!parent) throw invalid("parent_media_id", "parent_media_id: asset not found in this space");
    return { parentMediaId, folderId: parent.folder_id };
  }
  const f = input.folder_id;
  if (f === undefined) return { parentMediaId: null, folderId: null };
  const folder = lookups.folder(f);
  if (!folder) throw invalid("folder_id", "folder_id: folder not found");
  if (folder.type !== "assets") throw invalid("folder_id", "folder_id must be an assets folder");
  return { parentMediaId: null, folderId: f };
}

function resolveReferences(model: ModelDef, input: StartInput, lookups: StartLookups): ResolvedRef[] {
  const rules = model.references!;
  for (const slot of SLOT_NAMES) {
    if (input[slot] !== undefined) throw invalid(slot, `${model.name} takes no ${slot}; use references`);
  }
  const raw = input.references;
  if (!raw?.length) {
    if (rules.min > 0) throw missing("references", `references is required: ${model.name} takes ${rangeText(rules.min, rules.max)} reference(s)`);
    return [];
  }
  if (raw.length > rules.max || raw.length < rules.min) {
    throw invalid("references", `${model.name} takes ${rangeText(rules.min, rules.max)} reference(s), got ${raw.length}`);
  }
  return raw.map((r, i) => resolveRef(r, `references[${i}]`, { kinds: rules.kinds }, lookups));
}

function rangeText(min: number, max: number): string {
  return min === max ? String(min) : `${min} to ${max}`;
}

/**
 * Slot models: explicit slots first, then `references` fill the empty slots in slot order; a later
 * slot cannot be given while an earlier one is empty; required slots must end up filled.
 */
function resolveSlots(
  model: ModelDef,
  slotDefs: SlotDef[],
  input: StartInput,
  lookups: StartLookups,
): { references: ResolvedRef[]; slots: Partial<Record<SlotName, ResolvedRef>> } {
  const names = new Set(slotDefs.map((s) => s.name));
  for (const slot of SLOT_NAMES) {
    if (input[slot] !== undefined && !names.has(slot)) {
      throw invalid(slot, `${model.name} takes no ${slot}; its slots are ${slotDefs.map((s) => s.name).join(", ")}`);
    }
  }
  const slots: Partial<Record<SlotName, ResolvedRef>> = {};
  for (const def of slotDefs) {
    const given = input[def.name];
    if (given !== undefined) slots[def.name] = resolveRef(given, def.name, { kinds: [def.kind], assetOnly: def.assetOnly }, lookups);
  }

  const raw: RefInput[] | undefined = input.references;
  if (raw !== undefined) {
    const empty = slotDefs.filter((d) => !slots[d.name]);
    if (raw.length > empty.length) {
      throw invalid("references", `${model.name} has ${empty.length} free slot(s) for references, got ${raw.length}`);
    }
    raw.forEach((r, i) => {
      const def = empty[i]!;
      slots[def.name] = resolveRef(r, `references[${i}]`, { kinds: [def.kind], assetOnly: def.assetOnly }, lookups);
    });
  }

  for (const def of slotDefs) {
    if (def.required && !slots[def.name]) throw missing(def.name, `${def.name} is required for ${model.name}`);
  }
  for (let i = 0; i < slotDefs.length; i++) {
    const def = slotDefs[i]!;
    if (slots[def.name]) {
      const gap = slotDefs.slice(0, i).find((d) => !slots[d.name]);
      if (gap) throw invalid(def.name, `${def.name} requires ${gap.name}`);
    }
  }
  const filled = slotDefs.filter((d) => slots[d.name]);
  return {
    references: filled.map((d) => slots[d.name]!),
    slots: Object.fromEntries(filled.map((d) => [d.name, slots[d.name]!])),
  };
}

/** Elements need the model's capability; their images are resolved like references (the contract judged names and counts). */
function resolveElements(model: ModelDef, raw: StartInput["elements"], lookups: StartLookups): ResolvedElement[] {
  if (raw === undefined) return [];
  if (!model.elements) throw invalid("elements", `${model.name} has no element capability`);
  return raw.map((el, i) => {
    const f = `elements[${i}]`;
    const images = el.images.map((img, j) => {
      try {
        return resolveRef(img, `${f}.images[${j}]`, { kinds: ["image"] }, lookups);
      } catch (e) {
        // The spec reports every element image problem on the images field.
        if (e instanceof ApiError) throw invalid(`${f}.images`, e.message);
        throw e;
      }
    });
    return { name: el.name, images };
  });
}

/** The model's settings: each key one of its own, each value of the setting's kind. */
function resolveSettings(model: ModelDef, raw: StartInput["model_settings"]): Record<string, boolean | string> {
  const out: Record<string, boolean | string> = {};
  for (const s of model.settings) out[s.key] = s.default_value;
  if (raw === undefined) return out;
  for (const [key, value] of Object.entries(raw)) {
    const field = `model_settings.${key}`;
    const def = model.settings.find((s) => s.key === key);
    if (!def) {
      const known = model.settings.map((s) => s.key);
      throw invalid(field, `${model.name} has no setting ${key}${known.length ? ` (settings: ${known.join(", ")})` : ""}`);
    }
    if (def.type === "boolean") {
      if (typeof value !== "boolean") throw invalid(field, `${field} must be true or false`);
      out[key] = value;
    } else {
      if (typeof value !== "string" || !def.options.includes(value)) {
        throw invalid(field, `${field} must be one of ${def.options.join(", ")}`);
      }
      out[key] = value;
    }
  }
  return out;
}

/** The pricing inputs of a validated start: what `/asset/pricing` would be given for it. */
export function priceParamsOf(v: ValidStart): PriceParams {
  return {
    duration: v.duration,
    resolution: v.resolution,
    settings: v.settings,
    referenceCount: v.references.length,
    sourceSeconds: v.sourceSeconds,
  };
}
