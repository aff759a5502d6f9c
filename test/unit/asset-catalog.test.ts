import { describe, expect, it } from "vitest";
import { ModelDetail, ModelSummary } from "../../src/contract/asset.js";
import { MODELS, findModel, imageBounds, type ModelDef } from "../../src/engine/local/catalog/models.js";
import { modelDetail, modelSummary } from "../../src/engine/local/catalog/model-schema.js";
import { baseCost, defaultPriceParams, priceMilli } from "../../src/engine/local/catalog/asset-pricing.js";
import { frameSize, upscaleSize } from "../../src/engine/local/catalog/asset-frames.js";
import { assetBaseName, slugify } from "../../src/engine/local/rules/asset-names.js";

/** Each capability class of hosted-facts.md, as a predicate on a model definition. */
const CLASSES: [string, (m: ModelDef) => boolean][] = [
  ["text/image-to-video with a cost-affecting generateAudio", (m) =>
    m.type === "video" && m.references?.max === 1 && m.settings.some((s) => s.key === "generateAudio" && s.affects_cost)],
  ["first + last frame", (m) =>
    !!m.slots?.some((s) => s.name === "first_frame" && s.required) && !!m.slots?.some((s) => s.name === "last_frame" && s.required)],
  ["extend (source_video, asset id only)", (m) => !!m.slots?.some((s) => s.name === "source_video" && s.assetOnly) && m.tags.includes("extend")],
  ["exactly one reference with a prompt cap", (m) => m.references?.min === 1 && m.references.max === 1 && m.max_prompt_length !== null],
  ["start/end image slots", (m) =>
    !!m.slots?.some((s) => s.name === "start_image" && !s.required) && !!m.slots?.some((s) => s.name === "end_image" && !s.required)],
  ["motion control", (m) =>
    !!m.slots?.some((s) => s.name === "start_image" && s.required) && !!m.slots?.some((s) => s.name === "motion_video" && s.required)],
  ["video edit", (m) => m.tags.includes("video-edit") && !!m.slots?.some((s) => s.name === "source_video" && s.required)],
  ["promptless upscale priced by source duration", (m) => !!m.promptless && m.pricing.kind === "per_source_second"],
  ["plan-gated with elements", (m) =>
    m.required_plans.includes("PRO") && m.required_plans.includes("ENTREPRISE") && !!m.elements],
  ["UGC with avatar_description", (m) => !!m.avatarDescription],
  ["cheap video with camera_fixed", (m) => m.settings.some((s) => s.key === "camera_fixed")],
  ["image, many references, cost-affecting quality", (m) =>
    m.type === "image" && (m.references?.max ?? 0) >= 10 && m.settings.some((s) => s.key === "quality" && s.affects_cost)],
  ["image priced per reference", (m) => m.type === "image" && m.pricing.kind === "per_reference"],
  ["fast image about 0.1 credit", (m) => m.type === "image" && baseCost(m) === 0.1],
];

describe("local model catalog", () => {
  it.each(CLASSES)("covers the class: %s", (_name, pred) => {
    expect(MODELS.filter(pred).length).toBeGreaterThanOrEqual(1);
  });

  it("names models in the family style and uniquely", () => {
    const names = MODELS.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const m of MODELS) expect(m.name).toMatch(m.type === "video" ? /^vid[A-Z]-/ : /^img[A-Z]-/);
  });

  it.each(MODELS.map((m) => [m.name, m] as const))("%s has a full, schema-valid record", (_n, m) => {
    const detail = modelDetail(m);
    expect(() => ModelDetail.parse(detail)).not.toThrow();
    expect(() => ModelSummary.parse(modelSummary(m))).not.toThrow();
    for (const key of ["label", "type", "provider", "tags", "base_cost", "has_audio", "required_plans", "capabilities", "settings", "max_prompt_length", "input_schema", "restricted_countries", "max_resolution"]) {
      expect(detail).toHaveProperty(key);
    }
    // Defaults belong to their own sets.
    if (m.aspect_ratios.length) expect(m.aspect_ratios).toContain(m.default_aspect_ratio);
    else expect(m.default_aspect_ratio).toBeNull();
    if (m.resolutions.length) expect(m.resolutions).toContain(m.default_resolution);
    if (m.durations.length) expect(m.durations).toContain(m.default_duration);
    for (const s of m.settings) if (s.type === "select") expect(s.options).toContain(s.default_value);
    expect(detail.base_cost).toBe(priceMilli(m, defaultPriceParams(m)) / 1000);
  });

  it("keeps default prices in the hosted ranges (images 0.1–2, videos 2.5–34)", () => {
    for (const m of MODELS) {
      const c = baseCost(m);
      if (m.type === "image") expect(c).toBeGreaterThanOrEqual(0.1), expect(c).toBeLessThanOrEqual(2);
      else expect(c).toBeGreaterThanOrEqual(2.5), expect(c).toBeLessThanOrEqual(34);
    }
  });

  it("matches the hosted example video model (32 credits, audio, 4/6/8 s default 8, 9:16 default)", () => {
    const d = modelDetail(findModel("vidA-3")!);
    expect(d).toMatchObject({
      base_cost: 32,
      has_audio: true,
      capabilities: { supported_durations: [4, 6, 8], default_duration: 8, supported_aspect_ratios: ["16:9", "9:16"], default_aspect_ratio: "9:16", min_images: 0, max_images: 1 },
    });
    expect(d.settings).toEqual([{ key: "generateAudio", type: "boolean", label: "Generate audio", default_value: true, affects_cost: true }]);
  });
});

describe("input_schema is generated from the validator's definitions", () => {
  it.each(MODELS.map((m) => [m.name, m] as const))("%s", (_n, m) => {
    const s = modelDetail(m).input_schema;
    const props = s.properties as Record<string, Record<string, unknown>>;
    expect(s.type).toBe("object");
    expect(s.required.includes("prompt")).toBe(!m.promptless);
    if (m.durations.length) expect(props.duration).toEqual({ type: "integer", enum: m.durations, default: m.default_duration });
    else expect(props.duration).toBeUndefined();
    if (m.aspect_ratios.length) expect(props.aspect_ratio!.enum).toEqual(m.aspect_ratios);
    else expect(props.aspect_ratio).toBeUndefined();
    if (m.resolutions.length) expect(props.resolution!.enum).toEqual(m.resolutions);
    else expect(props.resolution).toBeUndefined();
    expect(props.generation_count).toEqual({ type: "integer", minimum: 1, maximum: 4, default: 1 });
    if (m.slots) {
      expect(props.references).toBeUndefined();
      for (const slot of m.slots) {
        expect(props[slot.name]).toBeDefined();
        expect(s.required.includes(slot.name)).toBe(slot.required);
      }
    } else {
      expect(props.references).toMatchObject({ type: "array", minItems: m.references!.min, maxItems: m.references!.max });
      expect(s.required.includes("references")).toBe(m.references!.min > 0);
    }
    if (m.max_prompt_length !== null) expect(props.prompt!.maxLength).toBe(m.max_prompt_length);
    expect(props.elements !== undefined).toBe(!!m.elements);
    expect(props.avatar_description !== undefined).toBe(!!m.avatarDescription);
    const settingKeys = Object.keys((props.model_settings?.properties as object | undefined) ?? {});
    expect(settingKeys).toEqual(m.settings.map((x) => x.key));
    expect(imageBounds(m).max).toBe(modelSummary(m).capabilities.max_images);
  });

  it("an extend slot takes an asset_id only; a video slot takes no avatar", () => {
    const extend = modelDetail(findModel("vidA-3-extend")!).input_schema.properties.source_video as Record<string, unknown>;
    expect(Object.keys(extend.properties as object)).toEqual(["asset_id"]);
    const edit = modelDetail(findModel("vidC-edit")!).input_schema.properties.source_video as Record<string, unknown>;
    expect(Object.keys(edit.properties as object)).toEqual(["url", "asset_id"]);
  });
});

describe("frame sizes (aspect ratio × resolution)", () => {
  it.each([
    ["image", "1:1", "1K", 1024, 1024],
    ["image", "16:9", "1K", 1024, 576],
    ["image", "9:16", "1K", 576, 1024],
    ["image", "4:3", "2K", 2048, 1536],
    ["image", "3:4", "4K", 3072, 4096],
    ["image", "2:3", "1K", 682, 1024],
    ["image", "3:2", "1K", 1024, 682],
    ["video", "16:9", "720p", 1280, 720],
    ["video", "9:16", "720p", 720, 1280],
    ["video", "16:9", "1080p", 1920, 1080],
    ["video", "16:9", "4K", 3840, 2160],
    ["video", "16:9", "480p", 854, 480],
    ["video", "21:9", "720p", 1680, 720],
    ["video", "4:3", "480p", 640, 480],
    ["video", "1:1", "720p", 720, 720],
    ["video", "3:4", "1080p", 1080, 1440],
  ] as const)("%s %s at %s → %i×%i", (kind, ratio, res, w, h) => {
    expect(frameSize(kind, ratio, res)).toEqual({ width: w, height: h });
  });

  it("rejects unknown resolutions and ratios", () => {
    expect(() => frameSize("image", "1:1", "720p")).toThrow(RangeError);
    expect(() => frameSize("video", "wide", "720p")).toThrow(RangeError);
  });

  it("upscales twice, capped at a 2160 short side, even", () => {
    expect(upscaleSize({ width: 1280, height: 720 })).toEqual({ width: 2560, height: 1440 });
    expect(upscaleSize({ width: 1920, height: 1080 })).toEqual({ width: 3840, height: 2160 });
    expect(upscaleSize({ width: 2160, height: 3840 })).toEqual({ width: 2160, height: 3840 });
    expect(upscaleSize({ width: 321, height: 241 })).toEqual({ width: 642, height: 482 });
  });
});

describe("file names", () => {
  it.each([
    ["My Fox at Dawn!", "my-fox-at-dawn"],
    ["  --Hello__World--  ", "hello-world"],
    ["Crème brûlée", "creme-brulee"],
    ["fox.png", "fox-png"],
    ["日本", ""],
  ])("slugify(%j) = %j", (input, out) => {
    expect(slugify(input)).toBe(out);
  });

  it("uses file_name, else the prompt's first words, else the model name", () => {
    expect(assetBaseName("Hero Shot", "a red fox", "imgA-4")).toBe("hero-shot");
    expect(assetBaseName(undefined, "A red fox at dawn, in the snow, cinematic light, 35mm", "imgA-4")).toBe("a-red-fox-at-dawn-in");
    expect(assetBaseName("!!!", "", "vidC-upscale")).toBe("vidc-upscale");
    expect(slugify("x".repeat(200)).length).toBe(80);
  });
});
