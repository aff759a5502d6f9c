/**
 * POST /generation/start, the rules that need the space or this instance, and the normalised
 * request the job works from, with its estimate. The request's shape (types, bounds, which fields go
 * together, the plan's rules) was checked once at the door (contract.ts); what is left here: the
 * voice and look exist (INVALID_VOICE_ID, INVALID_AVATAR_ID), local files are accepted by this
 * instance (INVALID_VALUE / INVALID_PLAN), the plan's ids resolve (PLAN_RESOLUTION_FAILED, then a
 * spoken block without a voice: MISSING_VOICE). The handler then measures supplied media
 * (media-based requests) and checks credits (402) last. Pure: the space's voices, looks, avatars and
 * assets come in through `StartLookups`, so the rules are table-tested without an instance.
 */
import { generationCredits } from "../../../contract/pricing.js";
import type { TimelineOptions } from "../../video/emulator/public/timeline.js";
import type { GenerationStartInput, VideoFormat } from "../contract.js";
import { codeError } from "./public/errors.js";
import {
  PLAN_FIELD,
  checkPlan,
  extensionOf,
  isLocalRef,
  kindOfExtension,
  planEstimateMs,
  planHasMedia,
  refProblem,
  type CheckPlanOptions,
  type PlanBlock,
  type PlanMedia,
} from "../plan.js";
import { estimateSpeechMs } from "../text.js";

export const FORMATS = ["vertical", "square", "ads", "horizontal", "custom"] as const;
/** Pixel sizes of the formats (spec: 9:16, 1:1, 4:5, 16:9; custom defaults 1080×1920). */
export const FORMAT_SIZES: Record<Exclude<VideoFormat, "custom">, { width: number; height: number }> = {
  vertical: { width: 1080, height: 1920 },
  square: { width: 1080, height: 1080 },
  ads: { width: 1080, height: 1350 },
  horizontal: { width: 1920, height: 1080 },
};
export const DEFAULT_CUSTOM = { width: 1080, height: 1920 };
/** The spec's default native-avatar model; the docs name no field to choose another. */
export const DEFAULT_NATIVE_AVATAR_MODEL = "omni-flash";
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
  /** An avatar of the space or the catalog, with its ready looks (hints, avatar_id). */
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
  avatar_id: string | null;
  sequences: ResolvedSequence[];
}

/** The normalised request, stored with the job: everything the worker needs, ids resolved. */
export interface GenerationSpec {
  method: InputMethod;
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
  /** `animate_image_max`: at most this many images are animated (null: no cap). */
  animate_image_max: number | null;
  /** `animate_mode` (default standard); recorded, the local animation is the same for both. */
  animate_mode: "standard" | "pro";
  use_native_avatar: boolean;
  /** The native-avatar model: the spec's default (omni-flash); the docs name no field to choose another. */
  native_avatar_model: string;
  emotion_enhancement: boolean;
  use_space_media: boolean;
  save_media_to_space: boolean;
  /** `use_veo3`: recorded on the video (its export then takes only veo-3 or veo-3-fast on the service). */
  use_veo3: boolean;
  media_urls: string[];
  web_urls: string[];
  webhook_url: string | null;
  plan: ResolvedBlock[] | null;
  /** Expected duration: what the estimate is priced from (media-based: measured by the handler). */
  estimated_ms: number | null;
  /** Images the job will animate (`animate_image`), priced at 5 credits each. */
  animated_images: number;
}

const trimmed = (v: string | undefined): string | undefined => (v === undefined || v.trim() === "" ? undefined : v.trim());

function lookHint(lookups: StartLookups, id: string): string {
  const av = lookups.avatar(id);
  if (av) return ` (${id} is an avatar: avatar_id takes a look id${av.looks.length ? `, e.g. ${av.looks.slice(0, 3).join(", ")}` : ""})`;
  return " (see GET /avatar/list for look ids)";
}

/** The size of a format; custom takes `width`/`height` (defaults 1080×1920). */
function sizeOf(input: GenerationStartInput): { format: VideoFormat; width: number; height: number } {
  const format: VideoFormat = input.format ?? "vertical";
  if (format !== "custom") return { format, ...FORMAT_SIZES[format] };
  return { format, width: input.width ?? DEFAULT_CUSTOM.width, height: input.height ?? DEFAULT_CUSTOM.height };
}

/** The input method the content fields make (the check at the door made sure there is one). */
function methodOf(input: GenerationStartInput): InputMethod {
  if (input.sequence_plan !== undefined) return "plan";
  if (trimmed(input.script)) return "script";
  if (trimmed(input.prompt)) return "prompt";
  return "media";
}

/** The voice named by voice_id (INVALID_VOICE_ID), or null. */
function voiceIdOf(input: GenerationStartInput, lookups: StartLookups): VoiceRef | null {
  if (input.voice_id === undefined) return null;
  const found = lookups.voice(input.voice_id.trim());
  if (!found) throw codeError("INVALID_VOICE_ID", `Voice not found: ${input.voice_id} (GET /voice/list lists the voices of this space's plan)`, "voice_id");
  return found;
}

/** The look named by avatar_id (INVALID_AVATAR_ID), or null. */
function avatarIdOf(input: GenerationStartInput, lookups: StartLookups): string | null {
  if (input.avatar_id === undefined) return null;
  const id = input.avatar_id.trim();
  if (!lookups.look(id)) throw codeError("INVALID_AVATAR_ID", `Look not found: ${input.avatar_id}${lookHint(lookups, id)}`, "avatar_id");
  return id;
}

/**
 * A local file (a path or file:// URL) where this instance does not take them (over HTTP), or a
 * local picture too large: INVALID_VALUE on its field. Which references are well formed was settled
 * at the door; this is the instance's own rule.
 */
function checkLocalRef(raw: string | undefined, field: string, kinds: Parameters<typeof refProblem>[1], o: CheckPlanOptions): void {
  if (!raw || !isLocalRef(raw)) return;
  const why = refProblem(raw, kinds, o);
  if (why) throw codeError("INVALID_VALUE", `${field}: ${why}`, field);
}

/** The other fields with their defaults (`enable`: docs/local-differences.md). */
function otherFieldsOf(input: GenerationStartInput, o: CheckPlanOptions) {
  const mediaUrls = (input.media_urls ?? []).map((u) => u.trim());
  mediaUrls.forEach((u, i) => {
    checkLocalRef(u, `media_urls[${i}]`, ["image", "video"], o);
  });
  return {
    webSearch: { script: input.web_search?.script ?? false, images: input.web_search?.images ?? false },
    animateImage: input.animate_image ?? false,
    animateMode: input.animate_mode ?? "standard",
    nativeAvatar: input.use_native_avatar ?? false,
    webhookUrl: input.webhook_url?.trim() ?? null,
    options: {
      subtitles: input.enable?.subtitles ?? DEFAULT_OPTIONS.subtitles,
      broll: input.enable?.broll ?? DEFAULT_OPTIONS.broll,
      music: input.enable?.music ?? DEFAULT_OPTIONS.music,
      transitions: input.enable?.transitions ?? DEFAULT_OPTIONS.transitions,
    },
    mediaUrls,
    webUrls: (input.web_urls ?? []).map((u) => u.trim()),
    maxAnimated: input.animate_image_max ?? null,
    emotionEnhancement: input.emotion_enhancement ?? false,
    useSpaceMedia: input.use_space_media ?? true,
    saveMediaToSpace: input.save_media_to_space ?? true,
    useVeo3: input.use_veo3 ?? false,
  };
}

/** The estimated length of a prompt (its duration) or a script (its speech), else null. */
function speechEstimateMs(method: InputMethod, duration: number | null, script: string | undefined): number | null {
  if (method === "prompt") return duration! * 1000;
  return method === "script" ? estimateSpeechMs(script!) : null;
}

/** The sequence_plan with this instance's rule on local files (INVALID_PLAN), resolved against the space, with its estimated length. */
function planOf(input: GenerationStartInput, voice: VoiceRef | null, lookups: StartLookups, o: CheckPlanOptions): { plan: ResolvedBlock[]; estimatedMs: number } {
  const checked = checkPlan(input.sequence_plan, o);
  const first = checked.problems[0];
  if (first) throw codeError("INVALID_PLAN", first.message, first.field);
  return { plan: resolvePlan(checked.blocks!, voice, lookups), estimatedMs: planEstimateMs(checked.blocks!) };
}

/** A prompt without voice_id speaks with the default voice (MISSING_VOICE when the space lacks it). */
function defaultVoice(lookups: StartLookups): VoiceRef {
  const voice = lookups.voice(DEFAULT_VOICE_ID) ?? null;
  if (!voice) throw codeError("MISSING_VOICE", `The default voice ${DEFAULT_VOICE_ID} is not available to this space: give voice_id`, "voice_id");
  return voice;
}

/** How many images are animated: the plan's images, plus media_urls images when b-roll applies, capped by animate_image_max. */
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

/**
 * A start request the check at the door let through (contract.ts), judged on what needs the space
 * and this instance: the voice and the look exist (INVALID_VOICE_ID, INVALID_AVATAR_ID), local files
 * are accepted here, the plan's ids resolve (PLAN_RESOLUTION_FAILED); then normalised, with defaults.
 */
export function validateStart(input: GenerationStartInput, lookups: StartLookups): GenerationSpec {
  const o: CheckPlanOptions = {
    allowLocalFiles: lookups.allowLocalFiles,
    ...(lookups.localImageProblem ? { localImageProblem: lookups.localImageProblem } : {}),
  };
  const method = methodOf(input);
  const prompt = trimmed(input.prompt);
  const script = trimmed(input.script);
  const voiceUrl = trimmed(input.voice_url);
  const avatarUrlRaw = trimmed(input.avatar_url);

  let voice = voiceIdOf(input, lookups);
  checkLocalRef(voiceUrl, "voice_url", ["audio"], o);
  const avatarId = avatarIdOf(input, lookups);
  checkLocalRef(avatarUrlRaw, "avatar_url", ["image", "video"], o);
  const avatarUrl = avatarUrlRaw ? { url: avatarUrlRaw, kind: kindOfExtension(extensionOf(avatarUrlRaw)) as "image" | "video" } : null;

  const size = sizeOf(input);
  const duration = method === "prompt" ? input.duration! : null;
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
    voice_url: voiceUrl ?? null,
    avatar_id: avatarId,
    avatar_url: avatarUrl,
    format: size.format,
    width: size.width,
    height: size.height,
    options: f.options,
    web_search: f.webSearch,
    animate_image: f.animateImage,
    animate_image_max: f.maxAnimated,
    animate_mode: f.animateMode,
    use_native_avatar: f.nativeAvatar,
    native_avatar_model: DEFAULT_NATIVE_AVATAR_MODEL,
    emotion_enhancement: f.emotionEnhancement,
    use_space_media: f.useSpaceMedia,
    save_media_to_space: f.saveMediaToSpace,
    use_veo3: f.useVeo3,
    media_urls: f.mediaUrls,
    web_urls: f.webUrls,
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
    if (b.avatar_id !== null && !lookups.avatar(b.avatar_id)) {
      throw unresolved(`${bp}.avatar_id`, `avatar ${b.avatar_id} is not an avatar of this space or the catalog`);
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
    return { voice, look_id: b.look_id, audio_url: b.audio_url, avatar_id: b.avatar_id, sequences };
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
