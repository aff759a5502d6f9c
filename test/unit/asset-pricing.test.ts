import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/engine/errors.js";
import { quote, snapDuration, type PricingRequest } from "../../src/features/asset/emulator/catalog/pricing.js";

describe("snapDuration", () => {
  it.each([
    [5, [4, 6, 8], 6], // tie goes up
    [7, [4, 6, 8], 8],
    [3, [4, 6, 8], 4],
    [100, [4, 6, 8], 8],
    [6.9, [4, 6, 8], 6],
    [7.5, [5, 10], 10],
    [7.4, [5, 10], 5],
    [7, [7], 7],
  ])("%f in %j → %i", (v, set, out) => {
    expect(snapDuration(v, set)).toBe(out);
  });
});

type Case = [string, PricingRequest, Record<string, unknown>];

const CASES: Case[] = [
  ["defaults of the example video model", { model: "vidA-3" }, { cost_per_generation: 32, total_cost: 32, generation_count: 1 }],
  ["duration snapped to the enum (tie up), reported", { model: "vidA-3", duration: 5 }, { cost_per_generation: 24, normalized: { duration: 6 } }],
  ["duration already valid: no normalized", { model: "vidA-3", duration: 4 }, { cost_per_generation: 16, normalized: undefined }],
  ["generateAudio off lowers the price", { model: "vidA-3", model_settings: { generateAudio: false } }, { cost_per_generation: 16, normalized: undefined }],
  ["resolution raises the price", { model: "vidA-3", resolution: "4K", duration: 8 }, { cost_per_generation: 56 }],
  ["unknown resolution falls back to the default, reported", { model: "vidA-3", resolution: "8K" }, { cost_per_generation: 32, normalized: { resolution: "720p" } }],
  ["resolution case is normalised", { model: "vidA-3", resolution: "4k" }, { cost_per_generation: 56, normalized: { resolution: "4K" } }],
  ["generation_count multiplies", { model: "vidA-3", generation_count: 3 }, { cost_per_generation: 32, total_cost: 96, generation_count: 3 }],
  ["generation_count clamped, reported", { model: "imgA-4-fast", generation_count: 9 }, { total_cost: 0.4, generation_count: 4, normalized: { generation_count: 4 } }],
  ["fractional prices are exact", { model: "imgA-4-fast", generation_count: 3 }, { cost_per_generation: 0.1, total_cost: 0.3 }],
  ["quality select changes the price", { model: "imgA-4", model_settings: { quality: "high" } }, { cost_per_generation: 2 }],
  ["quality at 4K doubles", { model: "imgA-4", model_settings: { quality: "low" }, resolution: "4K" }, { cost_per_generation: 1 }],
  [
    "invalid quality → default, reported",
    { model: "imgA-4", model_settings: { quality: "ultra" } },
    { cost_per_generation: 1, normalized: { model_settings: { quality: "medium" } } },
  ],
  ["priced per reference image (image_count)", { model: "imgB-edit", image_count: 4 }, { cost_per_generation: 0.7 }],
  [
    "priced per reference image (references length)",
    { model: "imgB-edit", references: [{ url: "https://x/a.png" }, { url: "https://x/b.png" }] },
    { cost_per_generation: 0.5, normalized: undefined },
  ],
  ["image_count clamped to the model's max, reported", { model: "imgB-edit", image_count: 20 }, { cost_per_generation: 0.9, normalized: { image_count: 6 } }],
  ["upscale priced by the source duration", { model: "vidC-upscale", duration: 12 }, { cost_per_generation: 6 }],
  ["upscale rounds a fractional source up, reported", { model: "vidC-upscale", duration: 4.2 }, { cost_per_generation: 2.5, normalized: { duration: 5 } }],
  ["upscale default source length (8 s)", { model: "vidC-upscale" }, { cost_per_generation: 4 }],
  [
    "upscale source over the 60 s output cap is priced at the cap, reported",
    { model: "vidC-upscale", duration: 100 },
    { cost_per_generation: 30, normalized: { duration: 60 } },
  ],
  ["upscale source of exactly 60 s", { model: "vidC-upscale", duration: 60 }, { cost_per_generation: 30, normalized: undefined }],
  ["flat-priced model ignores duration, reported as null", { model: "vidB-motion", duration: 30 }, { cost_per_generation: 6, normalized: { duration: null } }],
  ["per-second model without resolutions", { model: "vidB-2-5", duration: 10 }, { cost_per_generation: 5.2 }],
  ["aspect ratio coerced, reported", { model: "vidB-2-fast", aspect_ratio: "5:4" }, { normalized: { aspect_ratio: "16:9" } }],
  // Nothing but a missing or unknown model is an error: other inputs are coerced and reported.
  ["a non-numeric duration → the default, reported", { model: "vidA-3", duration: "long" }, { cost_per_generation: 32, normalized: { duration: 8 } }],
  ["a numeric string duration is read as a number, reported", { model: "vidA-3", duration: "6" }, { cost_per_generation: 24, normalized: { duration: 6 } }],
  ["a non-numeric upscale duration → the default source length", { model: "vidC-upscale", duration: true }, { cost_per_generation: 4, normalized: { duration: 8 } }],
  [
    "a non-numeric generation_count → 1, reported",
    { model: "imgA-4-fast", generation_count: "two" },
    { total_cost: 0.1, generation_count: 1, normalized: { generation_count: 1 } },
  ],
  ["a non-numeric image_count → the model's minimum, reported", { model: "imgB-edit", image_count: [1] }, { cost_per_generation: 0.3, normalized: { image_count: 0 } }],
  // Inputs the model does not take are ignored, and said so with null.
  ["resolution on a model without resolutions → null", { model: "vidB-2-5", resolution: "1080p" }, { cost_per_generation: 2.6, normalized: { resolution: null } }],
  ["aspect_ratio on a model without ratios → null", { model: "vidC-edit", aspect_ratio: "16:9" }, { cost_per_generation: 8, normalized: { aspect_ratio: null } }],
  ["duration on an image model → null", { model: "imgA-4", duration: 4 }, { cost_per_generation: 1, normalized: { duration: null } }],
  [
    "a setting the model does not have → null, known ones still used",
    { model: "imgA-4", model_settings: { turbo: true, quality: "high" } },
    { cost_per_generation: 2, normalized: { model_settings: { turbo: null } } },
  ],
  ["model_settings that is not an object → null", { model: "vidA-3", model_settings: "loud" }, { cost_per_generation: 32, normalized: { model_settings: null } }],
  ["references that is not an array → null", { model: "imgB-edit", references: "a.png" }, { cost_per_generation: 0.3, normalized: { references: null } }],
  [
    "several coercions at once, each reported",
    { model: "vidB-2-fast", duration: 13, resolution: "720P", generation_count: 0 },
    { cost_per_generation: 7.2, total_cost: 7.2, normalized: { duration: 12, resolution: "720p", generation_count: 1 } },
  ],
];

describe("POST /asset/pricing (quote)", () => {
  it.each(CASES)("%s", (_name, req, expected) => {
    const q = quote(req);
    expect(q.currency).toBe("credits");
    expect(q.model).toBe(req.model);
    for (const [k, v] of Object.entries(expected)) {
      if (v === undefined) expect(q).not.toHaveProperty(k);
      else expect((q as unknown as Record<string, unknown>)[k]).toEqual(v);
    }
    expect(q.total_cost).toBeCloseTo(q.cost_per_generation! * q.generation_count!, 9);
  });

  it.each([
    [{}, 400, "missing_field", "model", "model is required"],
    [{ model: "" }, 400, "missing_field", "model", "model is required"],
    [{ model: "nope-1" }, 404, "model_not_found", "model", undefined],
  ] as const)("rejects %j with %i %s", (req, status, code, field, message) => {
    try {
      quote(req as PricingRequest);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      const err = e as ApiError;
      expect([err.status, err.code, err.field]).toEqual([status, code, field]);
      if (message) expect(err.message).toBe(message);
    }
  });
});
