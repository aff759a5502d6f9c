/**
 * Generation endpoints of the local instance. Start takes the request the check at the door let
 * through, judges what needs the space first (request.ts; nothing is written by a rejected request), measures supplied speech for media-based requests, then in one
 * IMMEDIATE transaction debits the estimate, creates the job, its video (`generating`) and queues
 * the work. Status reads the row the job keeps current.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fromMilli, toMilli } from "../../../contract/credits.js";
import { MediaFetchError, MediaInputError, RenderError } from "../../../media/errors.js";
import type { HandlerTable, RequestContext } from "../../../local/types.js";
import { findVoice } from "../../voice/emulator/public/lookup.js";
import { readAsset } from "../../asset/emulator/public/record.js";
import { parseSimulate } from "../../asset/emulator/public/simulate.js";
import { insertVideo, readVideo, videoDir } from "../../video/emulator/public/record.js";
import type { GenerationStartInput, GenerationStatusResponse } from "../contract.js";
import { codeError, creditsError } from "./public/errors.js";
import { GENERATION_JOB_ATTEMPTS, readGeneration } from "./job.js";
import { lookLookups } from "./public/looks.js";
import { supplyAudio } from "./media.js";
import { localImageProblem } from "../../../media/image-header.js";
import { checkWebhookAddress } from "../../../local/webhook-address.js";
import { MAX_DURATION_SECONDS } from "../plan.js";
import { estimateCredits, validateStart, type GenerationSpec, type StartLookups } from "./request.js";

/** Signed media URLs in webhooks stay valid as long as export downloads (7 days). */
const WEBHOOK_URL_TTL_SECONDS = 7 * 24 * 3600;

export function startLookups(ctx: RequestContext): StartLookups {
  const { instance, space } = ctx;
  const looks = lookLookups(instance.db, space.id);
  return {
    voice: (id) => {
      const v = findVoice(instance.db, space.id, space.plan, id);
      return v ? { voice_id: v.id, tts: v.tts } : undefined;
    },
    look: looks.look,
    avatar: looks.avatar,
    asset: (id) => {
      const a = readAsset(instance.db, space.id, id);
      if (!a) return undefined;
      const usable = a.status === "completed" && (a.type === "image" || a.type === "video") && a.width !== null && a.height !== null;
      return {
        status: a.status,
        type: a.type,
        ref: usable
          ? {
              asset_id: a.id,
              kind: a.type as "image" | "video",
              path: a.file_path,
              width: a.width!,
              height: a.height!,
              ...(a.type === "video" && a.duration_seconds !== null ? { duration_ms: Math.round(a.duration_seconds * 1000) } : {}),
            }
          : null,
      };
    },
    allowLocalFiles: ctx.allowLocalFiles,
    localImageProblem: (ref) => localImageProblem(/^file:/i.test(ref) ? fileURLToPath(ref) : path.resolve(ref)),
  };
}

/**
 * A media-based request is priced from its speech, so the speech is fetched and measured now (into
 * the cache the job then uses), before anything is debited. A file that cannot be read, or has no
 * sound, is refused on its field.
 */
async function measureSuppliedSpeech(ctx: RequestContext, spec: GenerationSpec): Promise<void> {
  const field = spec.voice_url ? "voice_url" : "avatar_url";
  const url = spec.voice_url ?? spec.avatar_url!.url;
  let ms: number;
  try {
    ms = (await supplyAudio(ctx.instance.mediaDir, url, field, { allowPrivateNetwork: ctx.allowPrivateNetwork })).ms;
  } catch (e) {
    if (e instanceof MediaFetchError) throw codeError("INVALID_VALUE", `${field}: could not be fetched (${e.message})`, field);
    if (e instanceof MediaInputError) throw codeError("INVALID_VALUE", e.message, field);
    if (e instanceof RenderError && !e.aborted) throw codeError("INVALID_VALUE", `${field}: not a readable audio or video file`, field);
    throw e;
  }
  if (ms > MAX_DURATION_SECONDS * 1000) {
    throw codeError("INVALID_VALUE", `${field}: ${Math.round(ms / 1000)} s of speech; a video is at most ${MAX_DURATION_SECONDS} s`, field);
  }
  spec.estimated_ms = ms;
}

/** `input` passed the check at the door (contract.ts): only the rules that need the space are left. */
async function generationStart(ctx: RequestContext, input: GenerationStartInput) {
  const { instance, space } = ctx;
  const simulate = parseSimulate(ctx.simulate);
  const spec = validateStart(input, startLookups(ctx));
  await checkWebhookAddress(ctx, spec.webhook_url, (why) => codeError("INVALID_VALUE", `webhook_url ${why}`, "webhook_url"));
  spec.allow_private_network = ctx.allowPrivateNetwork;
  if (spec.method === "media") await measureSuppliedSpeech(ctx, spec);
  const credits = estimateCredits(spec);
  const milli = toMilli(credits);

  const jobId = instance.ids.prefixed("run_");
  const videoId = instance.ids.hex24();
  const thumbnailRel = `${videoDir(videoId)}/thumbnail.jpg`;
  const answer = { job_id: jobId, status: "pending" as const, estimated_credits: credits };
  instance.tx(() => {
    const available = instance.ledger.balance(space.id);
    if (available < milli) throw creditsError(credits, fromMilli(available));
    const at = instance.nowIso();
    instance.db
      .prepare(
        `INSERT INTO generations (id, space_id, status, current_step, progress_step, spec, cost_milli, video_id, webhook_url,
           thumbnail_url, simulate, created_at)
         VALUES (?, ?, 'pending', NULL, 0, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        jobId,
        space.id,
        JSON.stringify(spec),
        milli,
        videoId,
        spec.webhook_url,
        spec.webhook_url ? ctx.urls.media(thumbnailRel, WEBHOOK_URL_TTL_SECONDS) : null,
        simulate ?? null,
        at,
      );
    insertVideo(instance.db, {
      id: videoId,
      space_id: space.id,
      status: "generating",
      origin: "generation",
      generation_id: jobId,
      parent_video_id: null,
      created_at: at,
    });
    if (milli > 0 && !instance.ledger.debit(space.id, milli, jobId, "video generation")) {
      throw creditsError(credits, fromMilli(instance.ledger.balance(space.id)));
    }
    instance.jobs.enqueue({ kind: "generation", spaceId: space.id, ref: jobId, payload: { job_id: jobId }, maxAttempts: GENERATION_JOB_ATTEMPTS });
    ctx.keepStart?.(answer);
  });
  return answer;
}

function generationStatus(ctx: RequestContext, input: Record<string, unknown>): GenerationStatusResponse {
  const id = typeof input.job_id === "string" ? input.job_id : "";
  const row = readGeneration(ctx.instance, id);
  if (!row) throw codeError("JOB_NOT_FOUND", `Generation job not found: ${id}`);
  if (row.space_id !== ctx.space.id) throw codeError("UNAUTHORIZED_JOB", `Generation job ${id} does not belong to this space`);
  const out: GenerationStatusResponse = {
    job_id: row.id,
    status: row.status,
    progress_step: row.status === "pending" ? 0 : row.status === "completed" ? 100 : row.progress_step,
    current_step: row.status === "completed" ? null : row.status === "pending" ? "QUEUE" : (row.current_step ?? "QUEUE"),
  };
  if (row.status === "completed") {
    const video = readVideo(ctx.instance.db, row.video_id);
    out.result = {
      video_id: row.video_id,
      thumbnail_url: video?.thumbnail_path ? ctx.urls.media(video.thumbnail_path) : "",
      duration: (row.duration_ms ?? 0) / 1000,
      cost: fromMilli(row.cost_milli),
      created_at: video?.created_at ?? row.created_at,
    };
  }
  if (row.status === "failed") out.error = { code: row.error_code ?? "GENERATION_FAILED", message: row.error_message ?? "Generation failed" };
  return out;
}

export const generationHandlers: HandlerTable = {
  generationStart: (ctx, input) => generationStart(ctx, input as GenerationStartInput),
  generationStatus: (ctx, input) => generationStatus(ctx, input as Record<string, unknown>),
};
