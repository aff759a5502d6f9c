import { z } from "zod";
import { op } from "../../contract/operation.js";
import { GENERATION_STEPS, generationRoutes } from "./routes.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { IMAGE_EXTENSIONS, WebUrl, WebhookUrl, extensionOf } from "../../contract/request-fields.js";

export const VIDEO_FORMATS = ["vertical", "square", "ads", "horizontal", "custom"] as const;
export const VideoFormat = z.enum(VIDEO_FORMATS, { error: `must be one of ${VIDEO_FORMATS.join(", ")}` });
export type VideoFormat = z.infer<typeof VideoFormat>;
export const MEDIA_SHOW = ["full", "half", "background", "hide"] as const;

export const SequenceMedia = z.looseObject({
  asset_id: z.string().optional(),
  url: z.string().optional(),
  show: z.enum(MEDIA_SHOW, { error: `must be one of ${MEDIA_SHOW.join(", ")}` }).optional(),
  /** Media trim start in seconds, videos (the service's docs name it `start_at`). */
  start_at: z.number().optional(),
});
export type SequenceMedia = z.infer<typeof SequenceMedia>;

export const Sequence = z.looseObject({
  text: z.string().nullable(),
  duration_ms: z.number().optional(),
  look_id: z.string().optional(),
  action: z.string().optional(),
  media: SequenceMedia.optional(),
});
export type Sequence = z.infer<typeof Sequence>;

export const SpeechBlock = z.looseObject({
  sequences: z.array(Sequence),
  voice_id: z.string().optional(),
  look_id: z.string().optional(),
  /** Block audio URL: skips voice generation (the service's docs name it `audio_url`). */
  audio_url: z.string().optional(),
  /** Block parent avatar id (the service's docs name it `avatar_id`). */
  avatar_id: z.string().optional(),
});
export type SpeechBlock = z.infer<typeof SpeechBlock>;

export const SequencePlan = z.array(SpeechBlock);
export type SequencePlan = z.infer<typeof SequencePlan>;

/** Custom width or height: whole pixels, 1 to 5000 (spec, Limits). */
export const CUSTOM_SIDE_MAX = 5000;
export const customSize = z
  .number({ error: "must be a number of pixels" })
  .int({ error: `must be a whole number of pixels from 1 to ${CUSTOM_SIDE_MAX}` })
  .min(1, { error: `must be a whole number of pixels from 1 to ${CUSTOM_SIDE_MAX}` })
  .max(CUSTOM_SIDE_MAX, { error: `must be a whole number of pixels from 1 to ${CUSTOM_SIDE_MAX}` });

/** Generation job duration in seconds (spec, Limits). */
export const GENERATION_DURATION_MIN = 10;
export const GENERATION_DURATION_MAX = 600;
export const WEB_URLS_MAX = 10;
export const ANIMATE_MODES = ["standard", "pro"] as const;

const bool = z.boolean({ error: "must be true or false" });
const filled = (v: unknown) => typeof v === "string" && v.trim() !== "";
const given = (v: unknown) => v !== undefined && v !== null;
/** A media reference: a URL or a path; what it must be is judged at the door (door.ts, with the plan's rules). */
const mediaRef = () => z.string({ error: "must be a string (a URL)" });

type Ctx = z.RefinementCtx;
const issue = (ctx: Ctx, path: (string | number)[], message: string, code?: string) =>
  ctx.addIssue({ code: "custom", path, message, ...(code ? { params: { code } } : {}) });

/**
 * The rules across fields, in the documented order (request ranks below): which input method the
 * request uses and what it then needs, sizes only with `custom`. Runs whatever the fields' own
 * checks found, so it reads every value defensively. (The plan's rules, the media references' and
 * a script's length are added at the door: door.ts.)
 */
function startRules(req: Record<string, unknown>, ctx: Ctx): void {
  const plan = given(req.sequence_plan);
  const script = !plan && filled(req.script);
  const prompt = !plan && !script && filled(req.prompt);
  const media = !plan && !script && !prompt && (filled(req.voice_url) || filled(req.avatar_url));
  if (!plan && !script && !prompt && !media) {
    issue(
      ctx,
      [],
      "Nothing to make a video from: give a prompt (with duration), a script (with voice_id or voice_url), a voice_url or avatar_url, or a sequence_plan",
      "MISSING_CONTENT",
    );
  }
  const avatarImage = typeof req.avatar_url === "string" && (IMAGE_EXTENSIONS as readonly string[]).includes(extensionOf(req.avatar_url));
  if (media && !filled(req.voice_url) && avatarImage) {
    issue(
      ctx,
      [],
      "An avatar_url image alone has nothing to say: add a script (with a voice), a prompt with a duration, a voice_url, or use a video as avatar_url",
      "MISSING_CONTENT",
    );
  }
  if (prompt && !given(req.duration)) issue(ctx, ["duration"], "duration is required with prompt (seconds, 10 to 600)", "MISSING_FIELD");
  if (script && !given(req.voice_id) && !filled(req.voice_url)) {
    issue(ctx, ["voice_id"], "voice_id or voice_url is required with a script (GET /voice/list lists the voices)", "MISSING_VOICE");
  }
  if (req.format !== "custom") {
    for (const k of ["width", "height"] as const) {
      if (given(req[k])) issue(ctx, [k], `${k} is only accepted with format custom (give "format": "custom")`);
    }
  }
}

/**
 * POST /generation/start. Whether ids exist (voices, looks, plan ids), whether local files are
 * accepted, and the credits are judged by the service; the rest is here and at the door (door.ts): types, enums, URL
 * extensions, bounds, and which fields go together. The body is open (the spec leaves some of its
 * names unshown): keys it does not know pass, and are not acted on by the local instance. Fields the
 * spec leaves unnamed carry the names of the service's docs (hosted-facts); one the docs do not name
 * (the native-avatar model) has no field here: only a raw body can send it.
 */
export const GenerationStartRequest = z
  .looseObject({
    prompt: z.string().optional(),
    duration: z
      .number({ error: "must be a number of seconds" })
      .min(GENERATION_DURATION_MIN, { error: `must be a number of seconds from ${GENERATION_DURATION_MIN} to ${GENERATION_DURATION_MAX}` })
      .max(GENERATION_DURATION_MAX, { error: `must be a number of seconds from ${GENERATION_DURATION_MIN} to ${GENERATION_DURATION_MAX}` })
      .optional(),
    script: z.string().optional(),
    voice_id: z.string({ error: "voice_id must be a string" }).optional(),
    voice_url: mediaRef().optional(),
    avatar_id: z.string({ error: "avatar_id must be a string (a look id)" }).optional(),
    avatar_url: mediaRef().optional(),
    format: VideoFormat.optional(),
    width: customSize.optional(),
    height: customSize.optional(),
    web_search: z.looseObject({ script: bool.optional(), images: bool.optional() }, { error: "must be an object with boolean script, images" }).optional(),
    animate_image: bool.optional(),
    use_native_avatar: bool.optional(),
    webhook_url: WebhookUrl.optional(),
    enable: z
      .looseObject(
        { subtitles: bool.optional(), broll: bool.optional(), music: bool.optional(), transitions: bool.optional() },
        { error: "must be an object with boolean subtitles, broll, music, transitions" },
      )
      .optional(),
    sequence_plan: z.array(SpeechBlock).optional(),
    // Names the spec does not show, as the service's docs give them (hosted-facts).
    media_urls: z.array(mediaRef(), { error: "must be an array of URLs" }).optional(),
    web_urls: z
      .array(WebUrl, { error: "must be an array of URLs" })
      .max(WEB_URLS_MAX, { error: `has more than ${WEB_URLS_MAX} URLs (the limit is ${WEB_URLS_MAX})` })
      .optional(),
    animate_image_max: z.number().int({ error: "must be a whole number" }).min(0, { error: "must not be negative" }).optional(),
    animate_mode: z.enum(ANIMATE_MODES, { error: `must be one of ${ANIMATE_MODES.join(", ")}` }).optional(),
    emotion_enhancement: bool.optional(),
    use_space_media: bool.optional(),
    save_media_to_space: bool.optional(),
    use_veo3: bool.optional(),
  })
  .superRefine((req, ctx) => startRules(req as Record<string, unknown>, ctx), { when: () => true });
export type GenerationStartRequest = z.input<typeof GenerationStartRequest>;
/** A start request as the check at the door has let it through. */
export type GenerationStartInput = z.output<typeof GenerationStartRequest>;

/**
 * The documented order of a start's problems (docs/local-differences.md, "Generation"): content
 * fields of the wrong type, MISSING_CONTENT, MISSING_FIELD, MISSING_VOICE, voice_id, voice_url,
 * avatar_id, avatar_url, INVALID_FORMAT, duration, the other fields (in the table's order), the
 * script's length, INVALID_PLAN. Ids that do not exist are the handler's, after all of these.
 */
function startRank(p: { field?: string; code: string; issue: string }): number {
  const top = (p.field ?? "").split(/[.[]/)[0]!;
  if (["prompt", "script", "voice_url", "avatar_url"].includes(top) && p.issue === "invalid_type") return 0;
  const byCode: Record<string, number> = { MISSING_CONTENT: 1, MISSING_FIELD: 2, MISSING_VOICE: 3, INVALID_FORMAT: 8, INVALID_PLAN: 12 };
  if (byCode[p.code] !== undefined) return byCode[p.code]!;
  const byField: Record<string, number> = { voice_id: 4, voice_url: 5, avatar_id: 6, avatar_url: 7, duration: 9, script: 11, sequence_plan: 12 };
  return byField[top] ?? 10;
}

/** Generation job record as returned by start. */
export const GenerationStartResponse = z.looseObject({
  job_id: z.string(),
  status: z.literal("pending").nullish(),
  estimated_credits: z.number().nullish(),
});
export type GenerationStartResponse = z.infer<typeof GenerationStartResponse>;

export const JOB_STATUSES = ["pending", "processing", "completed", "failed"] as const;
export const JobStatus = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatus>;

export { GENERATION_STEPS };

export const GenerationStatusRequest = z.strictObject({ job_id: z.string().min(1) });
/**
 * A generation's status: a wait reads its status, its progress and, once completed, the video id; only
 * the status is needed (a completed job without a video id is said by the command that needs one).
 */
export const GenerationStatusResponse = z.looseObject({
  job_id: z.string().nullish(),
  status: JobStatus,
  progress_step: z.number().nullish(),
  current_step: z.string().nullish(),
  result: z
    .looseObject({
      video_id: z.string().nullish(),
      thumbnail_url: z.string().nullish(),
      duration: z.number().nullish(),
      cost: z.number().nullish(),
      created_at: z.string().nullish(),
    })
    .nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
export type GenerationStatusResponse = z.infer<typeof GenerationStatusResponse>;

export const requestCodes = {
  generationStart: {
    missing: "INVALID_VALUE",
    invalid: "INVALID_VALUE",
    invalidOf: {
      format: "INVALID_FORMAT",
      width: "INVALID_FORMAT",
      height: "INVALID_FORMAT",
      voice_id: "INVALID_VOICE_ID",
      avatar_id: "INVALID_AVATAR_ID",
      sequence_plan: "INVALID_PLAN",
    },
    rank: startRank,
  },
  generationStatus: { missing: "JOB_NOT_FOUND", invalid: "JOB_NOT_FOUND" },
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  generationStart: op(generationRoutes.generationStart, { request: GenerationStartRequest, response: GenerationStartResponse }),
  generationStatus: op(generationRoutes.generationStatus, { request: GenerationStatusRequest, response: GenerationStatusResponse }),
} as const;
