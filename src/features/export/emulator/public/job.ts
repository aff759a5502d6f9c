/**
 * The `export` job: renders a video's timeline to an MP4 with the export renderer
 * (src/media/export), reporting its step and progress on the export row, then commits `completed`
 * (the verified files moved to their published names, the webhook) or `failed` (the refund, once,
 * and the webhook).
 *
 * Lease-safe: each attempt renders into its own folder under `exports/<job_id>/` and the renderer
 * works under a temp name there; only the commit, which runs while the worker still holds the job,
 * moves files to the names a record points at, so nothing half-written is ever served. The job's
 * AbortSignal (lease lost, worker stopping) reaches the renderer, which kills its ffmpeg process
 * groups. A worker killed outright cannot do that: the next attempt, or the give-up, first kills
 * whatever is still running in the job's folder (reap.ts) and removes the old attempts' files.
 *
 * A render that fails with one of the spec's codes fails the export at once with that code; a crash
 * is retried by the queue and, out of attempts, given up with EXPORT_FAILED (as is a job whose
 * worker died with no attempts left). The refund is keyed by the job id: it happens once whatever
 * path gets there first.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fromMilli } from "../../../../contract/credits.js";
import { localDebug } from "../../../../local/debug.js";
import type { JobKind, JobRow, LocalInstanceApi } from "../../../../local/types.js";
import { removeQuietly } from "../../../../media/atomic.js";
import { MediaToolError } from "../../../../media/errors.js";
import { ExportError } from "../../../../media/export/errors.js";
import { renderExport, type ExportStep, type ExportThumbnail } from "../../../../media/export/render.js";
import { pruneCache } from "../../../../media/fetch.js";
import { getTools, type Tools } from "../../../../media/tools.js";
import { simulatedCustomCode, simulatedStep } from "../../../asset/emulator/public/simulate.js";
import { readVideo, timelineOf } from "../../../video/emulator/public/record.js";
import { thumbnailSize } from "../../../video/emulator/public/thumbnail.js";
import { reapProcessesUnder } from "../reap.js";
import { exportDir, publishedPaths, readExport, type ExportRow, type ExportStepName } from "../record.js";
import { renderSpecOf } from "./render-spec.js";
import { type JobFailure, refundFailedJob } from "../../../../local/job-failure.js";

export const DEFAULT_EXPORT_FAILURE = "EXPORT_FAILED";
/** A render that dies with its worker is tried again before the export is failed and refunded. */
export const EXPORT_JOB_ATTEMPTS = 3;
/** Progress is written at most this often (and only when its whole percent or its step changes). */
export const PROGRESS_WRITE_MS = 250;
/** Mixed soundtracks are cached here (media-dir-relative), so a re-export in another size mixes nothing. */
export const MIX_CACHE_DIR = "cache/export-mix";
const MIX_CACHE_MAX_BYTES = 256 * 1024 * 1024;

const debug = (text: string) => localDebug(text, "mediagen-local export");

/** Fails the export, refunds its debit (once) and notifies; a finished export is left alone. */
export function failExport(instance: LocalInstanceApi, id: string, failure: JobFailure): boolean {
  const row = readExport(instance, id);
  if (!row) return false;
  const r = instance.db
    .prepare(
      `UPDATE exports SET status = 'failed', error_code = ?, error_message = ?, finished_at = ?
       WHERE id = ? AND status IN ('pending', 'processing')`,
    )
    .run(failure.code, failure.message, instance.nowIso(), id);
  if (r.changes !== 1) return false;
  refundFailedJob(instance, row, "video export failed", { task: "video_export", job_id: row.id }, failure);
  debug(`${id} failed: ${failure.code}: ${failure.message}`);
  return true;
}

interface Rendered {
  ffmpeg: string;
  xfade: boolean;
  warnings: string[];
  renderMs: number;
}

function completeExport(instance: LocalInstanceApi, row: ExportRow, r: Rendered): boolean {
  const files = publishedPaths(row.id);
  const at = instance.nowIso();
  const u = instance.db
    .prepare(
      `UPDATE exports SET status = 'completed', current_step = 'render', progress = 100, video_path = ?, thumbnail_path = ?,
         ffmpeg = ?, xfade = ?, warnings = ?, render_ms = ?, finished_at = ?
       WHERE id = ? AND status IN ('pending', 'processing')`,
    )
    .run(files.video, files.thumbnail, r.ffmpeg, r.xfade ? 1 : 0, r.warnings.length ? JSON.stringify(r.warnings) : row.warnings, r.renderMs, at, row.id);
  if (u.changes !== 1) return false;
  if (row.webhook_url) {
    instance.webhooks.enqueue(row.space_id, row.webhook_url, {
      task: "video_export",
      job_id: row.id,
      status: "completed",
      result: { video_url: row.webhook_video_url ?? "", thumbnail_url: row.webhook_thumbnail_url ?? "", cost: fromMilli(row.cost_milli), created_at: at },
    });
  }
  return true;
}

/**
 * Writes the step and progress on the row, moving it to `processing`. Progress only grows: a retry
 * starts its render again, and the row keeps the furthest point reached (with that point's step)
 * until the new attempt passes it. Writes happen at most every PROGRESS_WRITE_MS, or at once when the
 * step changes; the last value is always written (`flush`).
 */
export function progressWriter(instance: LocalInstanceApi, id: string, now: () => number = () => performance.now()) {
  let latest: { step: ExportStepName; pct: number } | undefined;
  let written: { step: ExportStepName; pct: number } | undefined;
  let lastWrite = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const write = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!latest || stopped || (written && written.step === latest.step && written.pct === latest.pct)) return;
    const v = latest;
    written = v;
    lastWrite = now();
    try {
      instance.tx(() =>
        instance.db
          .prepare(
            `UPDATE exports SET status = 'processing', started_at = COALESCE(started_at, @at),
               current_step = CASE WHEN @pct >= progress THEN @step ELSE current_step END,
               progress = MAX(progress, @pct)
             WHERE id = @id AND status IN ('pending', 'processing')`,
          )
          .run({ at: instance.nowIso(), pct: v.pct, step: v.step, id }),
      );
    } catch (e) {
      // Progress is a display: a busy database must not fail the render.
      debug(`${id}: writing progress failed: ${(e as Error).message}`);
    }
  };
  return {
    update(step: ExportStepName, pct: number): void {
      latest = { step, pct: Math.max(0, Math.min(99, Math.floor(pct))) };
      if (stopped) return;
      const elapsed = now() - lastWrite;
      if (!written || written.step !== step || elapsed >= PROGRESS_WRITE_MS) write();
      else if (!timer) {
        timer = setTimeout(write, PROGRESS_WRITE_MS - elapsed);
        timer.unref();
      }
    },
    flush: write,
    stop(): void {
      if (timer) clearTimeout(timer);
      timer = undefined;
      stopped = true;
    },
  };
}

/** The export's thumbnail: a frame of the output (at 1 s, or mid-video when shorter), long side 640, JPEG. */
function thumbnailOf(out: string): ExportThumbnail {
  return { out, size: thumbnailSize, at: (seconds) => Math.min(1, seconds / 2) };
}

/** The tools an attempt runs, recorded so a give-up (which cannot detect tools) knows what to reap. */
function toolPathsOf(row: Pick<ExportRow, "tool_paths">): string[] {
  try {
    const v = row.tool_paths ? (JSON.parse(row.tool_paths) as unknown) : [];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/** Kills what earlier attempts left running in the export's folder, and removes their files. */
export function clearEarlierAttempts(instance: LocalInstanceApi, row: Pick<ExportRow, "id" | "tool_paths">, tools: readonly string[] = []): void {
  const dir = path.join(instance.mediaDir, exportDir(row.id));
  if (!fs.existsSync(dir)) return;
  const reaped = reapProcessesUnder(dir, [...new Set([...tools, ...toolPathsOf(row)])]);
  if (reaped.length) debug(`${row.id}: killed ${reaped.length} process(es) left by an earlier attempt: ${reaped.map((p) => `${p.command} ${p.pid}`).join(", ")}`);
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith("attempt-")) removeQuietly(path.join(dir, name));
  }
}

function toolsLine(tools: Tools): string {
  return `ffmpeg ${tools.ffmpegVersion} (${tools.source === "npm" ? "npm fallback" : tools.source === "env" ? "MEDIAGEN_FFMPEG" : "system"}: ${tools.ffmpeg})`;
}

export const exportKind: JobKind = {
  async run(job: JobRow, { instance, signal }) {
    const row = readExport(instance, job.ref);
    if (!row || (row.status !== "pending" && row.status !== "processing")) return { commit: () => {} };
    const failWith = (f: JobFailure) => ({ commit: () => void failExport(instance, row.id, f) });

    if (row.simulate) {
      clearEarlierAttempts(instance, row);
      // `fail:<CODE>@<STEP>` (a fault rule): the export is seen in that step, then fails there.
      const step = simulatedStep(row.simulate);
      if (step) progressWriter(instance, row.id).update(step as ExportStepName, 0);
      return failWith({ code: simulatedCustomCode(row.simulate) ?? DEFAULT_EXPORT_FAILURE, message: "Simulated failure (X-Local-Simulate)" });
    }
    let tools: Tools;
    try {
      tools = await getTools();
    } catch (e) {
      if (e instanceof MediaToolError) return failWith({ code: DEFAULT_EXPORT_FAILURE, message: e.message });
      throw e;
    }
    clearEarlierAttempts(instance, row, [tools.ffmpeg, tools.ffprobe]);
    instance.tx(() => instance.db.prepare("UPDATE exports SET tool_paths = ? WHERE id = ?").run(JSON.stringify([tools.ffmpeg, tools.ffprobe]), row.id));

    const video = readVideo(instance.db, row.video_id);
    const timeline = video?.status === "done" ? timelineOf(video) : undefined;
    if (!timeline) return failWith({ code: DEFAULT_EXPORT_FAILURE, message: `Video ${row.video_id} is no longer available to export` });

    const dir = path.join(instance.mediaDir, exportDir(row.id));
    const attempt = path.join(dir, `attempt-${job.attempts}-${crypto.randomBytes(4).toString("hex")}`);
    const out = path.join(attempt, "video.mp4");
    const thumb = path.join(attempt, "thumbnail.jpg");
    const progress = progressWriter(instance, row.id);
    const t0 = performance.now();
    try {
      fs.mkdirSync(attempt, { recursive: true });
      progress.update("render-audio", 0);
      const spec = renderSpecOf(timeline, { width: row.width, height: row.height }, instance.mediaDir);
      const r = await renderExport(spec, {
        outPath: out,
        signal,
        tools,
        cacheDir: path.join(instance.mediaDir, MIX_CACHE_DIR),
        onProgress: (step: ExportStep, pct: number) => progress.update(step, pct),
        thumbnail: thumbnailOf(thumb),
      });
      progress.flush();
      progress.stop();
      pruneCache(path.join(instance.mediaDir, MIX_CACHE_DIR), { maxBytes: MIX_CACHE_MAX_BYTES });
      const rendered: Rendered = { ffmpeg: toolsLine(tools), xfade: r.usedXfade, warnings: r.warnings, renderMs: Math.round(performance.now() - t0) };
      debug(
        `${row.id}: rendered ${r.width}x${r.height}, ${r.frames} frames in ${rendered.renderMs} ms with ${rendered.ffmpeg}; ` +
          `transitions ${r.usedXfade ? "with xfade" : "through black (no xfade)"}${r.warnings.length ? `; ${r.warnings.join("; ")}` : ""}`,
      );
      return {
        commit: () => {
          const current = readExport(instance, row.id);
          if (!current || (current.status !== "pending" && current.status !== "processing")) return;
          const files = publishedPaths(row.id);
          const videoAt = path.join(instance.mediaDir, files.video);
          let moved = false;
          try {
            fs.renameSync(out, videoAt);
            moved = true;
            fs.renameSync(thumb, path.join(instance.mediaDir, files.thumbnail));
          } catch (e) {
            const code = (e as NodeJS.ErrnoException).code ?? String(e);
            if (failExport(instance, row.id, { code: "STORAGE_FAILED", message: `cannot publish the rendered file (${code})` })) {
              removeQuietly(attempt);
              // A failed export publishes nothing, not even the half of it that moved.
              if (moved) removeQuietly(videoAt);
            }
            return;
          }
          completeExport(instance, current, rendered);
          removeQuietly(attempt);
        },
      };
    } catch (e) {
      progress.stop();
      removeQuietly(attempt);
      // A lost lease or a stopping worker is not the export's fault: let the queue decide.
      if (signal.aborted) throw e;
      if (e instanceof ExportError && !e.aborted) return failWith({ code: e.code, message: e.message });
      if (e instanceof MediaToolError) return failWith({ code: DEFAULT_EXPORT_FAILURE, message: e.message });
      throw e;
    }
  },

  giveUp(instance, job, error) {
    const row = readExport(instance, job.ref);
    if (!row) return;
    clearEarlierAttempts(instance, row);
    failExport(instance, row.id, { code: DEFAULT_EXPORT_FAILURE, message: `Export failed: ${error.split("\n")[0]}` });
  },
};

export const exportKinds: Record<string, JobKind> = { export: exportKind };
