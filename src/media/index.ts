/** The media production layer of the local instance: real files from ffmpeg and a TTS. */
export { getTools, clearToolsCache, type Tools, type ToolSource } from "./tools.js";
export { renderImage, type RenderImageOptions, type RenderImageResult } from "./image.js";
export { renderImageBatched } from "./image-batch.js";
export {
  renderVideo,
  resolveMode,
  DEFAULT_FPS,
  MAX_DURATION_SECONDS,
  type RenderVideoOptions,
  type RenderVideoResult,
  type VideoMode,
} from "./video.js";
export { synthesize, DEFAULT_VOICE, type SynthesizeOptions } from "./tts.js";
export { probe, type ProbeResult } from "./probe.js";
export { resolveMedia, resolveMediaFile, pruneCache, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, type ResolveMediaOptions } from "./fetch.js";
export { readWavInfo, type WavInfo } from "./wav.js";
export { findFont } from "./font.js";
export { MediaToolError, MediaInputError, RenderError, MediaFetchError, type MediaFetchReason } from "./errors.js";
