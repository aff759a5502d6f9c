/**
 * Export endpoints of the local instance. Start checks everything first (request.ts; nothing is
 * written by a refused request), then in one IMMEDIATE transaction prices the export (whether it is
 * the video's first counts), checks the balance, creates the row, debits the estimate and queues the
 * render. Status reads the row the job keeps current; completed links expire 7 days after completion.
 */
import { fromMilli, toMilli } from "../../../contract/credits.js";
import { ApiError } from "../../../engine/errors.js";
import type { HandlerTable, RequestContext } from "../../../local/types.js";
import { parseSimulate } from "../../asset/emulator/public/simulate.js";
import { allLookViews } from "../../avatar/emulator/public/records.js";
import { codeError } from "../../generation/emulator/public/errors.js";
import { checkWebhookAddress } from "../../../local/webhook-address.js";
import { readVideo } from "../../video/emulator/public/record.js";
import type { ExportJob, ExportStartInput, ExportStartResponse } from "../contract.js";
import { EXPORT_JOB_ATTEMPTS } from "./public/job.js";
import { EXPORT_URL_TTL_SECONDS, hasCountingExport, publishedPaths, readExport } from "./record.js";
import { exportPrice, validateExportStart, type ExportLookups } from "./request.js";

function lookups(ctx: RequestContext): ExportLookups {
  let models: Map<string, string[]> | undefined;
  const looks = () => (models ??= new Map(allLookViews(ctx.instance.db, ctx.space.id, false).map((v) => [v.id, v.model_available])));
  return {
    video: (id) => readVideo(ctx.instance.db, id),
    lookModels: (id) => looks().get(id),
    knownModels: () => new Set([...looks().values()].flat()),
  };
}

/**
 * 402 as the hosted service names it for exports (`insufficient_credits`): the spec's envelope with
 * the code, plus the amounts of its credit-shortage shape.
 */
function shortage(required: number, available: number): ApiError {
  const message = `Insufficient credits: ${required} required, ${available} available`;
  return new ApiError(402, { error: message, details: [{ code: "insufficient_credits", message }], required, available });
}

async function exportStart(ctx: RequestContext, input: ExportStartInput): Promise<ExportStartResponse> {
  const { instance, space } = ctx;
  const simulate = parseSimulate(ctx.simulate);
  const plan = validateExportStart(input, space.id, lookups(ctx));
  await checkWebhookAddress(ctx, plan.webhook_url, (why) => codeError("INVALID_VALUE", `webhook_url ${why}`, "webhook_url"));
  const jobId = instance.ids.prefixed("exp_");
  const files = publishedPaths(jobId);

  const answer = instance.tx(() => {
    // Whether this is the video's first export is decided with the insert, so two starts at once
    // cannot both be the first.
    const first = !hasCountingExport(instance, plan.video.id);
    const price = exportPrice(plan, first);
    const milli = toMilli(price);
    const available = instance.ledger.balance(space.id);
    if (available < milli) throw shortage(price, fromMilli(available));
    instance.db
      .prepare(
        `INSERT INTO exports (id, space_id, video_id, status, current_step, progress, format, width, height, avatar_model,
           first_export, cost_milli, webhook_url, webhook_video_url, webhook_thumbnail_url, simulate, warnings, created_at)
         VALUES (?, ?, ?, 'pending', 'render-audio', 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        jobId,
        space.id,
        plan.video.id,
        plan.format,
        plan.width,
        plan.height,
        plan.avatar_model,
        first ? 1 : 0,
        milli,
        plan.webhook_url,
        plan.webhook_url ? ctx.urls.media(files.video, EXPORT_URL_TTL_SECONDS) : null,
        plan.webhook_url ? ctx.urls.media(files.thumbnail, EXPORT_URL_TTL_SECONDS) : null,
        simulate ?? null,
        plan.warnings.length ? JSON.stringify(plan.warnings) : null,
        instance.nowIso(),
      );
    if (milli > 0 && !instance.ledger.debit(space.id, milli, jobId, `video export (${plan.format} ${plan.width}x${plan.height})`)) {
      throw shortage(price, fromMilli(instance.ledger.balance(space.id)));
    }
    instance.jobs.enqueue({ kind: "export", spaceId: space.id, ref: jobId, payload: { job_id: jobId }, maxAttempts: EXPORT_JOB_ATTEMPTS });
    const answer: ExportStartResponse = { job_id: jobId, status: "pending", estimated_credits: price };
    ctx.keepStart?.(answer);
    return answer;
  });
  return answer;
}

/** Seconds a completed export's links still have: 7 days from completion (at least 1 s). */
export function remainingTtlSeconds(finishedAt: string, nowMs: number): number {
  const until = Date.parse(finishedAt) + EXPORT_URL_TTL_SECONDS * 1000;
  // 0 or less once the 7 days are over: the link handed out is already stale (docs/local-differences.md).
  return Math.floor((until - nowMs) / 1000);
}

function exportStatus(ctx: RequestContext, input: Record<string, unknown>): ExportJob {
  const id = typeof input.job_id === "string" ? input.job_id : "";
  const row = readExport(ctx.instance, id);
  if (!row) throw codeError("JOB_NOT_FOUND", `Export job not found: ${id}`);
  if (row.space_id !== ctx.space.id) throw codeError("UNAUTHORIZED_JOB", `Export job ${id} does not belong to this space`);
  const out: ExportJob = { job_id: row.id, status: row.status, progress: row.progress, current_step: row.current_step };
  if (row.status === "completed") {
    const ttl = remainingTtlSeconds(row.finished_at!, ctx.instance.clock.now());
    out.result = {
      video_url: ctx.urls.media(row.video_path!, ttl),
      thumbnail_url: row.thumbnail_path ? ctx.urls.media(row.thumbnail_path, ttl) : "",
      cost: fromMilli(row.cost_milli),
      created_at: row.finished_at!,
    };
  }
  if (row.status === "failed") out.error = { code: row.error_code!, message: row.error_message ?? "Export failed" };
  return out;
}

export const exportHandlers: HandlerTable = {
  // The door (the operation's schema) passed the request: the handler takes its type.
  exportStart: (ctx, input) => exportStart(ctx, input as ExportStartInput),
  exportStatus: (ctx, input) => exportStatus(ctx, input as Record<string, unknown>),
};
