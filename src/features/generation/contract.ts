import { z } from "zod";
import { op } from "../../contract/operation.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { AUDIO_EXTENSIONS, MEDIA_EXTENSIONS, WebUrl, WebhookUrl, mediaUrl } from "../../contract/request-fields.js";
import { MODEL_AVAILABLE } from "../avatar/contract.js";

export const VIDEO_FORMATS = ["vertical", "square", "ads", "horizontal", "custom"] as const;
export const VideoFormat = z.enum(VIDEO_FORMATS, { error: `must be one of ${VIDEO_FORMATS.join(", ")}` });
export type VideoFormat = z.infer<typeof VideoFormat>;
export const MEDIA_SHOW = ["full", "half", "background", "hide"] as const;

export const SequenceMedia = z.looseObject({
  asset_id: z.string().optional(),
  url: z.string().optional(),
  show: z.enum(MEDIA_SHOW, { error: `must be one of ${MEDIA_SHOW.join(", ")}` }).optional(),
  /** Media trim start in seconds, videos (name not shown in the spec; local choice). */
  trim_start: z.number().optional(),
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
  /** Block audio URL: skips voice generation (name not shown; local choice). */
  audio_url: z.string().optional(),
  /** Block parent avatar id (name not shown; local choice). */
  parent_avatar_id: z.string().optional(),
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

const bool = z.boolean({ error: "must be true or false" });
const filled = (v: unknown) => v !== undefined && v !== null && !(typeof v === "string" && v.trim() === "");

/**
 * POST /generation/start. Whether ids exist (voices, looks, plan ids) and the credits are judged by
 * the service; the rest is here: types, enums, URL extensions, bounds, and which fields go together.
 */
export const GenerationStartRequest = z
  .strictObject({
    prompt: z.string().optional(),
    duration: z
      .number({ error: "must be a number of seconds" })
      .min(GENERATION_DURATION_MIN, { error: `must be from ${GENERATION_DURATION_MIN} to ${GENERATION_DURATION_MAX} seconds` })
      .max(GENERATION_DURATION_MAX, { error: `must be from ${GENERATION_DURATION_MIN} to ${GENERATION_DURATION_MAX} seconds` })
      .optional(),
    script: z.string().optional(),
    voice_id: z.string().optional(),
    voice_url: mediaUrl(AUDIO_EXTENSIONS, "an audio file").optional(),
    avatar_id: z.string().optional(),
    avatar_url: mediaUrl(MEDIA_EXTENSIONS, "an image or a video").optional(),
    format: VideoFormat.optional(),
    width: customSize.optional(),
    height: customSize.optional(),
    web_search: z.looseObject({ script: bool.optional(), images: bool.optional() }).optional(),
    animate_image: bool.optional(),
    use_native_avatar: bool.optional(),
    webhook_url: WebhookUrl.optional(),
    enable: z.looseObject({ subtitles: bool.optional(), broll: bool.optional(), music: bool.optional(), transitions: bool.optional() }).optional(),
    sequence_plan: z.array(SpeechBlock).optional(),
    // Fields whose names the spec does not show; the local instance's names (docs/local-differences.md).
    media_urls: z.array(mediaUrl(MEDIA_EXTENSIONS, "an image or a video")).optional(),
    web_urls: z
      .array(WebUrl)
      .max(WEB_URLS_MAX, { error: `has more than ${WEB_URLS_MAX} URLs (the limit is ${WEB_URLS_MAX})` })
      .optional(),
    max_animated_images: z.number().int({ error: "must be a whole number" }).min(0, { error: "must not be negative" }).optional(),
    enhance_emotions: bool.optional(),
    native_avatar_model: z.enum(MODEL_AVAILABLE, { error: `must be one of ${MODEL_AVAILABLE.join(", ")}` }).optional(),
    use_library_media: bool.optional(),
    save_to_library: bool.optional(),
  })
  .superRefine((req, ctx) => {
    const plan = req.sequence_plan !== undefined;
    const script = !plan && filled(req.script);
    const prompt = !plan && !script && filled(req.prompt);
    if (!plan && !script && !prompt && !filled(req.voice_url) && !filled(req.avatar_url)) {
      ctx.addIssue({
        code: "custom",
        path: ["prompt"],
        message: "prompt, script, sequence_plan, voice_url or avatar_url is required",
        params: { code: "MISSING_CONTENT" },
      });
    }
    if (prompt && req.duration === undefined) {
      ctx.addIssue({ code: "custom", path: ["duration"], message: "duration is required with a prompt (10 to 600 seconds)", params: { code: "MISSING_FIELD" } });
    }
    if (script && !filled(req.voice_id) && !filled(req.voice_url)) {
      ctx.addIssue({ code: "custom", path: ["voice_id"], message: "voice_id or voice_url is required with a script", params: { code: "MISSING_VOICE" } });
    }
    if (req.format !== "custom") {
      for (const k of ["width", "height"] as const) {
        if (req[k] !== undefined) ctx.addIssue({ code: "custom", path: [k], message: `${k} is only accepted with format custom (give "format": "custom")` });
      }
    }
  });
export type GenerationStartRequest = z.input<typeof GenerationStartRequest>;

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

/**
 * `current_step` values, in the order a job goes through them (hosted-facts names them "for example";
 * `ASSEMBLY`, the last step, is the local instance's name for the step whose failure code is
 * ASSEMBLY_FAILED). Steps a request does not need are skipped.
 */
export const GENERATION_STEPS = [
  "QUEUE",
  "MEDIA_UPLOAD",
  "SCRIPT_GENERATION",
  "VOICE_GENERATION",
  "TRANSCRIPTION",
  "SEARCH_MEDIA",
  "PLACE_BROLL",
  "ANIMATE_IMAGES",
  "DISPLAY_BROLL",
  "ASSEMBLY",
] as const;

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
    invalidOf: { format: "INVALID_FORMAT", width: "INVALID_FORMAT", height: "INVALID_FORMAT", sequence_plan: "INVALID_PLAN" },
  },
  generationStatus: { missing: "JOB_NOT_FOUND", invalid: "JOB_NOT_FOUND" },
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  generationStart: op({
    method: "POST",
    path: "/generation/start",
    status: 201,
    request: GenerationStartRequest,
    response: GenerationStartResponse,
    summary: "Start a video generation job",
  }),
  generationStatus: op({
    method: "GET",
    path: "/generation/status/{job_id}",
    status: 200,
    request: GenerationStatusRequest,
    response: GenerationStatusResponse,
    summary: "Status of a generation job",
  }),
} as const;
