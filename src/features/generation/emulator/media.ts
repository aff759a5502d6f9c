/**
 * Supplied media of a generation (voice_url, avatar_url, block audio_url, plan media urls,
 * media_urls, music_url), brought into the instance's media dir so the timeline names files that
 * stay: http(s) URLs are fetched into `fetched/` (by hash of the URL, so once), local files (in
 * process, or `serve --allow-local-files`) are copied there (by path, size and time). Audio that is
 * the voice is decoded once to the voice track's WAV format.
 */
import fs from "node:fs";
import path from "node:path";
import { probe } from "../../../media/probe.js";
import { resolveMedia } from "../../../media/fetch.js";
import { MediaInputError } from "../../../media/errors.js";
import { checkImageFile } from "../../../media/image-header.js";
import { readWavInfo } from "../../../media/wav.js";
import { decodeAudio, derivedName } from "../../video/emulator/public/speech.js";
import { extensionOf, isLocalRef } from "../plan.js";

export const FETCHED_DIR = "fetched";

/** How a fetch for this request may reach the network (RequestContext.allowPrivateNetwork) and be cancelled. */
export interface FetchPolicy {
  allowPrivateNetwork: boolean;
  signal?: AbortSignal;
}

/** The reference as a media-dir-relative file (fetched or copied on first need). */
export async function adopt(mediaDir: string, ref: string, o: FetchPolicy): Promise<string> {
  const cacheDir = path.join(mediaDir, FETCHED_DIR);
  const abs = await resolveMedia(ref, { cacheDir, allowPrivateNetwork: o.allowPrivateNetwork, ...(o.signal ? { signal: o.signal } : {}) });
  if (!isLocalRef(ref)) return path.relative(mediaDir, abs).split(path.sep).join("/");
  const st = fs.statSync(abs);
  const name = derivedName("file", `${abs}|${st.size}|${st.mtimeMs}`, extensionOf(abs));
  const rel = path.posix.join(FETCHED_DIR, name);
  const dest = path.join(mediaDir, rel);
  if (!fs.existsSync(dest)) {
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
    fs.copyFileSync(abs, tmp);
    fs.renameSync(tmp, dest);
  }
  return rel;
}

export interface Probed {
  width: number;
  height: number;
  duration_ms?: number;
}

/** Size (and a video's length) of an adopted picture or video; a file without a picture is a MediaInputError. */
export async function probeVisual(mediaDir: string, rel: string, kind: "image" | "video", field: string, signal?: AbortSignal): Promise<Probed> {
  // A picture is measured from its header before anything decodes it (decompression bombs).
  if (kind === "image") checkImageFile(path.join(mediaDir, rel), field);
  const info = await probe(path.join(mediaDir, rel), signal ? { signal } : {});
  if (!info.width || !info.height) throw new MediaInputError(`${field}: the file has no picture`, field);
  if (kind === "image") return { width: info.width, height: info.height };
  if (!(info.durationSeconds > 0)) throw new MediaInputError(`${field}: the video has no length`, field);
  return { width: info.width, height: info.height, duration_ms: Math.round(info.durationSeconds * 1000) };
}

/**
 * Supplied speech (an audio file, or a video's sound): adopted, then decoded to the voice track's
 * format once (`fetched/audio-….wav`). Returns that WAV and its exact length.
 */
export async function supplyAudio(mediaDir: string, ref: string, field: string, o: FetchPolicy): Promise<{ audio_path: string; ms: number }> {
  const rel = await adopt(mediaDir, ref, o);
  const signal = o.signal;
  const out = path.posix.join(FETCHED_DIR, derivedName("audio", rel, ".wav"));
  const abs = path.join(mediaDir, out);
  let info = fs.existsSync(abs) ? readWavInfo(abs) : undefined;
  if (!info) {
    await decodeAudio(path.join(mediaDir, rel), abs, field, signal);
    info = readWavInfo(abs);
  }
  if (!info || !(info.durationMs > 0)) throw new MediaInputError(`${field}: the file has no sound`, field);
  return { audio_path: out, ms: info.durationMs };
}
