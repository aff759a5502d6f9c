/**
 * The source video of a model that follows one (motion, edit, upscale), measured at start: its size
 * and length decide the output's, and upscale's price. Library assets carry them; a URL or local file
 * is fetched (cached, so the worker does not fetch it again) and probed before anything is debited.
 */
import path from "node:path";
import { ApiError } from "../../engine/errors.js";
import { probe, resolveMedia } from "../../media/index.js";
import type { LocalInstanceApi } from "../../local/types.js";
import type { ResolvedRef } from "./refs.js";
import { MAX_FOLLOW_SECONDS, type SourceInfo } from "./render-plan.js";

/** Where fetched reference media is cached (by hash), shared by validation and the worker. */
export function referenceCacheDir(instance: LocalInstanceApi): string {
  return path.join(instance.home, "local", "cache", "references");
}

export async function probeSource(instance: LocalInstanceApi, ref: ResolvedRef, field: string, allowPrivateNetwork: boolean): Promise<SourceInfo> {
  if (ref.durationSeconds !== undefined && ref.width !== undefined && ref.height !== undefined) {
    return { width: ref.width, height: ref.height, durationSeconds: ref.durationSeconds };
  }
  try {
    const file = await resolveMedia(ref.source, { cacheDir: referenceCacheDir(instance), allowPrivateNetwork });
    const info = await probe(file);
    if (!info.width || !info.height || !(info.durationSeconds > 0)) throw new Error("no picture or no length");
    return { width: info.width, height: info.height, durationSeconds: info.durationSeconds };
  } catch (e) {
    throw ApiError.of("invalid_value", `${field}: could not read the source video (${(e as Error).message})`, { field });
  }
}

/**
 * Upscale is priced by the source's length but renders at most MAX_FOLLOW_SECONDS: a longer source
 * is refused rather than charged for seconds it would not get.
 */
export function checkPricedSourceLength(source: SourceInfo, field: string): void {
  if (source.durationSeconds > MAX_FOLLOW_SECONDS) {
    const secs = Math.round(source.durationSeconds * 10) / 10;
    throw ApiError.of("invalid_value", `${field} is ${secs} s long; this model takes sources of at most ${MAX_FOLLOW_SECONDS} s`, { field });
  }
}
