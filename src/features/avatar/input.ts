/**
 * Pure rules of avatar create and edit: which inputs are acceptable, which error each bad one gives,
 * what a look generated from a prompt is described as, and its pixel size. No I/O here.
 */
import path from "node:path";
import { NAME_MAX, PROMPT_MAX } from "../../contract/limits.js";
import { AVATAR_CREATE_STYLES, AVATAR_EDIT_STYLES, AVATAR_RESOLUTIONS, type LookFormat } from "./contract.js";
import { ApiError } from "../../engine/errors.js";
import type { Plan } from "../../contract/plans.js";
import { LOCAL_FILES_REFUSED, isLocalRef } from "../asset/refs.js";

export const IMAGE_EXTENSIONS = [".jpg", ".jpeg", ".png", ".webp"] as const;

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

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * An image reference: an http(s) URL or, on the local instance only, a file:// URL or a local path;
 * either way its extension must be one of the spec's image extensions.
 */
export function isImageRef(s: unknown): s is string {
  if (typeof s !== "string" || s.trim() === "") return false;
  let pathname = s;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    try {
      const u = new URL(s);
      if (u.protocol !== "http:" && u.protocol !== "https:" && u.protocol !== "file:") return false;
      pathname = decodeURIComponent(u.pathname);
    } catch {
      return false;
    }
  }
  return (IMAGE_EXTENSIONS as readonly string[]).includes(path.extname(pathname).toLowerCase());
}

function invalid(message: string): ApiError {
  return ApiError.of("INVALID_VALUE", message);
}

function optString(input: Record<string, unknown>, key: string): string | undefined {
  const v = input[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw invalid(`${key} must be a string`);
  return v;
}

/** A text field within `max` characters (INVALID_VALUE naming the field past it). */
function bounded(input: Record<string, unknown>, key: string, max: number): string | undefined {
  const s = optString(input, key);
  if (s !== undefined && s.length > max) throw invalid(`${key} is longer than ${max} characters`);
  return s;
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.trim() !== "" ? s.trim() : undefined;
}

export interface InputOptions {
  /** RequestContext.allowLocalFiles: false over HTTP unless the server allows local files. */
  allowLocalFiles: boolean;
}

function urlList(input: Record<string, unknown>, key: string, o: InputOptions): string[] | undefined {
  const v = input[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalid(`${key} must be an array of URLs`);
  for (const [i, item] of v.entries()) {
    // Refused before the image checks, so the answer says nothing about the file.
    if (!o.allowLocalFiles && typeof item === "string" && item.trim() !== "" && isLocalRef(item)) {
      throw invalid(`${key}[${i}]: ${LOCAL_FILES_REFUSED}; use an http(s) URL`);
    }
    if (!isImageRef(item)) {
      throw invalid(`${key}[${i}] must be an image URL (${IMAGE_EXTENSIONS.join(" ")})`);
    }
  }
  return v as string[];
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], key: string, dflt: T): T {
  if (value === undefined) return dflt;
  if (!(allowed as readonly string[]).includes(value)) throw invalid(`${key} must be one of: ${allowed.join(", ")}`);
  return value as T;
}

function webhook(input: Record<string, unknown>, code: "INVALID_VALUE" | "INVALID_WEBHOOK_URL"): string | undefined {
  const v = input.webhook_url;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || !isHttpUrl(v)) {
    throw ApiError.of(code, "webhook_url must be a valid http(s) URL");
  }
  return v;
}

export type CreatePlan =
  | {
      kind: "prompt";
      prompt: string;
      style: (typeof AVATAR_CREATE_STYLES)[number];
      format: LookFormat;
      resolution: (typeof AVATAR_RESOLUTIONS)[number];
      name: string | undefined;
      place: string | undefined;
      elements: string[];
      webhookUrl: string | undefined;
    }
  | {
      kind: "images";
      images: string[];
      style: (typeof AVATAR_CREATE_STYLES)[number];
      name: string | undefined;
      place: string | undefined;
      webhookUrl: string | undefined;
    };

/** Validates an avatar create body in the service's order: webhook, then the chosen mode's fields. */
export function parseCreate(input: Record<string, unknown>, o: InputOptions = { allowLocalFiles: true }): CreatePlan {
  const webhookUrl = webhook(input, "INVALID_VALUE");
  const prompt = nonEmpty(bounded(input, "prompt", PROMPT_MAX));
  const style = oneOf(optString(input, "style"), AVATAR_CREATE_STYLES, "style", "iphone");
  const name = nonEmpty(bounded(input, "name", NAME_MAX));
  const place = nonEmpty(bounded(input, "place", NAME_MAX));
  if (prompt !== undefined) {
    const format = oneOf(optString(input, "format"), ["vertical", "horizontal"] as const, "format", "vertical");
    const resolution = oneOf(optString(input, "resolution"), AVATAR_RESOLUTIONS, "resolution", "2K");
    const elements = urlList(input, "elementImages", o) ?? urlList(input, "elements", o) ?? [];
    return { kind: "prompt", prompt, style, format, resolution, name, place, elements, webhookUrl };
  }
  const images = urlList(input, "images", o);
  if (images && images.length > 0) return { kind: "images", images, style, name, place, webhookUrl };
  throw new ApiError(400, {
    error: "Validation failed",
    details: [{ code: "INVALID_VALUE", message: "prompt is required when no images are given", field: "prompt" }],
  });
}

export interface EditPlan {
  avatarId: string;
  lookId: string;
  prompt: string;
  format: LookFormat;
  style: (typeof AVATAR_EDIT_STYLES)[number] | undefined;
  resolution: (typeof AVATAR_RESOLUTIONS)[number];
  imageUrls: string[];
  webhookUrl: string | undefined;
}

/** Validates an avatar edit body in the order of the spec's error list. */
export function parseEdit(input: Record<string, unknown>, o: InputOptions = { allowLocalFiles: true }): EditPlan {
  const avatarId = input.avatar_id;
  if (typeof avatarId !== "string" || avatarId.trim() === "") throw ApiError.of("MISSING_AVATAR_ID", "avatar_id is required");
  const lookId = input.look_id;
  if (typeof lookId !== "string" || lookId.trim() === "") throw ApiError.of("MISSING_LOOK_ID", "look_id is required");
  const prompt = input.prompt;
  if (typeof prompt !== "string" || prompt.trim() === "") throw ApiError.of("MISSING_PROMPT", "prompt is required");
  if (prompt.length > PROMPT_MAX) throw invalid(`prompt is longer than ${PROMPT_MAX} characters`);
  const webhookUrl = webhook(input, "INVALID_WEBHOOK_URL");
  const format = oneOf(optString(input, "format"), ["vertical", "horizontal"] as const, "format", "vertical");
  const styleIn = optString(input, "style");
  const style = styleIn === undefined ? undefined : oneOf(styleIn, AVATAR_EDIT_STYLES, "style", "raw");
  const resolution = oneOf(optString(input, "resolution"), AVATAR_RESOLUTIONS, "resolution", "2K");
  const imageUrls = urlList(input, "imageUrls", o) ?? [];
  return { avatarId, lookId, prompt: prompt.trim(), format, style, resolution, imageUrls, webhookUrl };
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
