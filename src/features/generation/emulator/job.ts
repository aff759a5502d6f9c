/**
 * The `generation` job: builds the video's timeline (build.ts) outside any transaction, reporting
 * each step on the generation row as it goes, then commits `completed` (the video `done` with its
 * timeline, the webhook) or `failed` (the video `failed`, the refund, the webhook). A step that
 * cannot be done fails at once with its code; a crash is retried by the queue and, out of attempts,
 * `giveUp` fails it with GENERATION_FAILED. The refund is keyed by the job id, so it happens once
 * whatever path gets there first (a worker killed mid-run included: its lease expires and the job
 * is run again or given up).
 */
import fs from "node:fs";
import path from "node:path";
import { fromMilli } from "../../../contract/credits.js";
import type { JobKind, JobRow, LocalInstanceApi } from "../../../local/types.js";
import { simulatedCustomCode, simulatedStep } from "../../asset/emulator/public/simulate.js";
import { markVideoDone, markVideoFailed, videoDir, readVideo } from "../../video/emulator/public/record.js";
import type { VideoTimeline } from "../../video/emulator/public/timeline.js";
import { buildTimeline, StepFailure, type StepName } from "./build.js";
import type { GenerationSpec } from "./request.js";
import { type JobFailure, refundFailedJob } from "../../../local/job-failure.js";

export const DEFAULT_FAILURE = "GENERATION_FAILED";
/** A build that dies with its worker is tried again before the job is failed and refunded. */
export const GENERATION_JOB_ATTEMPTS = 3;

export interface GenerationRow {
  id: string;
  space_id: string;
  status: "pending" | "processing" | "completed" | "failed";
  current_step: string | null;
  progress_step: number;
  spec: string;
  cost_milli: number;
  video_id: string;
  webhook_url: string | null;
  thumbnail_url: string | null;
  simulate: string | null;
  duration_ms: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export function readGeneration(instance: Pick<LocalInstanceApi, "db">, id: string | null): GenerationRow | undefined {
  if (!id) return undefined;
  return instance.db.prepare("SELECT * FROM generations WHERE id = ?").get(id) as GenerationRow | undefined;
}

/**
 * Fails the job, its video, refunds its debit (once) and notifies; a finished job is left alone.
 * Returns whether this call failed it, so only that caller removes the video's files.
 */
export function failGeneration(instance: LocalInstanceApi, id: string, failure: JobFailure): boolean {
  const row = readGeneration(instance, id);
  if (!row) return false;
  const at = instance.nowIso();
  const r = instance.db
    .prepare(
      `UPDATE generations SET status = 'failed', error_code = ?, error_message = ?, finished_at = ?,
         current_step = COALESCE(current_step, 'QUEUE') WHERE id = ? AND status IN ('pending', 'processing')`,
    )
    .run(failure.code, failure.message, at, id);
  if (r.changes !== 1) return false;
  markVideoFailed(instance.db, row.video_id, at);
  refundFailedJob(instance, row, "video generation failed", { task: "video_generate", job_id: row.id }, failure);
  return true;
}

function completeGeneration(instance: LocalInstanceApi, id: string, timeline: VideoTimeline): void {
  const row = readGeneration(instance, id);
  if (!row) return;
  const at = instance.nowIso();
  const r = instance.db
    .prepare(
      `UPDATE generations SET status = 'completed', current_step = NULL, progress_step = 100, duration_ms = ?, finished_at = ?
       WHERE id = ? AND status IN ('pending', 'processing')`,
    )
    .run(timeline.duration_ms, at, id);
  if (r.changes !== 1) return;
  markVideoDone(instance.db, row.video_id, timeline, at);
  if (row.webhook_url) {
    instance.webhooks.enqueue(row.space_id, row.webhook_url, {
      task: "video_generate",
      job_id: row.id,
      status: "completed",
      result: {
        video_id: row.video_id,
        thumbnail_url: row.thumbnail_url ?? "",
        cost: fromMilli(row.cost_milli),
        created_at: readVideo(instance.db, row.video_id)?.created_at ?? row.created_at,
      },
    });
  }
}

function removeVideoFiles(instance: LocalInstanceApi, videoId: string): void {
  fs.rmSync(path.join(instance.mediaDir, videoDir(videoId)), { recursive: true, force: true });
}

/**
 * Writes the step and its progress (0..100) on the row, moving it to `processing`. Writes are
 * skipped while neither changes by 5 points, so a long step costs a handful of transactions.
 */
function progressWriter(instance: LocalInstanceApi, id: string): (step: StepName, pct: number) => void {
  let last: { step: string; pct: number } | undefined;
  return (step, pct) => {
    const p = Math.max(0, Math.min(100, Math.round(pct)));
    if (last && last.step === step && Math.abs(p - last.pct) < 5 && p !== 100) return;
    last = { step, pct: p };
    instance.tx(() =>
      instance.db
        .prepare(
          `UPDATE generations SET status = 'processing', current_step = ?, progress_step = ?, started_at = COALESCE(started_at, ?)
           WHERE id = ? AND status IN ('pending', 'processing')`,
        )
        .run(step, p, instance.nowIso(), id),
    );
  };
}

export const generationKind: JobKind = {
  async run(job: JobRow, { instance, signal }) {
    const row = readGeneration(instance, job.ref);
    if (!row || (row.status !== "pending" && row.status !== "processing")) return { commit: () => {} };

    if (row.simulate) {
      const failure = { code: simulatedCustomCode(row.simulate) ?? DEFAULT_FAILURE, message: "Simulated failure" };
      // `fail:<CODE>@<STEP>` (a fault rule): the job is seen working in that step, then fails there.
      const step = simulatedStep(row.simulate);
      if (step) progressWriter(instance, row.id)(step as StepName, 0);
      return { commit: () => void failGeneration(instance, row.id, failure) };
    }
    const spec = JSON.parse(row.spec) as GenerationSpec;
    try {
      const timeline = await buildTimeline({
        db: instance.db,
        mediaDir: instance.mediaDir,
        spaceId: row.space_id,
        videoId: row.video_id,
        spec,
        signal,
        progress: progressWriter(instance, row.id),
      });
      return { commit: () => completeGeneration(instance, row.id, timeline) };
    } catch (e) {
      // A lost lease or a stopping worker is not the generation's fault: let the queue decide.
      if (signal.aborted || !(e instanceof StepFailure)) throw e;
      // Files go in the commit, which runs only while this worker still holds the job.
      return {
        commit: () => {
          if (failGeneration(instance, row.id, { code: e.code, message: e.message })) removeVideoFiles(instance, row.video_id);
        },
      };
    }
  },

  giveUp(instance, job, error) {
    const row = readGeneration(instance, job.ref);
    if (!row) return;
    const message = `Generation failed: ${error.split("\n")[0]}`;
    if (failGeneration(instance, row.id, { code: DEFAULT_FAILURE, message })) removeVideoFiles(instance, row.video_id);
  },
};

export const generationKinds: Record<string, JobKind> = { generation: generationKind };
