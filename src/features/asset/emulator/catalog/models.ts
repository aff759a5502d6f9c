/**
 * The local instance's model catalog. One entry per capability class of the hosted catalog
 * (hosted-facts.md, last table), named in the spec's family style (vidA, vidB, imgA …). These
 * definitions are the single source for the model records, their `input_schema`, the start
 * validator, the pricing module and the renderer.
 */
import type { SlotName } from "../../contract.js";

export type ModelType = "image" | "video";
export type MediaKind = "image" | "video";

export interface SlotDef {
  name: SlotName;
  /** What the slot holds; decides the accepted extensions and asset types. */
  kind: MediaKind;
  required: boolean;
  /** The slot accepts only `asset_id` (extend: the video must be one of the space's assets). */
  assetOnly?: boolean;
}

export interface BooleanSetting {
  key: string;
  type: "boolean";
  label: string;
  default_value: boolean;
  affects_cost: boolean;
  /** This setting switches the model's audio track on or off. */
  controlsAudio?: boolean;
}
export interface SelectSetting {
  key: string;
  type: "select";
  label: string;
  default_value: string;
  affects_cost: boolean;
  options: string[];
}
export type SettingDef = BooleanSetting | SelectSetting;

/**
 * Prices in millicredits (exact). `base_cost` is not stored: it is the price at default parameters.
 * - flat: per generation.
 * - per_second: per second of output, by resolution; `audio` adds its rate while audio is on.
 * - per_source_second: per started second of the source video (upscale).
 * - per_reference: a base plus each reference image.
 * - by_setting: a select setting picks the price; `resolution` multiplies it.
 */
export type PricingDef =
  | { kind: "flat"; milli: number }
  | { kind: "per_second"; byResolution: Record<string, number>; audio?: number }
  | { kind: "per_source_second"; milli: number; defaultSourceSeconds: number }
  | { kind: "per_reference"; baseMilli: number; perReferenceMilli: number }
  | { kind: "by_setting"; setting: string; milli: Record<string, number>; resolutionFactor?: Record<string, number> };

export interface ModelDef {
  name: string;
  label: string;
  type: ModelType;
  provider: string;
  tags: string[];
  has_audio: boolean;
  required_plans: string[];
  restricted_countries: string[];
  max_prompt_length: number | null;
  /** Promptless models (upscale) accept no prompt requirement. */
  promptless?: boolean;
  /** Free-form references; absent for slot models (which map `references` onto their slots). */
  references?: { min: number; max: number; kinds: MediaKind[] };
  /** Named slots in their fixed order (a later slot needs the earlier ones). */
  slots?: SlotDef[];
  aspect_ratios: string[];
  default_aspect_ratio: string | null;
  resolutions: string[];
  default_resolution: string | null;
  durations: number[];
  default_duration: number | null;
  settings: SettingDef[];
  /** Element capability: named subjects referenced as `@name` in the prompt. */
  elements?: boolean;
  /** Takes `avatar_description` (the UGC family). */
  avatarDescription?: boolean;
  pricing: PricingDef;
  /** How the local renderer depicts the model's work. */
  render: RenderMode;
}

export type RenderMode = "image" | "text-to-video" | "frames" | "extend" | "motion" | "edit" | "upscale" | "ugc";

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

const SIX_RATIOS = ["21:9", "16:9", "4:3", "1:1", "3:4", "9:16"];
const LANDSCAPE_PORTRAIT = ["16:9", "9:16"];
const THREE_RATIOS = ["16:9", "9:16", "1:1"];

const generateAudio: BooleanSetting = {
  key: "generateAudio",
  type: "boolean",
  label: "Generate audio",
  default_value: true,
  affects_cost: true,
  controlsAudio: true,
};

/**
 * What a model of the catalog may leave out: it then has none (no plan needed, no country
 * restricted, no prompt limit, no aspect ratios, resolutions, durations or settings).
 */
type LeftOut =
  | "required_plans"
  | "restricted_countries"
  | "max_prompt_length"
  | "aspect_ratios"
  | "default_aspect_ratio"
  | "resolutions"
  | "default_resolution"
  | "durations"
  | "default_duration"
  | "settings";

/** A model of the catalog, written with only what it has. */
function model(m: Omit<ModelDef, LeftOut> & Partial<Pick<ModelDef, LeftOut>>): ModelDef {
  return {
    required_plans: [],
    restricted_countries: [],
    max_prompt_length: null,
    aspect_ratios: [],
    default_aspect_ratio: null,
    resolutions: [],
    default_resolution: null,
    durations: [],
    default_duration: null,
    settings: [],
    ...m,
  };
}

const VID_A_3 = model({
  name: "vidA-3",
  label: "VidA 3",
  type: "video",
  provider: "alpha",
  tags: ["text-to-video", "image-to-video", "audio"],
  has_audio: true,
  references: { min: 0, max: 1, kinds: ["image"] },
  aspect_ratios: LANDSCAPE_PORTRAIT,
  default_aspect_ratio: "9:16",
  resolutions: ["720p", "1080p", "4K"],
  default_resolution: "720p",
  durations: [4, 6, 8],
  default_duration: 8,
  settings: [generateAudio],
  pricing: { kind: "per_second", byResolution: { "720p": 2000, "1080p": 3000, "4K": 5000 }, audio: 2000 },
  render: "text-to-video",
});

export const MODELS: readonly ModelDef[] = [
  VID_A_3,
  // VidA 3 made faster: the same capabilities, at lower prices.
  {
    ...VID_A_3,
    name: "vidA-3-fast",
    label: "VidA 3 Fast",
    tags: [...VID_A_3.tags, "fast"],
    pricing: { kind: "per_second", byResolution: { "720p": 1000, "1080p": 1500, "4K": 3000 }, audio: 1000 },
  },
  model({
    name: "vidA-3-frames",
    label: "VidA 3 First & Last Frame",
    type: "video",
    provider: "alpha",
    tags: ["first-last-frames"],
    has_audio: false,
    slots: [
      { name: "first_frame", kind: "image", required: true },
      { name: "last_frame", kind: "image", required: true },
    ],
    aspect_ratios: LANDSCAPE_PORTRAIT,
    default_aspect_ratio: "16:9",
    resolutions: ["720p", "1080p"],
    default_resolution: "720p",
    durations: [4, 6, 8],
    default_duration: 8,
    pricing: { kind: "per_second", byResolution: { "720p": 2000, "1080p": 3000 } },
    render: "frames",
  }),
  model({
    name: "vidA-3-extend",
    label: "VidA 3 Extend",
    type: "video",
    provider: "alpha",
    tags: ["extend"],
    has_audio: false,
    slots: [{ name: "source_video", kind: "video", required: true, assetOnly: true }],
    aspect_ratios: LANDSCAPE_PORTRAIT,
    default_aspect_ratio: "16:9",
    resolutions: ["720p"],
    default_resolution: "720p",
    durations: [7],
    default_duration: 7,
    pricing: { kind: "per_second", byResolution: { "720p": 2000 } },
    render: "extend",
  }),
  model({
    name: "vidB-2-5",
    label: "VidB 2.5 Image to Video",
    type: "video",
    provider: "beta",
    tags: ["image-to-video"],
    has_audio: false,
    max_prompt_length: 2500,
    references: { min: 1, max: 1, kinds: ["image"] },
    aspect_ratios: THREE_RATIOS,
    default_aspect_ratio: "16:9",
    durations: [5, 10],
    default_duration: 5,
    pricing: { kind: "per_second", byResolution: { "720p": 520 } },
    render: "text-to-video",
  }),
  model({
    name: "vidB-2-5-frames",
    label: "VidB 2.5 Start & End Image",
    type: "video",
    provider: "beta",
    tags: ["image-to-video", "first-last-frames"],
    has_audio: false,
    max_prompt_length: 2500,
    slots: [
      { name: "start_image", kind: "image", required: false },
      { name: "end_image", kind: "image", required: false },
    ],
    aspect_ratios: THREE_RATIOS,
    default_aspect_ratio: "16:9",
    durations: [5, 10],
    default_duration: 5,
    pricing: { kind: "per_second", byResolution: { "720p": 700 } },
    render: "frames",
  }),
  model({
    name: "vidB-2-fast",
    label: "VidB 2 Fast",
    type: "video",
    provider: "beta",
    tags: ["text-to-video", "image-to-video", "fast"],
    has_audio: false,
    references: { min: 0, max: 1, kinds: ["image"] },
    aspect_ratios: SIX_RATIOS,
    default_aspect_ratio: "16:9",
    resolutions: ["480p", "720p", "1080p"],
    default_resolution: "720p",
    durations: range(4, 12),
    default_duration: 5,
    settings: [{ key: "camera_fixed", type: "boolean", label: "Fixed camera", default_value: false, affects_cost: false }],
    pricing: { kind: "per_second", byResolution: { "480p": 400, "720p": 600, "1080p": 1200 } },
    render: "text-to-video",
  }),
  model({
    name: "vidB-motion",
    label: "VidB Motion Control",
    type: "video",
    provider: "beta",
    tags: ["motion-control"],
    has_audio: true,
    slots: [
      { name: "start_image", kind: "image", required: true },
      { name: "motion_video", kind: "video", required: true },
    ],
    settings: [
      {
        key: "keepOriginalSound",
        type: "boolean",
        label: "Keep the motion video's sound",
        default_value: true,
        affects_cost: false,
        controlsAudio: true,
      },
    ],
    pricing: { kind: "flat", milli: 6000 },
    render: "motion",
  }),
  model({
    name: "vidC-edit",
    label: "VidC Video Edit",
    type: "video",
    provider: "gamma",
    tags: ["video-edit"],
    has_audio: true,
    slots: [{ name: "source_video", kind: "video", required: true }],
    settings: [{ key: "keepAudio", type: "boolean", label: "Keep the source audio", default_value: true, affects_cost: false, controlsAudio: true }],
    pricing: { kind: "flat", milli: 8000 },
    render: "edit",
  }),
  model({
    name: "vidC-upscale",
    label: "VidC Upscale",
    type: "video",
    provider: "gamma",
    tags: ["upscale"],
    has_audio: false,
    promptless: true,
    slots: [{ name: "source_video", kind: "video", required: true }],
    // Priced without a source, it assumes one of 8 s, the catalog's usual clip length (hosted example model).
    pricing: { kind: "per_source_second", milli: 500, defaultSourceSeconds: 8 },
    render: "upscale",
  }),
  model({
    name: "vidD-omni",
    label: "VidD Omni Reference",
    type: "video",
    provider: "delta",
    tags: ["multi-reference", "elements", "new"],
    has_audio: true,
    required_plans: ["PRO", "ENTREPRISE"],
    references: { min: 0, max: 12, kinds: ["image", "video"] },
    aspect_ratios: SIX_RATIOS,
    default_aspect_ratio: "16:9",
    resolutions: ["480p", "720p", "1080p"],
    default_resolution: "720p",
    durations: range(4, 15),
    default_duration: 5,
    elements: true,
    pricing: { kind: "per_second", byResolution: { "480p": 1000, "720p": 2000, "1080p": 3000 } },
    render: "text-to-video",
  }),
  model({
    // Needs the top plan only: the one model a PRO space is refused (403 not_eligible).
    name: "vidD-omni-max",
    label: "VidD Omni Max",
    type: "video",
    provider: "delta",
    tags: ["multi-reference", "elements"],
    has_audio: true,
    required_plans: ["ENTREPRISE"],
    references: { min: 0, max: 12, kinds: ["image", "video"] },
    aspect_ratios: SIX_RATIOS,
    default_aspect_ratio: "16:9",
    resolutions: ["720p", "1080p"],
    default_resolution: "720p",
    durations: range(4, 15),
    default_duration: 5,
    elements: true,
    pricing: { kind: "per_second", byResolution: { "720p": 3000, "1080p": 4500 } },
    render: "text-to-video",
  }),
  model({
    name: "vidD-ugc",
    label: "VidD UGC",
    type: "video",
    provider: "delta",
    tags: ["ugc"],
    has_audio: true,
    references: { min: 0, max: 3, kinds: ["image"] },
    aspect_ratios: SIX_RATIOS,
    default_aspect_ratio: "9:16",
    resolutions: ["480p", "720p", "1080p"],
    default_resolution: "720p",
    durations: range(4, 15),
    default_duration: 8,
    avatarDescription: true,
    pricing: { kind: "per_second", byResolution: { "480p": 1000, "720p": 2000, "1080p": 3000 } },
    render: "ugc",
  }),
  model({
    name: "imgA-4",
    label: "ImgA 4",
    type: "image",
    provider: "alpha",
    tags: ["text-to-image", "multi-reference"],
    has_audio: false,
    references: { min: 0, max: 10, kinds: ["image"] },
    aspect_ratios: ["16:9", "9:16", "1:1", "4:3", "3:4"],
    default_aspect_ratio: "1:1",
    resolutions: ["1K", "2K", "4K"],
    default_resolution: "1K",
    settings: [
      {
        key: "quality",
        type: "select",
        label: "Quality",
        default_value: "medium",
        affects_cost: true,
        options: ["low", "medium", "high"],
      },
    ],
    pricing: {
      kind: "by_setting",
      setting: "quality",
      milli: { low: 500, medium: 1000, high: 2000 },
      resolutionFactor: { "1K": 1, "2K": 1, "4K": 2 },
    },
    render: "image",
  }),
  model({
    name: "imgB-edit",
    label: "ImgB Edit",
    type: "image",
    provider: "beta",
    tags: ["text-to-image", "image-edit"],
    has_audio: false,
    max_prompt_length: 2560,
    references: { min: 0, max: 6, kinds: ["image"] },
    aspect_ratios: ["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3"],
    default_aspect_ratio: "1:1",
    pricing: { kind: "per_reference", baseMilli: 300, perReferenceMilli: 100 },
    render: "image",
  }),
  model({
    name: "imgA-4-fast",
    label: "ImgA 4 Fast",
    type: "image",
    provider: "alpha",
    tags: ["text-to-image", "fast"],
    has_audio: false,
    references: { min: 0, max: 1, kinds: ["image"] },
    aspect_ratios: ["1:1", "16:9", "9:16", "4:3", "3:4"],
    default_aspect_ratio: "1:1",
    pricing: { kind: "flat", milli: 100 },
    render: "image",
  }),
];

const BY_NAME = new Map(MODELS.map((m) => [m.name, m]));

export function findModel(name: string): ModelDef | undefined {
  return BY_NAME.get(name);
}

/** Audio is on when the model has audio and its audio setting (if any) is on. */
export function audioOn(model: ModelDef, settings: Record<string, unknown>): boolean {
  if (!model.has_audio) return false;
  const toggle = model.settings.find((s) => s.type === "boolean" && s.controlsAudio);
  return toggle ? settings[toggle.key] !== false : true;
}

/** `min_images`/`max_images` of the capabilities: references, or the slots for slot models. */
export function imageBounds(model: ModelDef): { min: number; max: number } {
  if (model.references) return { min: model.references.min, max: model.references.max };
  const slots = model.slots ?? [];
  return { min: slots.filter((s) => s.required).length, max: slots.length };
}

/** The model's settings with defaults filled in. */
export function defaultSettings(model: ModelDef): Record<string, boolean | string> {
  return Object.fromEntries(model.settings.map((s) => [s.key, s.default_value]));
}
