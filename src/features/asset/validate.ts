/**
 * Every rule of POST /asset/start, in the service's order: required fields → type/model → plan →
 * prompt → references/slots/elements → enums → folder/parent. (Credits come last, in the
 * transaction that debits.) Pure apart from the lookups it is given, so it is tested by tables.
 */
import { SLOT_NAMES, type SlotName } from "./contract.js";
import { PROMPT_MAX } from "../../contract/limits.js";
import { meetsRequiredPlans, type Plan } from "../../contract/plans.js";
import { ApiError } from "../../engine/errors.js";
import { MAX_GENERATIONS, MIN_GENERATIONS, type PriceParams } from "./catalog/pricing.js";
import { ELEMENT_NAME_PATTERN, MIN_ELEMENT_IMAGES } from "./catalog/model-schema.js";
import { audioOn, findModel, type ModelDef, type SlotDef } from "./catalog/models.js";
import { assetBaseName } from "./names.js";
import { resolveRef, type ResolvedRef, type StartLookups } from "./refs.js";
import { withArticle } from "../../engine/words.js";

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

const given = (v: unknown) => v !== undefined && v !== null;

function optionalString(v: unknown, field: string): string | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== "string") throw invalid(field, `${field} must be a string`);
  return v;
}

function choose(v: unknown, field: string, options: readonly string[], dflt: string | null): string | null {
  if (!given(v)) return options.length > 0 ? dflt : null;
  if (options.length === 0) throw invalid(field, `this model takes no ${field}`);
  if (typeof v !== "string" || !options.includes(v)) {
    throw invalid(field, `${field} must be one of ${options.join(", ")}`);
  }
  return v;
}

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * POST /asset/start's rules, one step after the other in the service's order; each step is a
 * function named for it. The stateless rules are the contract's too (asset/contract.ts); here they
 * are judged again with the model, the plan and the space's library at hand.
 */
export function validateStart(input: Record<string, unknown>, plan: Plan, lookups: StartLookups): ValidStart {
  const model = requireTypeAndModel(input, lookups);
  checkPlanAllowsModel(model, plan);
  const { prompt, avatarDescription } = checkPrompt(model, input);
  const { references, slots } = model.slots ? resolveSlots(model, model.slots, input, lookups) : { references: resolveReferences(model, input, lookups), slots: {} };
  const elements = resolveElements(model, input.elements, prompt, lookups);
  const choices = resolveChoices(model, input);
  const delivery = resolveDelivery(input);
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
    webhookUrl: delivery.webhookUrl,
    fileName: assetBaseName(delivery.fileName, prompt, model.name),
    sourceSeconds: model.pricing.kind === "per_source_second" ? (source?.durationSeconds ?? null) : null,
  };
}

/** 1–2. `type` and `model` are required; the model exists and is of that type. */
function requireTypeAndModel(input: Record<string, unknown>, lookups: StartLookups): ModelDef {
  if (!given(input.type) || input.type === "") throw missing("type");
  if (!given(input.model) || input.model === "") throw missing("model");
  if (input.type !== "image" && input.type !== "video") throw invalid("type", "type must be image or video");
  if (typeof input.model !== "string") throw invalid("model", "model must be a string");
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
function checkPrompt(model: ModelDef, input: Record<string, unknown>): { prompt: string; avatarDescription: string | undefined } {
  const prompt = optionalString(input.prompt, "prompt")?.trim() ?? "";
  if (!prompt && !model.promptless) throw missing("prompt");
  const promptCap = model.max_prompt_length ?? PROMPT_MAX;
  if (prompt.length > promptCap) {
    throw invalid("prompt", `prompt is longer than ${promptCap} characters for ${model.name}`);
  }
  const avatarDescription = optionalString(input.avatar_description, "avatar_description");
  if (avatarDescription !== undefined && !model.avatarDescription) {
    throw invalid("avatar_description", `${model.name} does not take avatar_description (UGC models only)`);
  }
  return { prompt, avatarDescription };
}

type Choices = Pick<ValidStart, "generationCount" | "aspectRatio" | "resolution" | "duration" | "settings">;

/** 6. Count, the model's ratios, resolutions and durations, and its settings. */
function resolveChoices(model: ModelDef, input: Record<string, unknown>): Choices {
  let generationCount = 1;
  if (given(input.generation_count)) {
    const n = input.generation_count;
    if (typeof n !== "number" || !Number.isInteger(n) || n < MIN_GENERATIONS || n > MAX_GENERATIONS) {
      throw invalid("generation_count", `generation_count must be an integer from ${MIN_GENERATIONS} to ${MAX_GENERATIONS}`);
    }
    generationCount = n;
  }
  const aspectRatio = choose(input.aspect_ratio, "aspect_ratio", model.aspect_ratios, model.default_aspect_ratio);
  const resolution = choose(input.resolution, "resolution", model.resolutions, model.default_resolution);
  let duration = model.default_duration;
  if (given(input.duration)) {
    if (model.durations.length === 0) throw invalid("duration", `${model.name} takes no duration`);
    if (typeof input.duration !== "number" || !model.durations.includes(input.duration)) {
      throw invalid("duration", `duration must be one of ${model.durations.join(", ")} seconds`);
    }
    duration = input.duration;
  }
  return { generationCount, aspectRatio, resolution, duration, settings: resolveSettings(model, input.model_settings) };
}

/** 7a. Where the result is announced and what its file is called. */
function resolveDelivery(input: Record<string, unknown>): { webhookUrl: string | null; fileName: string | undefined } {
  const webhookUrl = optionalString(input.webhook_url, "webhook_url");
  if (webhookUrl !== undefined && !isHttpUrl(webhookUrl)) throw invalid("webhook_url", "webhook_url must be an http(s) URL");
  return { webhookUrl: webhookUrl ?? null, fileName: optionalString(input.file_name, "file_name") };
}

/** 7b. Lineage and folder: a derived asset lives with its parent, and `folder_id` is then ignored. */
function resolvePlacement(input: Record<string, unknown>, lookups: StartLookups): { parentMediaId: string | null; folderId: string | null } {
  const parentMediaId = optionalString(input.parent_media_id, "parent_media_id");
  if (parentMediaId !== undefined) {
    const parent = lookups.asset(parentMediaId);
    if (!parent) throw invalid("parent_media_id", "parent_media_id: asset not found in this space");
    return { parentMediaId, folderId: parent.folder_id };
  }
  const f = optionalString(input.folder_id, "folder_id");
  if (f === undefined) return { parentMediaId: null, folderId: null };
  const folder = lookups.folder(f);
  if (!folder) throw invalid("folder_id", "folder_id: folder not found");
  if (folder.type !== "assets") throw invalid("folder_id", "folder_id must be an assets folder");
  return { parentMediaId: null, folderId: f };
}

function resolveReferences(model: ModelDef, input: Record<string, unknown>, lookups: StartLookups): ResolvedRef[] {
  const rules = model.references!;
  for (const slot of SLOT_NAMES) {
    if (given(input[slot])) throw invalid(slot, `${model.name} takes no ${slot}; use references`);
  }
  const raw = input.references;
  if (!given(raw) || (Array.isArray(raw) && raw.length === 0)) {
    if (rules.min > 0) throw missing("references", `references is required: ${model.name} takes ${rangeText(rules.min, rules.max)} reference(s)`);
    return [];
  }
  if (!Array.isArray(raw)) throw invalid("references", "references must be an array");
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
  input: Record<string, unknown>,
  lookups: StartLookups,
): { references: ResolvedRef[]; slots: Partial<Record<SlotName, ResolvedRef>> } {
  const names = new Set(slotDefs.map((s) => s.name));
  for (const slot of SLOT_NAMES) {
    if (given(input[slot]) && !names.has(slot)) {
      throw invalid(slot, `${model.name} takes no ${slot}; its slots are ${slotDefs.map((s) => s.name).join(", ")}`);
    }
  }
  const slots: Partial<Record<SlotName, ResolvedRef>> = {};
  for (const def of slotDefs) {
    if (given(input[def.name])) slots[def.name] = resolveRef(input[def.name], def.name, { kinds: [def.kind], assetOnly: def.assetOnly }, lookups);
  }

  const raw = input.references;
  if (given(raw)) {
    if (!Array.isArray(raw)) throw invalid("references", "references must be an array");
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

const NAME_RE = new RegExp(ELEMENT_NAME_PATTERN);

function resolveElements(model: ModelDef, raw: unknown, prompt: string, lookups: StartLookups): ResolvedElement[] {
  if (!given(raw)) return [];
  if (!model.elements) throw invalid("elements", `${model.name} has no element capability`);
  if (!Array.isArray(raw)) throw invalid("elements", "elements must be an array");
  const seen = new Set<string>();
  return raw.map((el, i) => {
    const f = `elements[${i}]`;
    // The spec reports element problems on `.name` or `.images` only; a non-element has no name.
    if (!el || typeof el !== "object" || Array.isArray(el)) throw invalid(`${f}.name`, `${f} must be an object with name and images`);
    const { name, images } = el as Record<string, unknown>;
    if (typeof name !== "string" || !NAME_RE.test(name)) {
      throw invalid(`${f}.name`, `${f}.name must be letters, digits, _ or - (it is written @name in the prompt)`);
    }
    if (seen.has(name.toLowerCase())) throw invalid(`${f}.name`, `${f}.name "${name}" is used twice`);
    seen.add(name.toLowerCase());
    if (!Array.isArray(images) || images.length < MIN_ELEMENT_IMAGES) {
      throw invalid(`${f}.images`, `${f}.images needs at least ${MIN_ELEMENT_IMAGES} images of the same subject, frontal view first`);
    }
    const resolved = images.map((img, j) => {
      try {
        return resolveRef(img, `${f}.images[${j}]`, { kinds: ["image"] }, lookups);
      } catch (e) {
        // The spec reports every element image problem on the images field.
        if (e instanceof ApiError) throw invalid(`${f}.images`, e.message);
        throw e;
      }
    });
    // Names are told apart without regard to case (see the duplicate check), so mentions are too.
    const mention = new RegExp(`@${name.replace(/[-]/g, "\\-")}(?![A-Za-z0-9_-])`, "i");
    if (!mention.test(prompt)) throw invalid(`${f}.name`, `the prompt must reference ${f} as @${name}`);
    return { name, images: resolved };
  });
}

function resolveSettings(model: ModelDef, raw: unknown): Record<string, boolean | string> {
  const out: Record<string, boolean | string> = {};
  for (const s of model.settings) out[s.key] = s.default_value;
  if (!given(raw)) return out;
  if (typeof raw !== "object" || Array.isArray(raw)) throw invalid("model_settings", "model_settings must be an object");
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
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
