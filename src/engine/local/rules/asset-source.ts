/**
 * Length of a source video whose price depends on it (upscale). Library assets carry their duration;
 * a URL or local file is fetched (cached) and probed once at start, before anything is debited.
 */
import path from "node:path";
import { ApiError } from "../../errors.js";
import { probe, resolveMedia } from "../media/index.js";
import type { LocalInstanceApi } from "../types.js";
import type { ResolvedRef } from "./asset-refs.js";

/** Where fetched reference media is cached (by hash), shared by validation and the worker. */
export function referenceCacheDir(instance: LocalInstanceApi): string {
  return path.join(instance.home, "local", "cache", "references");
}

export async function measureSource(instance: LocalInstanceApi, ref: ResolvedRef, field = "source_video"): Promise<number> {
  if (ref.durationSeconds !== undefined) return ref.durationSeconds;
  try {
    const file = await resolveMedia(ref.source, { cacheDir: referenceCacheDir(instance) });
    const info = await probe(file);
    const seconds = info.durationSeconds;
    if (!(typeof seconds === "number" && seconds > 0)) throw new Error("no duration");
    return seconds;
  } catch (e) {
    throw ApiError.of("invalid_value", `${field}: could not read the source video (${(e as Error).message})`, { field });
  }
}
