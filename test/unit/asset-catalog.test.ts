import { throughDoor } from "../helpers/door.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ModelDetail, ModelSummary, SLOT_NAMES } from "../../src/features/asset/contract.js";
import { ApiError } from "../../src/engine/errors.js";
import { MODELS, findModel, type ModelDef } from "../../src/features/asset/emulator/catalog/models.js";
import { modelDetail, modelSummary } from "../../src/features/asset/emulator/catalog/model-schema.js";
import { aspectRatioName, frameSize, upscaleSize, videoResolutionName } from "../../src/features/asset/emulator/catalog/frames.js";
import { assetBaseName, slugify } from "../../src/features/asset/emulator/names.js";
import type { StartLookups } from "../../src/features/asset/emulator/public/refs.js";
import { validateStart } from "../../src/features/asset/emulator/validate.js";

type Json = Record<string, unknown>;

/** What the public record says about a model, in the terms of hosted-facts.md's class table. */
function publicShape(name: string) {
  const d = modelDetail(findModel(name)!);
  const props = d.input_schema!.properties! as Record<string, Json>;
  const required = d.input_schema!.required! ?? [];
  const slots = SLOT_NAMES.filter((s) => s in props).map((s) => {
    const keys = Object.keys(props[s]!.properties as Json);
    return `${s}${required.includes(s) ? "" : "?"}${keys.length === 1 ? " (asset_id only)" : ""}`;
  });
  const refs = props.references;
  return {
    type: d.type,
    inputs: slots.length > 0 ? slots : `${refs!.minItems as number}..${refs!.maxItems as number} references${required.includes("references") ? " (required)" : ""}`,
    prompt: required.includes("prompt") ? (d.max_prompt_length === null ? "required" : `required, cap ${d.max_prompt_length}`) : "promptless",
    durations: d.capabilities!.supported_durations!,
    aspect_ratios: d.capabilities!.supported_aspect_ratios!,
    resolutions: ((props.resolution as Json | undefined)?.enum as string[] | undefined) ?? [],
    settings: (d.settings ?? []).map(
      (x) => `${x.key} ${x.type === "select" ? `(${(x as { options: string[] }).options.join("/")})` : "(boolean)"}${x.affects_cost ? ", affects cost" : ""}`,
    ),
    required_plans: d.required_plans,
    extras: ["elements", "avatar_description"].filter((k) => k in props),
    base_cost: d.base_cost,
  };
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const SIX = ["21:9", "16:9", "4:3", "1:1", "3:4", "9:16"];

/** Each row of hosted-facts.md's capability-class table, in full, with the local model that is it. */
const CLASSES: [string, string, ReturnType<typeof publicShape>][] = [
  [
    "text/image-to-video",
    "vidA-3",
    {
      type: "video",
      inputs: "0..1 references",
      prompt: "required",
      durations: [4, 6, 8],
      aspect_ratios: ["16:9", "9:16"],
      resolutions: ["720p", "1080p", "4K"],
      settings: ["generateAudio (boolean), affects cost"],
      required_plans: [],
      extras: [],
      base_cost: 32,
    },
  ],
  [
    "first + last frame video",
    "vidA-3-frames",
    {
      type: "video",
      inputs: ["first_frame", "last_frame"],
      prompt: "required",
      durations: [4, 6, 8],
      aspect_ratios: ["16:9", "9:16"],
      resolutions: ["720p", "1080p"],
      settings: [],
      required_plans: [],
      extras: [],
      base_cost: 16,
    },
  ],
  [
    "extend video",
    "vidA-3-extend",
    {
      type: "video",
      inputs: ["source_video (asset_id only)"],
      prompt: "required",
      durations: [7],
      aspect_ratios: ["16:9", "9:16"],
      resolutions: ["720p"],
      settings: [],
      required_plans: [],
      extras: [],
      base_cost: 14,
    },
  ],
  [
    "image-to-video, exactly one reference",
    "vidB-2-5",
    {
      type: "video",
      inputs: "1..1 references (required)",
      prompt: "required, cap 2500",
      durations: [5, 10],
      aspect_ratios: ["16:9", "9:16", "1:1"],
      resolutions: [],
      settings: [],
      required_plans: [],
      extras: [],
      base_cost: 2.6,
    },
  ],
  [
    "start/end image video",
    "vidB-2-5-frames",
    {
      type: "video",
      inputs: ["start_image?", "end_image?"],
      prompt: "required, cap 2500",
      durations: [5, 10],
      aspect_ratios: ["16:9", "9:16", "1:1"],
      resolutions: [],
      settings: [],
      required_plans: [],
      extras: [],
      base_cost: 3.5,
    },
  ],
  [
    "motion control",
    "vidB-motion",
    {
      type: "video",
      inputs: ["start_image", "motion_video"],
      prompt: "required",
      durations: [],
      aspect_ratios: [],
      resolutions: [],
      settings: ["keepOriginalSound (boolean)"],
      required_plans: [],
      extras: [],
      base_cost: 6,
    },
  ],
  [
    "video edit",
    "vidC-edit",
    {
      type: "video",
      inputs: ["source_video"],
      prompt: "required",
      durations: [],
      aspect_ratios: [],
      resolutions: [],
      settings: ["keepAudio (boolean)"],
      required_plans: [],
      extras: [],
      base_cost: 8,
    },
  ],
  [
    "upscale (promptless, priced by source duration)",
    "vidC-upscale",
    {
      type: "video",
      inputs: ["source_video"],
      prompt: "promptless",
      durations: [],
      aspect_ratios: [],
      resolutions: [],
      settings: [],
      required_plans: [],
      extras: [],
      base_cost: 4,
    },
  ],
  [
    "multi-reference video, plan-gated",
    "vidD-omni",
    {
      type: "video",
      inputs: "0..12 references",
      prompt: "required",
      durations: range(4, 15),
      aspect_ratios: SIX,
      resolutions: ["480p", "720p", "1080p"],
      settings: [],
      required_plans: ["PRO", "ENTREPRISE"],
      extras: ["elements"],
      base_cost: 10,
    },
  ],
  [
    "UGC video",
    "vidD-ugc",
    {
      type: "video",
      inputs: "0..3 references",
      prompt: "required",
      durations: range(4, 15),
      aspect_ratios: SIX,
      resolutions: ["480p", "720p", "1080p"],
      settings: [],
      required_plans: [],
      extras: ["avatar_description"],
      base_cost: 16,
    },
  ],
  [
    "cheap video",
    "vidB-2-fast",
    {
      type: "video",
      inputs: "0..1 references",
      prompt: "required",
      durations: range(4, 12),
      aspect_ratios: SIX,
      resolutions: ["480p", "720p", "1080p"],
      settings: ["camera_fixed (boolean)"],
      required_plans: [],
      extras: [],
      base_cost: 3,
    },
  ],
  [
    "image, many references",
    "imgA-4",
    {
      type: "image",
      inputs: "0..10 references",
      prompt: "required",
      durations: [],
      aspect_ratios: ["16:9", "9:16", "1:1", "4:3", "3:4"],
      resolutions: ["1K", "2K", "4K"],
      settings: ["quality (low/medium/high), affects cost"],
      required_plans: [],
      extras: [],
      base_cost: 1,
    },
  ],
  [
    "image, priced per reference",
    "imgB-edit",
    {
      type: "image",
      inputs: "0..6 references",
      prompt: "required, cap 2560",
      durations: [],
      aspect_ratios: ["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3"],
      resolutions: [],
      settings: [],
      required_plans: [],
      extras: [],
      base_cost: 0.3,
    },
  ],
  [
    "fast image (about 0.1 credit)",
    "imgA-4-fast",
    {
      type: "image",
      inputs: "0..1 references",
      prompt: "required",
      durations: [],
      aspect_ratios: ["1:1", "16:9", "9:16", "4:3", "3:4"],
      resolutions: [],
      settings: [],
      required_plans: [],
      extras: [],
      base_cost: 0.1,
    },
  ],
];

describe("local model catalog", () => {
  it.each(CLASSES)("the class %s is %s, row for row", (_class, name, expected) => {
    expect(publicShape(name)).toEqual(expected);
  });

  it("prices the classes whose notes say how: upscale by source length, imgB-edit by reference count", async () => {
    const { quote } = await import("../../src/features/asset/emulator/catalog/pricing.js");
    expect([4, 10, 30].map((d) => quote({ model: "vidC-upscale", duration: d }).cost_per_generation)).toEqual([2, 5, 15]);
    expect([0, 3, 6].map((n) => quote({ model: "imgB-edit", image_count: n }).cost_per_generation)).toEqual([0.3, 0.6, 0.9]);
  });

  it("the models outside the class table: a fast text/image-to-video and a top-plan-only multi-reference model", () => {
    expect(publicShape("vidA-3-fast")).toMatchObject({ inputs: "0..1 references", durations: [4, 6, 8], base_cost: 16 });
    expect(publicShape("vidD-omni-max")).toMatchObject({ required_plans: ["ENTREPRISE"], extras: ["elements"], base_cost: 15 });
    const classed = new Set([...CLASSES.map((c) => c[1]), "vidA-3-fast", "vidD-omni-max"]);
    expect(MODELS.filter((m) => !classed.has(m.name))).toEqual([]);
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
    for (const key of [
      "label",
      "type",
      "provider",
      "tags",
      "base_cost",
      "has_audio",
      "required_plans",
      "capabilities",
      "settings",
      "max_prompt_length",
      "input_schema",
      "restricted_countries",
    ]) {
      expect(detail).toHaveProperty(key);
    }
    // "or null" only where the spec allows null: a model without a choice leaves the key out.
    expect(detail.max_resolution).toBe(m.resolutions.at(-1));
    expect(detail.capabilities!.default_aspect_ratio! ?? null).toBe(m.default_aspect_ratio);
    expect(detail.capabilities!.default_duration! ?? null).toBe(m.default_duration);
    for (const v of [detail.max_resolution, detail.capabilities!.default_aspect_ratio!, detail.capabilities!.default_duration!]) expect(v).not.toBeNull();
    // Defaults belong to their own sets.
    if (m.aspect_ratios.length) expect(m.aspect_ratios).toContain(m.default_aspect_ratio);
    else expect(m.default_aspect_ratio).toBeNull();
    if (m.resolutions.length) expect(m.resolutions).toContain(m.default_resolution);
    if (m.durations.length) expect(m.durations).toContain(m.default_duration);
    for (const s of m.settings) if (s.type === "select") expect(s.options).toContain(s.default_value);
  });

  it("keeps default prices in the hosted ranges (images 0.1–2, videos 2.6–34)", () => {
    for (const m of MODELS) {
      const c = modelSummary(m).base_cost;
      if (m.type === "image") expect([m.name, c! >= 0.1 && c! <= 2]).toEqual([m.name, true]);
      else expect([m.name, c! >= 2.6 && c! <= 34]).toEqual([m.name, true]);
    }
  });

  it("matches the hosted example video model (32 credits, audio, 4/6/8 s default 8, 9:16 default)", () => {
    const d = modelDetail(findModel("vidA-3")!);
    expect(d).toMatchObject({
      base_cost: 32,
      has_audio: true,
      capabilities: {
        supported_durations: [4, 6, 8],
        default_duration: 8,
        supported_aspect_ratios: ["16:9", "9:16"],
        default_aspect_ratio: "9:16",
        min_images: 0,
        max_images: 1,
      },
    });
    expect(d.settings).toEqual([{ key: "generateAudio", type: "boolean", label: "Generate audio", default_value: true, affects_cost: true }]);
  });
});

// ---- input_schema as a contract: requests built from it are accepted or refused as it says ----------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
const png = path.join(dir, "a.png");
fs.writeFileSync(png, "validation does not open it");
const VIDEO = "0000000000000000000000aa";
const lookups: StartLookups = {
  asset: (id) =>
    id === VIDEO ? { id, type: "video", status: "completed", file: "/m/v.mp4", width: 1280, height: 720, duration_seconds: 4, folder_id: null } : undefined,
  avatarThumbnail: (id) => (id === "av_1" ? "/m/av_1.png" : undefined),
  folder: () => undefined,
  fileExists: (p) => p === png,
  cwd: dir,
  allowLocalFiles: true,
};

/** A value for one reference item schema: an avatar where the item takes one (an image), else a video asset. */
function itemFor(schema: Json): Json {
  const keys = Object.keys(schema.properties as Json);
  if (keys.includes("avatar_id")) return { avatar_id: "av_1" };
  return { asset_id: VIDEO };
}

/** The smallest valid request the schema describes: its required properties, nothing else. */
function minimalRequest(m: ModelDef): { body: Json; schema: { required: string[]; properties: Record<string, Json> } } {
  const schema = modelDetail(m).input_schema as unknown as { required: string[]; properties: Record<string, Json> };
  const body: Json = { type: m.type, model: m.name };
  for (const key of schema.required) {
    const prop = schema.properties[key]!;
    if (key === "prompt") body.prompt = "x";
    else if (prop.type === "array") body[key] = Array.from({ length: prop.minItems as number }, () => ({ url: png }));
    else body[key] = itemFor(prop);
  }
  return { body, schema };
}

/** Judged as the local dispatch judges it: the contract at the door, then the model's rules. */
function judgedStart(body: Json, plan: "ENTREPRISE", l: typeof lookups) {
  return throughDoor("assetStart", body, (input) => validateStart(input, plan, l));
}

function rejection(body: Json): ApiError {
  try {
    // Judged as the local dispatch judges it: the contract at the door, then the model's rules.
    throughDoor("assetStart", body, (input) => validateStart(input, "ENTREPRISE", lookups));
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

const ENUM_FIELDS = { aspect_ratio: "aspectRatio", resolution: "resolution", duration: "duration" } as const;

describe("input_schema: requests built from it", () => {
  it.each(MODELS.map((m) => [m.name, m] as const))("%s", (_n, m) => {
    const { body, schema } = minimalRequest(m);
    const props = schema.properties;
    expect(() => judgedStart(body, "ENTREPRISE", lookups)).not.toThrow();

    // Every enum value is accepted and used; a value outside it is refused on that field; a field the
    // schema does not list is refused too.
    for (const [field, key] of Object.entries(ENUM_FIELDS)) {
      const prop = props[field];
      if (!prop) {
        const e = rejection({ ...body, [field]: field === "duration" ? 5 : "16:9" });
        expect([e.code, e.field]).toEqual(["invalid_value", field]);
        continue;
      }
      for (const value of prop.enum as unknown[]) expect(judgedStart({ ...body, [field]: value }, "ENTREPRISE", lookups)[key]).toBe(value);
      expect(judgedStart(body, "ENTREPRISE", lookups)[key]).toBe(prop.default);
      const outside = field === "duration" ? Math.max(...(prop.enum as number[])) + 1 : "7:5x";
      const e = rejection({ ...body, [field]: outside });
      expect([e.code, e.field]).toEqual(["invalid_value", field]);
    }

    const count = props.generation_count!;
    for (let n = count.minimum as number; n <= (count.maximum as number); n++) {
      expect(judgedStart({ ...body, generation_count: n }, "ENTREPRISE", lookups).generationCount).toBe(n);
    }
    for (const n of [(count.minimum as number) - 1, (count.maximum as number) + 1]) {
      expect(rejection({ ...body, generation_count: n }).field).toBe("generation_count");
    }

    const settings = (props.model_settings?.properties ?? {}) as Record<string, Json>;
    for (const [key, s] of Object.entries(settings)) {
      const values = s.type === "boolean" ? [true, false] : (s.enum as string[]);
      for (const value of values) {
        expect(judgedStart({ ...body, model_settings: { [key]: value } }, "ENTREPRISE", lookups).settings[key]).toBe(value);
      }
      expect(rejection({ ...body, model_settings: { [key]: s.type === "boolean" ? "yes" : "not-an-option" } }).field).toBe(`model_settings.${key}`);
    }
    expect(rejection({ ...body, model_settings: { notASetting: true } }).field).toBe("model_settings.notASetting");

    // Dropping any required key is missing_field on that key.
    for (const key of schema.required) {
      const { [key]: _dropped, ...rest } = body;
      const e = rejection(rest);
      expect([e.code, e.field]).toEqual(["missing_field", key]);
    }

    const refs = props.references;
    if (refs) {
      const max = refs.maxItems as number;
      const items = (n: number) => Array.from({ length: n }, () => ({ url: png }));
      expect(judgedStart({ ...body, references: items(max) }, "ENTREPRISE", lookups).references).toHaveLength(max);
      const e = rejection({ ...body, references: items(max + 1) });
      expect([e.code, e.field]).toEqual(["invalid_value", "references"]);
    }

    const cap = props.prompt!.maxLength as number | undefined;
    if (cap !== undefined) {
      expect(judgedStart({ ...body, prompt: "p".repeat(cap) }, "ENTREPRISE", lookups).prompt).toHaveLength(cap);
      expect(rejection({ ...body, prompt: "p".repeat(cap + 1) }).field).toBe("prompt");
    }

    const elements = props.elements;
    if (elements) {
      const item = elements.items as { properties: { images: Json } };
      const min = item.properties.images.minItems as number;
      const images = (n: number) => Array.from({ length: n }, () => ({ url: png }));
      const ok = { ...body, prompt: "@hero runs", elements: [{ name: "hero", images: images(min) }] };
      expect(judgedStart(ok, "ENTREPRISE", lookups).elements).toHaveLength(1);
      expect(rejection({ ...ok, elements: [{ name: "hero", images: images(min - 1) }] }).field).toBe("elements[0].images");
      expect(rejection({ ...ok, elements: [{ name: "he ro", images: images(min) }] }).field).toBe("elements[0].name");
    } else {
      expect(rejection({ ...body, elements: [] }).field).toBe("elements");
    }
  });

  it("an extend slot takes an asset_id only; a video slot takes no avatar", () => {
    const extend = modelDetail(findModel("vidA-3-extend")!).input_schema!.properties.source_video as Json;
    expect(Object.keys(extend.properties as object)).toEqual(["asset_id"]);
    expect(rejection({ type: "video", model: "vidA-3-extend", prompt: "x", source_video: { url: png } }).field).toBe("source_video");
    const edit = modelDetail(findModel("vidC-edit")!).input_schema!.properties.source_video as Json;
    expect(Object.keys(edit.properties as object)).toEqual(["url", "asset_id"]);
    expect(rejection({ type: "video", model: "vidC-edit", prompt: "x", source_video: { avatar_id: "av_1" } }).field).toBe("source_video.avatar_id");
  });
});

describe("names of a source-following output's size", () => {
  it.each([
    [1280, 720, "16:9", "720p"],
    [854, 480, "16:9", "480p"],
    [640, 360, "16:9", "360p"],
    [720, 1280, "9:16", "720p"],
    [3840, 2160, "16:9", "4K"],
    [1080, 1080, "1:1", "1080p"],
    [1680, 720, "21:9", "720p"],
    [642, 482, "4:3", "482p"],
    [1000, 300, "10:3", "300p"],
  ])("%i×%i → %s, %s", (width, height, ratio, resolution) => {
    expect([aspectRatioName({ width, height }), videoResolutionName({ width, height })]).toEqual([ratio, resolution]);
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
