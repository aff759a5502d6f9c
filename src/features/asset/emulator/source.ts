/**
 * The source video of a model that follows one (motion, edit, upscale), measured at start: its size
 * and length decide the output's, and upscale's price. Library assets carry them; a URL or local file
 * is fetched (cached, so the worker does not fetch it again) and probed before anything is debited.
 */
import path from "node:path";
import { removeQuietly } from "../../../media/atomic.js";
import { ApiError } from "../../../engine/errors.js";
import { MediaFetchError, probe, resolveMediaFile } from "../../../media/index.js";
import type { LocalInstanceApi } from "../../../local/types.js";
import type { ResolvedRef } from "./public/refs.js";
import { MAX_FOLLOW_SECONDS, type SourceInfo } from "./render-plan.js";

/** Where fetched reference media is cached (by hash), shared by validation and the worker. */
export function referenceCacheDir(instance: LocalInstanceApi): string {
  return path.join(instance.home, "local", "cache", "references");
}

/**
 * The source's size and length. `downloaded` names the file this call fetched into the cache: the
 * caller removes it if the request is then refused (short of credits, too long), so a space with no
 * credits cannot fill the disk. The error never carries server paths or the prober's output.
 */
export async function probeSource(
  instance: LocalInstanceApi,
  ref: ResolvedRef,
  field: string,
  allowPrivateNetwork: boolean,
): Promise<SourceInfo & { downloaded?: string }> {
  if (ref.durationSeconds !== undefined && ref.width !== undefined && ref.height !== undefined) {
    return { width: ref.width, height: ref.height, durationSeconds: ref.durationSeconds };
  }
  let fetched: { path: string; downloaded: boolean };
  try {
    fetched = await resolveMediaFile(ref.source, { cacheDir: referenceCacheDir(instance), allowPrivateNetwork, prune: true });
  } catch (e) {
    const why = e instanceof MediaFetchError ? e.message : "it could not be read";
    throw ApiError.of("invalid_value", `${field}: could not read the source video (${why})`, { field });
  }
  const info = await probe(fetched.path).catch(() => undefined);
  if (!info?.width || !info.height || !(info.durationSeconds > 0)) {
    if (fetched.downloaded) removeQuietly(fetched.path);
    throw ApiError.of("invalid_value", `${field}: could not read the source video (not a video with a picture and a length)`, { field });
  }
  return {
    width: info.width,
    height: info.height,
    durationSeconds: info.durationSeconds,
    ...(fetched.downloaded ? { downloaded: fetched.path } : {}),
  };
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
