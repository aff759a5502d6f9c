/**
 * The `asset` job: renders one generation outside any transaction, then commits `completed` (with
 * the probed size and length) or `failed` + refund + webhook. A simulated failure, an unreachable
 * reference or a render error ends the asset `failed` at once; anything else (a crash, a bug) is
 * retried by the queue and, out of attempts, `giveUp` takes the same failed path. The refund is
 * keyed by the asset id, so it happens once whatever path gets there first.
 */
import fs from "node:fs";
import path from "node:path";
import type { WebhookPayload } from "../../../contract/webhook.js";
import { MediaFetchError, MediaInputError, MediaToolError, RenderError } from "../../../media/errors.js";
import { checkImageFile, ImageTooLargeError } from "../../../media/image-header.js";
import { probe, renderImageBatched, renderVideo, resolveMedia, type VideoMode } from "../../../media/index.js";
import type { RenderMode } from "./catalog/models.js";
import type { AssetRow, RenderParams } from "./public/record.js";
import type { ResolvedRef } from "./public/refs.js";
import { followedSource, paramsOfOutput, planRender, type SourceInfo } from "./render-plan.js";
import { simulatedCode } from "./public/simulate.js";
import { referenceCacheDir } from "./source.js";
import { ensureAvatarThumbnail } from "../../avatar/emulator/public/lookup.js";
import type { JobKind, JobRow, LocalInstanceApi } from "../../../local/types.js";
import { type JobFailure, refundFailedJob } from "../../../local/job-failure.js";

function loadRow(instance: LocalInstanceApi, id: string | null): AssetRow | undefined {
  if (!id) return undefined;
  return instance.db.prepare("SELECT * FROM assets WHERE id = ?").get(id) as AssetRow | undefined;
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? text;
  return line.length > 300 ? line.slice(0, 300) + "…" : line;
}

/** Errors that mean "this generation cannot be made", as opposed to a crash worth retrying. */
function classify(e: unknown): JobFailure | undefined {
  if (e instanceof ImageTooLargeError) return { code: "reference_too_large", message: `A reference is too large: ${firstLine(e.message)}` };
  if (e instanceof MediaFetchError) return { code: "reference_unavailable", message: `A reference could not be fetched: ${firstLine(e.message)}` };
  if (e instanceof RenderError || e instanceof MediaInputError || e instanceof MediaToolError) {
    return { code: "render_failed", message: `Rendering failed: ${firstLine(e.message)}` };
  }
  return undefined;
}

function webhook(instance: LocalInstanceApi, row: AssetRow, payload: Pick<WebhookPayload, "status" | "result" | "error">): void {
  if (!row.webhook_url) return;
  instance.webhooks.enqueue(row.space_id, row.webhook_url, { task: "asset_generation", asset_id: row.id, ...payload });
}

/**
 * Marks the asset failed, refunds its debit (once) and notifies; a finished asset is left alone.
 * Returns whether this call failed it, so only the one that did removes its files.
 */
export function failAsset(instance: LocalInstanceApi, id: string, failure: JobFailure): boolean {
  const row = loadRow(instance, id);
  if (!row) return false;
  const r = instance.db
    .prepare("UPDATE assets SET status = 'failed', error_code = ?, error_message = ?, finished_at = ? WHERE id = ? AND status IN ('generating', 'pending')")
    .run(failure.code, failure.message, instance.nowIso(), id);
  if (r.changes !== 1) return false;
  refundFailedJob(instance, row, `asset ${row.model} failed`, { task: "asset_generation", asset_id: row.id }, failure);
  return true;
}

/** Fails the asset and, if this call did, removes whatever a render left of it. Call from a commit. */
function failAndClean(instance: LocalInstanceApi, row: AssetRow, failure: JobFailure): void {
  if (failAsset(instance, row.id, failure)) removeOutputs(instance, row);
}

function completeAsset(instance: LocalInstanceApi, id: string, out: { width: number; height: number; durationSeconds: number | null }): void {
  const row = loadRow(instance, id);
  if (!row) return;
  const params = JSON.parse(row.params) as RenderParams;
  // A model that follows its source records the parameters its output actually has.
  const effective =
    followedSource(params.render, params) && out.durationSeconds !== null
      ? paramsOfOutput({ width: out.width, height: out.height, durationSeconds: out.durationSeconds })
      : { aspectRatio: row.aspect_ratio, resolution: row.resolution, duration: row.duration };
  const r = instance.db
    .prepare(
      `UPDATE assets SET status = 'completed', width = ?, height = ?, duration_seconds = ?, aspect_ratio = ?, resolution = ?,
         duration = ?, finished_at = ? WHERE id = ? AND status = 'generating'`,
    )
    .run(out.width, out.height, out.durationSeconds, effective.aspectRatio, effective.resolution, effective.duration, instance.nowIso(), id);
  if (r.changes !== 1) return;
  const result: Record<string, unknown> = { asset_url: params.urls.media, asset_type: row.type, width: out.width, height: out.height };
  if (row.type === "video") result.duration_seconds = out.durationSeconds;
  webhook(instance, row, { status: "completed", result });
}

/** Every input with the field that named it (references[i], a slot, elements[i].images[j]). */
function inputsWithFields(params: RenderParams): [ResolvedRef, string][] {
  return [
    ...params.references.map((r, i): [ResolvedRef, string] => [r, `references[${i}]`]),
    ...Object.entries(params.slots).flatMap(([name, r]): [ResolvedRef, string][] => (r ? [[r, name]] : [])),
    ...params.elements.flatMap((e, i) => e.images.map((r, j): [ResolvedRef, string] => [r, `elements[${i}].images[${j}]`])),
  ];
}

/**
 * Every input as a local file: library files and avatar pictures as they are, URLs fetched into the
 * cache. Each picture is measured from its header before anything decodes it (a decompression bomb
 * fails the generation here, refunded, instead of costing a gigabyte per reference in ffmpeg).
 */
async function localInputs(instance: LocalInstanceApi, row: AssetRow, params: RenderParams, signal: AbortSignal) {
  const files = new Map<string, string>();
  const cacheDir = referenceCacheDir(instance);
  for (const [ref, field] of inputsWithFields(params)) {
    if (files.has(ref.source)) continue;
    signal.throwIfAborted();
    let file: string;
    if (ref.item.avatar_id) {
      const thumb = await ensureAvatarThumbnail(instance, row.space_id, ref.item.avatar_id, signal);
      if (!thumb) throw new MediaFetchError(`avatar ${ref.item.avatar_id} has no picture any more`, "not_found");
      file = thumb;
    } else if (ref.item.asset_id) {
      if (!fs.existsSync(ref.source)) throw new MediaFetchError(`asset ${ref.item.asset_id} has no file any more`, "not_found");
      file = ref.source;
    } else {
      // Rows written before the policy existed came from in-process or loopback use: allowed, as then.
      file = await resolveMedia(ref.source, { cacheDir, signal, allowPrivateNetwork: params.allowPrivateNetwork ?? true, prune: true });
    }
    if (ref.kind === "image") checkImageFile(file, `${field}.${Object.keys(ref.item)[0]}`);
    files.set(ref.source, file);
  }
  return (ref: ResolvedRef) => files.get(ref.source)!;
}

async function render(instance: LocalInstanceApi, row: AssetRow, signal: AbortSignal) {
  const params = JSON.parse(row.params) as RenderParams;
  const local = await localInputs(instance, row, params, signal);
  let source: SourceInfo | undefined;
  const followed = followedSource(params.render, params);
  if (followed) {
    const info = await probe(local(followed), { signal });
    if (!info.width || !info.height || !(info.durationSeconds > 0)) {
      throw new MediaInputError("the source video has no picture or no length", "source_video");
    }
    source = { width: info.width, height: info.height, durationSeconds: info.durationSeconds };
  }
  const plan = planRender(row, params, local, source);
  const out = path.join(instance.mediaDir, row.file_path);
  fs.mkdirSync(path.dirname(out), { recursive: true });

  if (plan.kind === "image") {
    const { kind: _k, ...opts } = plan;
    // Each generation its own seed, as a model's: `--count 2` makes two different pictures. Pictures
    // the worker draws at the same time share one ffmpeg run.
    await renderImageBatched({ ...opts, out, seed: row.id, signal });
    return { width: plan.width, height: plan.height, durationSeconds: null };
  }
  const { kind: _k, mode, ...opts } = plan;
  const thumbnailOut = row.thumbnail_path ? path.join(instance.mediaDir, row.thumbnail_path) : undefined;
  // renderVideo probes and checks its output before renaming it into place: its figures are the file's.
  const info = await renderVideo({
    ...opts,
    mode: videoMode(mode, plan.startImage !== undefined),
    // A stand-in for a model's video: x264's quickest preset costs a third less CPU than veryfast
    // for a file about 2.5 times as large (1.3 MB a minute at 720p instead of 0.5), which a stand-in can spare.
    preset: "ultrafast",
    seed: row.id,
    out,
    ...(thumbnailOut ? { thumbnailOut } : {}),
    cacheDir: speechCacheDir(instance),
    signal,
  });
  return {
    width: info.width,
    height: info.height,
    durationSeconds: Math.round(info.durationSeconds * 1000) / 1000,
  };
}

/** How the renderer depicts each model family. A start/end model given no start image is text-to-video. */
function videoMode(mode: RenderMode, hasStartImage: boolean): VideoMode {
  switch (mode) {
    case "frames":
      return hasStartImage ? "first-last" : "generate";
    case "extend":
    case "motion":
    case "edit":
    case "upscale":
      return mode;
    default:
      return "generate";
  }
}

function speechCacheDir(instance: LocalInstanceApi): string {
  return path.join(instance.home, "local", "cache", "speech");
}

function removeOutputs(instance: LocalInstanceApi, row: AssetRow): void {
  fs.rmSync(path.join(instance.mediaDir, path.dirname(row.file_path)), { recursive: true, force: true });
}

export const assetKind: JobKind = {
  async run(job: JobRow, ctx) {
    const { instance, signal } = ctx;
    const row = loadRow(instance, job.ref);
    if (row?.status !== "generating") return { commit: () => {} };

    if (row.simulate) {
      const failure = { code: simulatedCode(row.simulate), message: "Simulated failure" };
      return { commit: () => failAndClean(instance, row, failure) };
    }
    try {
      const out = await render(instance, row, signal);
      return { commit: () => completeAsset(instance, row.id, out) };
    } catch (e) {
      // A lost lease or a stopping worker is not the generation's fault: let the queue decide.
      if (signal.aborted) throw e;
      const failure = classify(e);
      if (!failure) throw e;
      // Files are removed in the commit, which runs only while this worker still holds the lease: a
      // worker whose lease expired must not delete what the job's new holder is writing.
      return { commit: () => failAndClean(instance, row, failure) };
    }
  },

  giveUp(instance, job, error) {
    const row = loadRow(instance, job.ref);
    if (!row) return;
    failAndClean(instance, row, { code: "generation_failed", message: `Generation failed: ${firstLine(error)}` });
  },
};

export const assetKinds: Record<string, JobKind> = { asset: assetKind };
