/**
 * Pure rules of avatar create and edit: what a request the contract accepted asks for (its shape is
 * the contract's: ./contract.ts), what a look generated from a prompt is described as, and its pixel
 * size. No I/O here.
 */
import path from "node:path";
import type { AvatarCreateRequest, AvatarEditRequest, LookFormat } from "../contract.js";
import type { AVATAR_CREATE_STYLES, AVATAR_EDIT_STYLES, AVATAR_RESOLUTIONS } from "../../../contract/avatar-vocabulary.js";
import { ApiError } from "../../../engine/errors.js";
import type { Plan } from "../../../contract/plans.js";
import { LOCAL_FILES_REFUSED, isLocalRef } from "../../asset/emulator/public/refs.js";

/** Custom avatars a space may hold, per plan (the spec leaves the numbers unstated; documented). */
export const AVATAR_LIMITS: Record<Plan, number> = { free: 1, start: 3, PRO: 25, ENTREPRISE: 100 };

/** Pixel size of a generated look: the 2K/4K long side over 9:16 or 16:9. */
export function lookSize(format: LookFormat, resolution: string): { width: number; height: number } {
  const [short, long] = resolution === "4K" ? [2160, 3840] : [1152, 2048];
  return format === "vertical" ? { width: short, height: long } : { width: long, height: short };
}

/** Fetched reference images are cached by hash in the same place asset references are (asset-source.ts). */
export function referenceCacheDir(home: string): string {
  return path.join(home, "local", "cache", "references");
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.trim() !== "" ? s.trim() : undefined;
}

export interface InputOptions {
  /** RequestContext.allowLocalFiles: false over HTTP unless the server allows local files. */
  allowLocalFiles: boolean;
}

/**
 * A list of image references the contract accepted; over HTTP (no local files) one that names a
 * local file is refused, whether or not the file exists (the answer says nothing about the file).
 */
function imageList(list: readonly string[] | undefined, key: string, o: InputOptions): string[] | undefined {
  if (list === undefined) return undefined;
  const refs = list.map((item) => item.trim());
  if (!o.allowLocalFiles) {
    const i = refs.findIndex((item) => isLocalRef(item));
    if (i >= 0) throw ApiError.of("INVALID_VALUE", `${key}[${i}]: ${LOCAL_FILES_REFUSED}; use an http(s) URL`);
  }
  return refs;
}

type CreateStyle = (typeof AVATAR_CREATE_STYLES)[number];
type Resolution = (typeof AVATAR_RESOLUTIONS)[number];

export type CreatePlan =
  | {
      kind: "prompt";
      prompt: string;
      style: CreateStyle;
      format: LookFormat;
      resolution: Resolution;
      name: string | undefined;
      place: string | undefined;
      elements: string[];
      webhookUrl: string | undefined;
    }
  | {
      kind: "images";
      images: string[];
      style: CreateStyle;
      name: string | undefined;
      place: string | undefined;
      webhookUrl: string | undefined;
    };

/**
 * What a create the contract accepted asks for (AvatarCreateRequest judged its shape): a prompt wins
 * over images; `elementImages` over its alias `elements`, `images` over its alias `imageUrls`.
 */
export function createPlan(input: AvatarCreateRequest, o: InputOptions = { allowLocalFiles: true }): CreatePlan {
  const prompt = nonEmpty(input.prompt);
  const style = input.style ?? "iphone";
  const name = nonEmpty(input.name);
  const place = nonEmpty(input.place);
  const webhookUrl = input.webhook_url;
  if (prompt !== undefined) {
    const elements = imageList(input.elementImages, "elementImages", o) ?? imageList(input.elements, "elements", o) ?? [];
    return { kind: "prompt", prompt, style, format: input.format ?? "vertical", resolution: input.resolution ?? "2K", name, place, elements, webhookUrl };
  }
  const images = input.images?.length ? imageList(input.images, "images", o)! : imageList(input.imageUrls, "imageUrls", o)!;
  return { kind: "images", images, style, name, place, webhookUrl };
}

export interface EditPlan {
  avatarId: string;
  lookId: string;
  prompt: string;
  format: LookFormat;
  style: (typeof AVATAR_EDIT_STYLES)[number] | undefined;
  resolution: Resolution;
  imageUrls: string[];
  webhookUrl: string | undefined;
  upscale: boolean;
  lookName: string | undefined;
  place: string | undefined;
  tags: string[] | undefined;
}

/** What an edit the contract accepted asks for (AvatarEditRequest judged its shape, in the spec's order). */
export function editPlan(input: AvatarEditRequest, o: InputOptions = { allowLocalFiles: true }): EditPlan {
  return {
    avatarId: input.avatar_id,
    lookId: input.look_id,
    prompt: input.prompt.trim(),
    format: input.format ?? "vertical",
    style: input.style,
    resolution: input.resolution ?? "2K",
    imageUrls: imageList(input.imageUrls, "imageUrls", o) ?? [],
    webhookUrl: input.webhook_url,
    upscale: input.upscale === true,
    lookName: nonEmpty(input.look_name),
    place: nonEmpty(input.place),
    tags: input.tags?.map((t) => t.trim()).filter(Boolean),
  };
}

const PLACE_WORDS: [string, RegExp][] = [
  ["cafe", /\b(caf[eé]|coffee|barista)\b/i],
  ["kitchen", /\b(kitchen|cooking|chef)\b/i],
  ["office", /\b(office|desk|meeting|corporate)\b/i],
  ["gym", /\b(gym|workout|fitness)\b/i],
  ["beach", /\b(beach|seaside|ocean)\b/i],
  ["car", /\b(car|driving)\b/i],
  ["bedroom", /\bbedroom\b/i],
  ["bathroom", /\b(bathroom|mirror)\b/i],
  ["podcast", /\bpodcast\b/i],
  ["studio", /\bstudio\b/i],
  ["street", /\b(street|city)\b/i],
  ["outdoor", /\b(outdoors?|park|garden|forest|mountains?)\b/i],
  ["home", /\b(home|living room|sofa|couch)\b/i],
];
const EMOTION_WORDS: [string, RegExp][] = [
  ["happy", /\b(happy|smiling|friendly|cheerful|joyful|warm)\b/i],
  ["excited", /\b(excited|energetic|enthusiastic)\b/i],
  ["calm", /\b(calm|serene|peaceful)\b/i],
  ["relaxed", /\b(relaxed|casual|chill)\b/i],
  ["focused", /\b(focused|serious|concentrated)\b/i],
  ["confident", /\b(confident|professional|bold)\b/i],
];
const ACTION_WORDS: [string, RegExp][] = [
  ["cooking", /\bcook(ing)?\b/i],
  ["presenting", /\bpresent(ing|er)?\b/i],
  ["walking", /\bwalk(ing)?\b/i],
  ["exercising", /\b(exercis(e|ing)|workout|running)\b/i],
  ["reading", /\bread(ing)?\b/i],
  ["driving", /\bdriv(e|ing)\b/i],
  ["sitting", /\bsit(ting)?\b/i],
];
const ACCESSORIES = [
  "sunglasses",
  "glasses",
  "hat",
  "cap",
  "headphones",
  "microphone",
  "apron",
  "earrings",
  "necklace",
  "watch",
  "headscarf",
  "scarf",
  "tie",
  "backpack",
];
const HAIR_WORDS: [string, RegExp][] = [
  ["blonde", /\b(blonde?)\b/i],
  ["red", /\b(red hair|redhead|ginger)\b/i],
  ["gray", /\b(gr[ae]y hair|grey-haired|gray-haired)\b/i],
  ["white", /\bwhite hair\b/i],
  ["black", /\bblack hair\b/i],
  ["brown", /\b(brown hair|brunette)\b/i],
  ["bald", /\bbald\b/i],
];
const AGE_WORDS: [string, string, RegExp][] = [
  ["senior", "68", /\b(old|elderly|senior|grand(ma|pa|mother|father))\b/i],
  ["adolescent", "16", /\b(teen|teenager|adolescent)\b/i],
  ["young_adult", "24", /\b(young|student)\b/i],
];
const FEMALE = /\b(woman|women|female|girl|lady|she|her|mother|mom|businesswoman|actress|waitress)\b/i;
const MALE = /\b(man|men|male|guy|boy|he|his|father|dad|gentleman|businessman|actor|waiter)\b/i;
const STYLE_PLACE: Record<string, string> = { podcast: "podcast", car: "car", conference: "conference" };

/** The place a style implies (podcast, car, conference), if any. */
export function stylePlace(style: string | undefined): string | undefined {
  return style ? STYLE_PLACE[style] : undefined;
}

function first(words: [string, RegExp][], text: string): string | undefined {
  return words.find(([, re]) => re.test(text))?.[0];
}

/** A stable small number from a text, so a prompt without clues always gets the same choice. */
function textHash(text: string): number {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return h;
}

/** A short title from the start of a prompt: "friendly barista, warm light" → "Friendly barista". */
export function titleFrom(text: string, max = 40): string {
  const head = text.split(/[,.;:!?\n]/)[0]!.trim() || text.trim();
  let cut = head;
  if (head.length > max) {
    // Cut at the last whole word that fits.
    cut = /\s/.test(head[max]!) ? head.slice(0, max) : head.slice(0, max).replace(/\s+\S*$/, "") || head.slice(0, max);
  }
  return cut.charAt(0).toUpperCase() + cut.slice(1);
}

export interface DerivedPerson {
  gender: "male" | "female";
  age: string;
  age_range: string;
  ethnicity: string;
  hair_color: string;
}

/**
 * The person a prompt describes, read from its words; what it does not say stays `unspecified`,
 * except gender (the record needs male or female), which falls back to a stable choice by text.
 */
export function personFromPrompt(prompt: string): DerivedPerson {
  const gender = FEMALE.test(prompt) ? "female" : MALE.test(prompt) ? "male" : textHash(prompt) % 2 ? "female" : "male";
  const age = AGE_WORDS.find(([, , re]) => re.test(prompt));
  return {
    gender,
    age: age?.[1] ?? "35",
    age_range: age?.[0] ?? "adult",
    ethnicity: "unspecified",
    hair_color: first(HAIR_WORDS, prompt) ?? "unspecified",
  };
}

export interface DerivedLook {
  place: string;
  accessories: string[];
  action: string;
  emotion: string;
  selfie: boolean;
}

/** The look a prompt describes: explicit place first, then the style's place, then the prompt's words. */
export function lookFromPrompt(prompt: string, style: string | undefined, place?: string): DerivedLook {
  const found = ACCESSORIES.filter((a) => new RegExp(`\\b${a}\\b`, "i").test(prompt));
  return {
    place: place ?? stylePlace(style) ?? first(PLACE_WORDS, prompt) ?? "studio",
    accessories: found,
    action: first(ACTION_WORDS, prompt) ?? "talking",
    emotion: first(EMOTION_WORDS, prompt) ?? "neutral",
    selfie: style === "selfie",
  };
}

/** Models a custom look can be animated with on the local instance. */
export const CUSTOM_LOOK_MODELS = ["standard", "premium", "omni-flash"];
