import { z } from "zod";
import { op } from "../../contract/operation.js";

export const VIDEO_FORMATS = ["vertical", "square", "ads", "horizontal", "custom"] as const;
export const VideoFormat = z.enum(VIDEO_FORMATS);
export type VideoFormat = z.infer<typeof VideoFormat>;
export const MEDIA_SHOW = ["full", "half", "background", "hide"] as const;

export const SequenceMedia = z.looseObject({
  asset_id: z.string().optional(),
  url: z.string().optional(),
  show: z.enum(MEDIA_SHOW).optional(),
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

export const GenerationStartRequest = z.looseObject({
  prompt: z.string().optional(),
  duration: z.number().optional(),
  script: z.string().optional(),
  voice_id: z.string().optional(),
  voice_url: z.string().optional(),
  avatar_id: z.string().optional(),
  avatar_url: z.string().optional(),
  format: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  web_search: z.looseObject({ script: z.boolean().optional(), images: z.boolean().optional() }).optional(),
  animate_image: z.boolean().optional(),
  use_native_avatar: z.boolean().optional(),
  webhook_url: z.string().optional(),
  enable: z
    .looseObject({
      subtitles: z.boolean().optional(),
      broll: z.boolean().optional(),
      music: z.boolean().optional(),
      transitions: z.boolean().optional(),
    })
    .optional(),
  sequence_plan: z.array(SpeechBlock).optional(),
  // Fields whose names the spec does not show; the local instance's names (docs/local-differences.md).
  media_urls: z.array(z.string()).optional(),
  web_urls: z.array(z.string()).optional(),
  max_animated_images: z.number().optional(),
  enhance_emotions: z.boolean().optional(),
  native_avatar_model: z.string().optional(),
  use_library_media: z.boolean().optional(),
  save_to_library: z.boolean().optional(),
  music_url: z.string().optional(),
});
export type GenerationStartRequest = z.infer<typeof GenerationStartRequest>;

/** Generation job record as returned by start. */
export const GenerationStartResponse = z.looseObject({
  job_id: z.string(),
  status: z.literal("pending"),
  estimated_credits: z.number(),
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

export const GenerationStatusRequest = z.looseObject({ job_id: z.string() });
export const GenerationStatusResponse = z.looseObject({
  job_id: z.string(),
  status: JobStatus,
  progress_step: z.number(),
  current_step: z.string().nullable(),
  result: z
    .looseObject({
      video_id: z.string(),
      thumbnail_url: z.string(),
      duration: z.number(),
      cost: z.number(),
      created_at: z.string(),
    })
    .optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
});
export type GenerationStatusResponse = z.infer<typeof GenerationStatusResponse>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  generationStart: op({ method: "POST", path: "/generation/start", status: 201, request: GenerationStartRequest, response: GenerationStartResponse, summary: "Start a video generation job" }),
  generationStatus: op({ method: "GET", path: "/generation/status/{job_id}", status: 200, request: GenerationStatusRequest, response: GenerationStatusResponse, summary: "Status of a generation job" }),
} as const;
