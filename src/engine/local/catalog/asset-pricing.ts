/**
 * The one pricing module of asset generation: `/asset/pricing` and `/asset/start` both end in
 * `priceMilli`, so a dry-run price always equals what a start debits. Amounts are millicredits.
 */
import type { AssetPricingResponse } from "../../../contract/asset.js";
import { fromMilli } from "../../../contract/credits.js";
import { ApiError } from "../../errors.js";
import { DEFAULT_RESOLUTION } from "./asset-frames.js";
import { audioOn, defaultSettings, findModel, imageBounds, type ModelDef } from "./models.js";

export const MIN_GENERATIONS = 1;
export const MAX_GENERATIONS = 4;

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
  model_settings?: unknown;
  reference_count?: unknown;
  references?: unknown;
  generation_count?: unknown;
}

export type PricingQuote = AssetPricingResponse;

function asNumber(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw ApiError.of("invalid_value", `${field} must be a number`, { field });
  return n;
}

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
 * Dry-run price. Inputs are coerced to what the model supports (a duration snaps to its set, an
 * unknown resolution falls back to the default …); `normalized` lists only the fields that changed.
 */
export function quote(input: PricingRequest): PricingQuote {
  if (input.model === undefined || input.model === null || input.model === "") {
    throw ApiError.of("missing_field", "model is required", { field: "model" });
  }
  const name = String(input.model);
  const model = findModel(name);
  if (!model) throw ApiError.of("model_not_found", `Model not found: ${name}`, { field: "model" });

  const p = defaultPriceParams(model);
  const normalized: Record<string, unknown> = {};

  const duration = asNumber(input.duration, "duration");
  if (duration !== undefined) {
    if (model.pricing.kind === "per_source_second") {
      const secs = Math.max(1, Math.ceil(duration));
      p.sourceSeconds = secs;
      if (secs !== duration) normalized.duration = secs;
    } else if (model.durations.length > 0) {
      const snapped = snapDuration(duration, model.durations);
      p.duration = snapped;
      if (snapped !== input.duration) normalized.duration = snapped;
    }
  }

  if (input.resolution !== undefined && input.resolution !== null && model.resolutions.length > 0) {
    const r = matchChoice(input.resolution, model.resolutions) ?? model.default_resolution!;
    p.resolution = r;
    if (r !== input.resolution) normalized.resolution = r;
  }
  if (input.aspect_ratio !== undefined && input.aspect_ratio !== null && model.aspect_ratios.length > 0) {
    const a = matchChoice(input.aspect_ratio, model.aspect_ratios) ?? model.default_aspect_ratio!;
    if (a !== input.aspect_ratio) normalized.aspect_ratio = a;
  }

  if (input.model_settings && typeof input.model_settings === "object" && !Array.isArray(input.model_settings)) {
    const given = input.model_settings as Record<string, unknown>;
    const changed: Record<string, unknown> = {};
    for (const s of model.settings) {
      if (!(s.key in given)) continue;
      const v = coerceSetting(given[s.key], s.type === "select" ? s.options : undefined);
      const used = v === undefined ? s.default_value : v;
      p.settings[s.key] = used;
      if (used !== given[s.key]) changed[s.key] = used;
    }
    if (Object.keys(changed).length > 0) normalized.model_settings = changed;
  }

  const refsGiven =
    asNumber(input.reference_count, "reference_count") ?? (Array.isArray(input.references) ? input.references.length : undefined);
  if (refsGiven !== undefined) {
    const { min, max } = imageBounds(model);
    const n = Math.min(max, Math.max(min, Math.round(refsGiven)));
    p.referenceCount = n;
    const sent = input.reference_count ?? refsGiven;
    if (n !== sent) normalized.reference_count = n;
  }

  let count = 1;
  const countGiven = asNumber(input.generation_count, "generation_count");
  if (countGiven !== undefined) {
    count = Math.min(MAX_GENERATIONS, Math.max(MIN_GENERATIONS, Math.round(countGiven)));
    if (count !== input.generation_count) normalized.generation_count = count;
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
