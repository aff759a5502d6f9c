/**
 * The one pricing module of asset generation: `/asset/pricing` and `/asset/start` both end in
 * `priceMilli`, so a dry-run price always equals what a start debits. Amounts are millicredits.
 */
import type { AssetPricingResponse } from "../../contract.js";
import { fromMilli } from "../../../../contract/credits.js";
import { ApiError } from "../../../../engine/errors.js";
import { DEFAULT_RESOLUTION, MAX_FOLLOW_SECONDS } from "./frames.js";
import { audioOn, defaultSettings, findModel, imageBounds, type ModelDef } from "./models.js";

import { MAX_GENERATIONS, MIN_GENERATIONS } from "../../../../contract/asset-rules.js";
export { MAX_GENERATIONS, MIN_GENERATIONS };

/** Everything a price can depend on, already resolved to supported values. */
export interface PriceParams {
  /** Output seconds (models with a duration set). */
  duration: number | null;
  resolution: string | null;
  /** Settings with defaults filled in. */
  settings: Record<string, unknown>;
  referenceCount: number;
  /** Seconds of the source video (priced-by-source models). */
  sourceSeconds: number | null;
}

export function defaultPriceParams(model: ModelDef): PriceParams {
  return {
    duration: model.default_duration,
    resolution: model.default_resolution,
    settings: defaultSettings(model),
    referenceCount: imageBounds(model).min,
    sourceSeconds: model.pricing.kind === "per_source_second" ? model.pricing.defaultSourceSeconds : null,
  };
}

export function priceMilli(model: ModelDef, p: PriceParams): number {
  const pricing = model.pricing;
  const resolution = p.resolution ?? DEFAULT_RESOLUTION[model.type];
  switch (pricing.kind) {
    case "flat":
      return pricing.milli;
    case "per_second": {
      const rate = pricing.byResolution[resolution];
      if (rate === undefined) throw new RangeError(`${model.name} has no price at ${resolution}`);
      const audio = pricing.audio && audioOn(model, p.settings) ? pricing.audio : 0;
      return (rate + audio) * (p.duration ?? model.default_duration ?? 0);
    }
    case "per_source_second":
      return pricing.milli * Math.max(1, Math.ceil(p.sourceSeconds ?? pricing.defaultSourceSeconds));
    case "per_reference":
      return pricing.baseMilli + pricing.perReferenceMilli * p.referenceCount;
    case "by_setting": {
      const choice = String(p.settings[pricing.setting]);
      const base = pricing.milli[choice];
      if (base === undefined) throw new RangeError(`${model.name} has no price for ${pricing.setting}=${choice}`);
      return base * (pricing.resolutionFactor?.[resolution] ?? 1);
    }
  }
}

/** `base_cost` of the model records: the price at default parameters. */
export function baseCost(model: ModelDef): number {
  return fromMilli(priceMilli(model, defaultPriceParams(model)));
}

/** The closest supported duration; a tie goes to the longer one. */
export function snapDuration(value: number, supported: readonly number[]): number {
  let best = supported[0]!;
  for (const d of supported) {
    const gap = Math.abs(d - value);
    const bestGap = Math.abs(best - value);
    if (gap < bestGap || (gap === bestGap && d > best)) best = d;
  }
  return best;
}

export interface PricingRequest {
  model?: unknown;
  duration?: unknown;
  resolution?: unknown;
  aspect_ratio?: unknown;
  /** The settings object: the spec shows no name for it; the local instance reads the start's. */
  model_settings?: unknown;
  /** The number of reference images (the service's name, hosted-facts). */
  image_count?: unknown;
  /** A start's references, counted as `image_count` (the local instance prices a start body as it is). */
  references?: unknown;
  generation_count?: unknown;
}

export type PricingQuote = AssetPricingResponse;

/** A number sent as a number or a numeric string; `invalid` for anything else that was sent. */
function readNumber(v: unknown): number | "invalid" | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : "invalid";
}

const sent = (v: unknown) => v !== undefined && v !== null;

function matchChoice(v: unknown, options: readonly string[]): string | undefined {
  if (typeof v !== "string") return undefined;
  return options.find((o) => o === v) ?? options.find((o) => o.toLowerCase() === v.trim().toLowerCase());
}

function coerceSetting(value: unknown, options: readonly string[] | undefined): unknown {
  if (options) return matchChoice(value, options);
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}

/**
 * Dry-run price. The spec gives pricing no validation errors beyond a missing or unknown model, so
 * every other input is coerced to what the model supports (a duration snaps to its set, an unknown
 * resolution or a non-number falls back to the default …) and an input the model does not take is
 * ignored. `normalized` lists exactly those fields: the value used, or null for an ignored one.
 */
export function quote(input: PricingRequest, find: (name: string) => ModelDef | undefined = findModel): PricingQuote {
  if (input.model === undefined || input.model === null || input.model === "") {
    throw ApiError.of("missing_field", "model is required", { field: "model" });
  }
  const name = String(input.model);
  const model = find(name);
  if (!model) throw ApiError.of("model_not_found", `Model not found: ${name}`, { field: "model" });

  const p = defaultPriceParams(model);
  const normalized: Record<string, unknown> = {};
  const use = (field: string, value: unknown, given: unknown) => {
    if (value !== given) normalized[field] = value;
  };

  const duration = readNumber(input.duration);
  if (duration !== undefined) {
    if (model.pricing.kind === "per_source_second") {
      // Sources longer than the output cap are refused at start, so they are priced at the cap.
      const secs = duration === "invalid" ? model.pricing.defaultSourceSeconds : Math.min(MAX_FOLLOW_SECONDS, Math.max(1, Math.ceil(duration)));
      p.sourceSeconds = secs;
      use("duration", secs, input.duration);
    } else if (model.durations.length > 0) {
      const snapped = duration === "invalid" ? model.default_duration! : snapDuration(duration, model.durations);
      p.duration = snapped;
      use("duration", snapped, input.duration);
    } else {
      normalized.duration = null;
    }
  }

  if (sent(input.resolution)) {
    if (model.resolutions.length > 0) {
      const r = matchChoice(input.resolution, model.resolutions) ?? model.default_resolution!;
      p.resolution = r;
      use("resolution", r, input.resolution);
    } else {
      normalized.resolution = null;
    }
  }
  if (sent(input.aspect_ratio)) {
    if (model.aspect_ratios.length > 0) {
      use("aspect_ratio", matchChoice(input.aspect_ratio, model.aspect_ratios) ?? model.default_aspect_ratio!, input.aspect_ratio);
    } else {
      normalized.aspect_ratio = null;
    }
  }

  if (sent(input.model_settings)) {
    if (typeof input.model_settings === "object" && !Array.isArray(input.model_settings)) {
      const given = input.model_settings as Record<string, unknown>;
      const changed: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(given)) {
        const s = model.settings.find((d) => d.key === key);
        if (!s) {
          changed[key] = null;
          continue;
        }
        const v = coerceSetting(value, s.type === "select" ? s.options : undefined);
        const used = v === undefined ? s.default_value : v;
        p.settings[key] = used;
        if (used !== value) changed[key] = used;
      }
      if (Object.keys(changed).length > 0) normalized.model_settings = changed;
    } else {
      normalized.model_settings = null;
    }
  }

  const { min, max } = imageBounds(model);
  const refCount = readNumber(input.image_count);
  if (refCount !== undefined) {
    const n = refCount === "invalid" ? min : Math.min(max, Math.max(min, Math.round(refCount)));
    p.referenceCount = n;
    use("image_count", n, input.image_count);
  } else if (Array.isArray(input.references)) {
    const n = Math.min(max, Math.max(min, input.references.length));
    p.referenceCount = n;
    use("image_count", n, input.references.length);
  } else if (sent(input.references)) {
    normalized.references = null;
  }

  let count = 1;
  const countGiven = readNumber(input.generation_count);
  if (countGiven !== undefined) {
    count = countGiven === "invalid" ? 1 : Math.min(MAX_GENERATIONS, Math.max(MIN_GENERATIONS, Math.round(countGiven)));
    use("generation_count", count, input.generation_count);
  }

  const per = priceMilli(model, p);
  const out: PricingQuote = {
    model: model.name,
    cost_per_generation: fromMilli(per),
    total_cost: fromMilli(per * count),
    currency: "credits",
    generation_count: count,
  };
  if (Object.keys(normalized).length > 0) out.normalized = normalized;
  return out;
}
