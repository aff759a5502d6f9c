/**
 * POST /generation/start, the rules: which input method a request uses, every field's check in the
 * documented order (docs/local-differences.md, "Generation"), and the normalised request the job
 * works from, with its estimate. Pure: the space's voices, looks, avatars and assets come in through
 * `StartLookups`, so the rules are table-tested without an instance.
 *
 * Order: content-field types → MISSING_CONTENT → MISSING_FIELD → MISSING_VOICE → INVALID_VOICE_ID
 * (then voice_url) → INVALID_AVATAR_ID (then avatar_url) → INVALID_FORMAT (format, width, height) →
 * duration → the other fields → script length → INVALID_PLAN → PLAN_RESOLUTION_FAILED (then a
 * spoken block without a voice: MISSING_VOICE). The handler then measures supplied media (media-based
 * requests) and checks credits (402) last.
 */
import { generationCredits } from "../../contract/pricing.js";
import type { TimelineOptions } from "../video/timeline.js";
import type { VideoFormat } from "./contract.js";
import { codeError } from "./errors.js";
import {
  MAX_DURATION_SECONDS,
  MIN_DURATION_SECONDS,
  PLAN_FIELD,
  checkPlan,
  extensionOf,
  kindOfExtension,
  planEstimateMs,
  planHasMedia,
  refProblem,
  type CheckPlanOptions,
  type PlanBlock,
  type PlanMedia,
} from "./plan.js";
import { estimateSpeechMs } from "./text.js";

export const FORMATS = ["vertical", "square", "ads", "horizontal", "custom"] as const;
/** Pixel sizes of the formats (spec: 9:16, 1:1, 4:5, 16:9; custom defaults 1080×1920). */
export const FORMAT_SIZES: Record<Exclude<VideoFormat, "custom">, { width: number; height: number }> = {
  vertical: { width: 1080, height: 1920 },
  square: { width: 1080, height: 1080 },
  ads: { width: 1080, height: 1350 },
  horizontal: { width: 1920, height: 1080 },
};
export const MAX_CUSTOM_SIDE = 5000;
export const DEFAULT_CUSTOM = { width: 1080, height: 1920 };
export const MAX_WEB_URLS = 10;
export const DEFAULT_NATIVE_AVATAR_MODEL = "omni-flash";
/** `model_available` values of the spec: the names a native-avatar model can have. */
export const AVATAR_MODELS = [
  "standard",
  "premium",
  "ultra",
  "omni-flash",
  "ora-lite",
  "ora-standard",
  "ora-pro",
  "vidA-3-fast",
  "vidA-3-lite",
  "vidB-2-fast",
  "vidB-2-5",
  "vidB-2-5-1080p",
] as const;
/** `enable` defaults (not shown by the spec; local choice). */
export const DEFAULT_OPTIONS: TimelineOptions = { subtitles: true, broll: true, music: false, transitions: true };
/** The voice of a prompt-based video when none is named (free tier, so every plan has it). */
export const DEFAULT_VOICE_ID = "vc_emma";

export type InputMethod = "plan" | "script" | "prompt" | "media";

export interface VoiceRef {
  voice_id: string;
  /** espeak-ng voice (with variant). */
  tts: string;
}

export interface AssetRef {
  asset_id: string;
  kind: "image" | "video";
  /** Media-dir-relative file of the completed asset. */
  path: string;
  width: number;
  height: number;
  duration_ms?: number;
}

export interface StartLookups {
  /** A voice the space may use (its own, or a catalog voice of its tier). */
  voice(id: string): VoiceRef | undefined;
  /** A ready look of the space or the public catalog. */
  look(id: string): boolean;
  /** An avatar of the space or the catalog, with its ready looks (hints, parent_avatar_id). */
  avatar(id: string): { looks: string[] } | undefined;
  /** An asset of the space: undefined when it does not exist, else what it is. */
  asset(id: string): { status: string; type: string; ref: AssetRef | null } | undefined;
  allowLocalFiles: boolean;
  /** See CheckPlanOptions.localImageProblem. */
  localImageProblem?(ref: string): string | undefined;
}

export type ResolvedMedia = PlanMedia & { asset?: AssetRef; kind: "image" | "video" };

export interface ResolvedSequence {
  text: string | null;
  duration_ms: number | null;
  look_id: string | null;
  action: string | null;
  media: ResolvedMedia | null;
}

export interface ResolvedBlock {
  voice: VoiceRef | null;
  look_id: string | null;
  audio_url: string | null;
  parent_avatar_id: string | null;
  sequences: ResolvedSequence[];
}

/** The normalised request, stored with the job: everything the worker needs, ids resolved. */
export interface GenerationSpec {
  method: InputMethod;
  /** requestFingerprint of the start request (absent on rows written before it was kept). */
  request?: string;
  /** RequestContext.allowPrivateNetwork of the request: the job fetches its media under the same policy. */
  allow_private_network?: boolean;
  prompt: string | null;
  /** Prompt-based: the requested seconds. */
  duration: number | null;
  script: string | null;
  /** Request-level voice (prompt-based: the default voice when none is named). */
  voice: VoiceRef | null;
  voice_url: string | null;
  avatar_id: string | null;
  avatar_url: { url: string; kind: "image" | "video" } | null;
  format: VideoFormat;
  width: number;
  height: number;
  options: TimelineOptions;
  web_search: { script: boolean; images: boolean };
  animate_image: boolean;
  max_animated_images: number | null;
  use_native_avatar: boolean;
  native_avatar_model: string;
  enhance_emotions: boolean;
  use_library_media: boolean;
  save_to_library: boolean;
  media_urls: string[];
  web_urls: string[];
  music_url: string | null;
  webhook_url: string | null;
  plan: ResolvedBlock[] | null;
  /** Expected duration: what the estimate is priced from (media-based: measured by the handler). */
  estimated_ms: number | null;
  /** Images the job will animate (`animate_image`), priced at 5 credits each. */
  animated_images: number;
}

const absent = (v: unknown) => v === undefined || v === null;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const invalid = (field: string, message: string) => codeError("INVALID_VALUE", `${field}: ${message}`, field);

/** A trimmed non-empty string, undefined when absent or blank; INVALID_VALUE when not a string. */
function text(input: Record<string, unknown>, field: string): string | undefined {
  const v = input[field];
  if (absent(v)) return undefined;
  if (typeof v !== "string") throw invalid(field, "must be a string");
  return v.trim() === "" ? undefined : v.trim();
}

function bool(input: Record<string, unknown>, field: string, dflt: boolean, path = field): boolean {
  const v = input[field];
  if (absent(v)) return dflt;
  if (typeof v !== "boolean") throw invalid(path, "must be true or false");
  return v;
}

function boolObject<K extends string>(input: Record<string, unknown>, field: string, keys: readonly K[], dflt: Record<K, boolean>): Record<K, boolean> {
  const v = input[field];
  if (absent(v)) return { ...dflt };
  if (!isObject(v)) throw invalid(field, `must be an object with boolean ${keys.join(", ")}`);
  const out = { ...dflt };
  for (const k of keys) out[k] = bool(v, k, dflt[k], `${field}.${k}`);
  return out;
}

function urlList(input: Record<string, unknown>, field: string, check: (s: string) => string | undefined, max?: number): string[] {
  const v = input[field];
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw invalid(field, "must be an array of URLs");
  if (max !== undefined && v.length > max) throw invalid(field, `at most ${max} URLs`);
  return v.map((item, i) => {
    if (typeof item !== "string") throw invalid(`${field}[${i}]`, "must be a string");
    const why = check(item);
    if (why) throw invalid(`${field}[${i}]`, why);
    return item.trim();
  });
}

function httpUrl(s: string): string | undefined {
  if (!/^https?:\/\//i.test(s.trim())) return "must be an http(s) URL";
  try {
    new URL(s.trim());
    return undefined;
  } catch {
    return "is not a valid URL";
  }
}

function lookHint(lookups: StartLookups, id: string): string {
  const av = lookups.avatar(id);
  if (av) return ` (${id} is an avatar: avatar_id takes a look id${av.looks.length ? `, e.g. ${av.looks.slice(0, 3).join(", ")}` : ""})`;
  return " (see GET /avatar/list for look ids)";
}

/** The size of a format; custom takes `width`/`height` (1..5000, defaults 1080×1920), which other formats refuse. */
function sizeOf(input: Record<string, unknown>): { format: VideoFormat; width: number; height: number } {
  const f = input.format;
  let format: VideoFormat = "vertical";
  if (!absent(f)) {
    if (typeof f !== "string" || !(FORMATS as readonly string[]).includes(f)) {
      throw codeError("INVALID_FORMAT", `format must be one of ${FORMATS.join(", ")}`, "format");
    }
    format = f as VideoFormat;
  }
  if (format !== "custom") {
    for (const k of ["width", "height"] as const) {
      if (!absent(input[k])) throw codeError("INVALID_FORMAT", `${k} is only accepted with format custom`, k);
    }
    return { format, ...FORMAT_SIZES[format] };
  }
  const side = (k: "width" | "height"): number => {
    const v = input[k];
    if (absent(v)) return DEFAULT_CUSTOM[k];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_CUSTOM_SIDE) {
      throw codeError("INVALID_FORMAT", `${k} must be a whole number of pixels from 1 to ${MAX_CUSTOM_SIDE}`, k);
    }
    return v;
  };
  return { format, width: side("width"), height: side("height") };
}

/** The content fields, each what it claims to be, and the input method they make (MISSING_CONTENT, MISSING_FIELD, MISSING_VOICE). */
function contentOf(input: Record<string, unknown>) {
  const prompt = text(input, "prompt");
  const script = text(input, "script");
  const voiceUrlRaw = text(input, "voice_url");
  const avatarUrlRaw = text(input, "avatar_url");
  const hasPlan = !absent(input.sequence_plan);

  const avatarUrlKind = avatarUrlRaw ? kindOfExtension(extensionOf(avatarUrlRaw)) : undefined;
  const method: InputMethod | undefined = hasPlan ? "plan" : script ? "script" : prompt ? "prompt" : voiceUrlRaw || avatarUrlRaw ? "media" : undefined;
  if (!method) {
    throw codeError(
      "MISSING_CONTENT",
      "Nothing to make a video from: give a prompt (with duration), a script (with voice_id or voice_url), a voice_url or avatar_url, or a sequence_plan",
    );
  }
  if (method === "media" && !voiceUrlRaw && avatarUrlKind === "image") {
    throw codeError(
      "MISSING_CONTENT",
      "An avatar_url image alone has nothing to say: add a script (with a voice), a prompt with a duration, a voice_url, or use a video as avatar_url",
    );
  }
  if (method === "prompt" && absent(input.duration)) {
    throw codeError("MISSING_FIELD", "duration is required with prompt (seconds, 10 to 600)", "duration");
  }
  if (method === "script" && absent(input.voice_id) && !voiceUrlRaw) {
    throw codeError("MISSING_VOICE", "A script needs a voice: give voice_id (GET /voice/list) or voice_url", "voice_id");
  }
  return { prompt, script, voiceUrlRaw, avatarUrlRaw, avatarUrlKind, method };
}

/** The voice named by voice_id (INVALID_VOICE_ID), or null. */
function voiceIdOf(input: Record<string, unknown>, lookups: StartLookups): VoiceRef | null {
  if (absent(input.voice_id)) return null;
  const id = input.voice_id;
  const found = typeof id === "string" ? lookups.voice(id.trim()) : undefined;
  if (!found) {
    throw codeError(
      "INVALID_VOICE_ID",
      typeof id === "string" ? `Voice not found: ${id} (GET /voice/list lists the voices of this space's plan)` : "voice_id must be a string",
      "voice_id",
    );
  }
  return found;
}

/** The look named by avatar_id (INVALID_AVATAR_ID), or null. */
function avatarIdOf(input: Record<string, unknown>, lookups: StartLookups): string | null {
  if (absent(input.avatar_id)) return null;
  const id = input.avatar_id;
  if (typeof id !== "string" || !lookups.look(id.trim())) {
    throw codeError(
      "INVALID_AVATAR_ID",
      typeof id === "string" ? `Look not found: ${id}${lookHint(lookups, id.trim())}` : "avatar_id must be a string (a look id)",
      "avatar_id",
    );
  }
  return id.trim();
}

/** A supplied media reference of the allowed kinds, or INVALID_VALUE on its field. */
function checkRef(raw: string | undefined, field: string, kinds: Parameters<typeof refProblem>[1], o: CheckPlanOptions): void {
  if (!raw) return;
  const why = refProblem(raw, kinds, o);
  if (why) throw invalid(field, why);
}

/** duration belongs to prompt-based requests; with a script, media or a plan it is not used, nor judged. */
function durationOf(input: Record<string, unknown>, method: InputMethod): number | null {
  if (method !== "prompt") return null;
  const d = input.duration;
  if (typeof d !== "number" || !Number.isFinite(d) || d < MIN_DURATION_SECONDS || d > MAX_DURATION_SECONDS) {
    throw invalid("duration", `must be a number of seconds from ${MIN_DURATION_SECONDS} to ${MAX_DURATION_SECONDS}`);
  }
  return d;
}

/** The other fields, in the spec's table order, then the unnamed ones. */
function otherFieldsOf(input: Record<string, unknown>, o: CheckPlanOptions) {
  const webSearch = boolObject(input, "web_search", ["script", "images"] as const, { script: false, images: false });
  const animateImage = bool(input, "animate_image", false);
  const nativeAvatar = bool(input, "use_native_avatar", false);
  let webhookUrl: string | null = null;
  if (!absent(input.webhook_url)) {
    const w = input.webhook_url;
    const why = typeof w === "string" ? httpUrl(w) : "must be a string";
    if (why) throw invalid("webhook_url", why);
    webhookUrl = (w as string).trim();
  }
  const options = boolObject(input, "enable", ["subtitles", "broll", "music", "transitions"] as const, DEFAULT_OPTIONS);
  const mediaUrls = urlList(input, "media_urls", (s) => refProblem(s, ["image", "video"], o));
  const webUrls = urlList(input, "web_urls", httpUrl, MAX_WEB_URLS);
  let maxAnimated: number | null = null;
  if (!absent(input.max_animated_images)) {
    const m = input.max_animated_images;
    if (typeof m !== "number" || !Number.isInteger(m) || m < 0) throw invalid("max_animated_images", "must be a whole number, 0 or more");
    maxAnimated = m;
  }
  const enhanceEmotions = bool(input, "enhance_emotions", false);
  let nativeModel = DEFAULT_NATIVE_AVATAR_MODEL;
  if (!absent(input.native_avatar_model)) {
    const m = input.native_avatar_model;
    if (typeof m !== "string" || !(AVATAR_MODELS as readonly string[]).includes(m)) {
      throw invalid("native_avatar_model", `must be one of ${AVATAR_MODELS.join(", ")}`);
    }
    nativeModel = m;
  }
  const useLibrary = bool(input, "use_library_media", true);
  const saveToLibrary = bool(input, "save_to_library", true);
  const musicUrlRaw = text(input, "music_url");
  checkRef(musicUrlRaw, "music_url", ["audio"], o);
  return {
    webSearch,
    animateImage,
    nativeAvatar,
    webhookUrl,
    options,
    mediaUrls,
    webUrls,
    maxAnimated,
    enhanceEmotions,
    nativeModel,
    useLibrary,
    saveToLibrary,
    musicUrlRaw,
  };
}

/** The estimated length of a prompt (its duration) or a script (its speech, at most the longest video), else null. */
function speechEstimateMs(method: InputMethod, duration: number | null, script: string | undefined): number | null {
  if (method === "prompt") return duration! * 1000;
  if (method !== "script") return null;
  const estimatedMs = estimateSpeechMs(script!);
  if (estimatedMs > MAX_DURATION_SECONDS * 1000) {
    throw invalid("script", `is about ${Math.round(estimatedMs / 1000)} s of speech; a video is at most ${MAX_DURATION_SECONDS} s`);
  }
  return estimatedMs;
}

/** The sequence_plan checked (INVALID_PLAN) and resolved against the space, with its estimated length. */
function planOf(input: Record<string, unknown>, voice: VoiceRef | null, lookups: StartLookups, o: CheckPlanOptions): { plan: ResolvedBlock[]; estimatedMs: number } {
  const checked = checkPlan(input.sequence_plan, o);
  const first = checked.problems[0];
  if (first) {
    throw codeError("INVALID_PLAN", first.message, first.field);
  }
  return { plan: resolvePlan(checked.blocks!, voice, lookups), estimatedMs: planEstimateMs(checked.blocks!) };
}

/** A prompt without voice_id speaks with the default voice (MISSING_VOICE when the space lacks it). */
function defaultVoice(lookups: StartLookups): VoiceRef {
  const voice = lookups.voice(DEFAULT_VOICE_ID) ?? null;
  if (!voice) throw codeError("MISSING_VOICE", `The default voice ${DEFAULT_VOICE_ID} is not available to this space: give voice_id`, "voice_id");
  return voice;
}

/** How many images are animated: the plan's images, plus media_urls images when b-roll applies, capped by max_animated_images. */
function animatedCount(plan: ResolvedBlock[] | null, f: ReturnType<typeof otherFieldsOf>): number {
  const brollApplies = f.options.broll && !(plan && planHasMedia(plan));
  const explicitImages = new Set<string>();
  for (const b of plan ?? []) {
    for (const s of b.sequences) {
      if (s.media?.kind === "image") explicitImages.add(s.media.asset_id ?? s.media.url!);
    }
  }
  if (brollApplies) for (const u of f.mediaUrls) if (kindOfExtension(extensionOf(u)) === "image") explicitImages.add(u);
  return f.animateImage ? Math.min(explicitImages.size, f.maxAnimated ?? Infinity) : 0;
}

export function validateStart(input: Record<string, unknown>, lookups: StartLookups): GenerationSpec {
  const o: CheckPlanOptions = {
    allowLocalFiles: lookups.allowLocalFiles,
    ...(lookups.localImageProblem ? { localImageProblem: lookups.localImageProblem } : {}),
  };

  // Content fields must be what they claim before anything is judged by them.
  const { prompt, script, voiceUrlRaw, avatarUrlRaw, avatarUrlKind, method } = contentOf(input);

  let voice = voiceIdOf(input, lookups);
  checkRef(voiceUrlRaw, "voice_url", ["audio"], o);

  const avatarId = avatarIdOf(input, lookups);
  let avatarUrl: GenerationSpec["avatar_url"] = null;
  if (avatarUrlRaw) {
    checkRef(avatarUrlRaw, "avatar_url", ["image", "video"], o);
    avatarUrl = { url: avatarUrlRaw, kind: avatarUrlKind as "image" | "video" };
  }

  const size = sizeOf(input);
  const duration = durationOf(input, method);
  const f = otherFieldsOf(input, o);

  let estimatedMs = speechEstimateMs(method, duration, script);
  let plan: ResolvedBlock[] | null = null;
  if (method === "plan") ({ plan, estimatedMs } = planOf(input, voice, lookups, o));

  if (method === "prompt" && !voice) voice = defaultVoice(lookups);

  return {
    method,
    prompt: prompt ?? null,
    duration,
    script: script ?? null,
    voice,
    voice_url: voiceUrlRaw ?? null,
    avatar_id: avatarId,
    avatar_url: avatarUrl,
    format: size.format,
    width: size.width,
    height: size.height,
    options: f.options,
    web_search: f.webSearch,
    animate_image: f.animateImage,
    max_animated_images: f.maxAnimated,
    use_native_avatar: f.nativeAvatar,
    native_avatar_model: f.nativeModel,
    enhance_emotions: f.enhanceEmotions,
    use_library_media: f.useLibrary,
    save_to_library: f.saveToLibrary,
    media_urls: f.mediaUrls,
    web_urls: f.webUrls,
    music_url: f.musicUrlRaw ?? null,
    webhook_url: f.webhookUrl,
    plan,
    estimated_ms: estimatedMs,
    animated_images: animatedCount(plan, f),
  };
}

/**
 * Ids of the plan against the space (PLAN_RESOLUTION_FAILED, with the path of the first that does
 * not resolve), then the voice of each spoken block: its own, else the request's (MISSING_VOICE when
 * neither, unless the block brings its audio).
 */
function resolvePlan(blocks: readonly PlanBlock[], requestVoice: VoiceRef | null, lookups: StartLookups): ResolvedBlock[] {
  const unresolved = (field: string, message: string) => codeError("PLAN_RESOLUTION_FAILED", `${field}: ${message}`, field);
  const out: ResolvedBlock[] = blocks.map((b, i) => {
    const bp = `${PLAN_FIELD}[${i}]`;
    let voice: VoiceRef | null = null;
    if (b.voice_id !== null) {
      voice = lookups.voice(b.voice_id) ?? null;
      if (!voice) throw unresolved(`${bp}.voice_id`, `voice ${b.voice_id} is not a voice of this space`);
    }
    if (b.look_id !== null && !lookups.look(b.look_id))
      throw unresolved(`${bp}.look_id`, `look ${b.look_id} is not a look of this space or the catalog${lookHint(lookups, b.look_id)}`);
    if (b.parent_avatar_id !== null && !lookups.avatar(b.parent_avatar_id)) {
      throw unresolved(`${bp}.parent_avatar_id`, `avatar ${b.parent_avatar_id} is not an avatar of this space or the catalog`);
    }
    const sequences = b.sequences.map((s, j): ResolvedSequence => {
      const sp = `${bp}.sequences[${j}]`;
      if (s.look_id !== null && !lookups.look(s.look_id))
        throw unresolved(`${sp}.look_id`, `look ${s.look_id} is not a look of this space or the catalog${lookHint(lookups, s.look_id)}`);
      let media: ResolvedMedia | null = null;
      if (s.media) {
        if (s.media.asset_id !== undefined) {
          const a = lookups.asset(s.media.asset_id);
          if (!a) throw unresolved(`${sp}.media.asset_id`, `asset ${s.media.asset_id} is not in this space's library`);
          if (!a.ref) {
            throw unresolved(
              `${sp}.media.asset_id`,
              a.type === "image" || a.type === "video"
                ? `asset ${s.media.asset_id} is ${a.status}, not completed`
                : `asset ${s.media.asset_id} is ${a.type}, not an image or a video`,
            );
          }
          const { url: _ignored, ...rest } = s.media;
          media = { ...rest, asset: a.ref, kind: a.ref.kind };
        } else {
          media = { ...s.media, kind: kindOfExtension(extensionOf(s.media.url!)) as "image" | "video" };
        }
      }
      return { text: s.text, duration_ms: s.duration_ms, look_id: s.look_id, action: s.action, media };
    });
    return { voice, look_id: b.look_id, audio_url: b.audio_url, parent_avatar_id: b.parent_avatar_id, sequences };
  });
  out.forEach((b, i) => {
    const spoken = b.sequences.some((s) => s.text !== null);
    if (spoken && !b.voice && !b.audio_url) {
      if (!requestVoice) {
        throw codeError(
          "MISSING_VOICE",
          `${PLAN_FIELD}[${i}] is spoken but has no voice: give its voice_id, the request's voice_id, or its audio_url`,
          `${PLAN_FIELD}[${i}].voice_id`,
        );
      }
      b.voice = requestVoice;
    }
  });
  return out;
}

/** Credits of a start: the expected duration priced (5 per started 30 s with the 15 s buffer), plus animated images. */
export function estimateCredits(spec: Pick<GenerationSpec, "estimated_ms" | "animated_images">): number {
  return generationCredits((spec.estimated_ms ?? 0) / 1000, spec.animated_images);
}
