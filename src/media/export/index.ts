/** The export renderer: a video timeline (as a RenderSpec with absolute paths) → a verified MP4. */
export { renderExport, type RenderExportOptions, type RenderExportResult, type ExportStep, type ExportThumbnail } from "./render.js";
export {
  exportSize,
  planSpec,
  EXPORT_FPS,
  MAX_EXPORT_SIDE,
  WARN_EXPORT_SIDE,
  type ExportFormat,
  type ExportSize,
  type MediaShow,
  type RenderSpec,
  type RenderBlock,
  type RenderSequence,
  type RenderSentence,
  type RenderMedia,
} from "./spec.js";
export { ExportError, type ExportErrorCode } from "./errors.js";
export { exportCaps, type ExportCaps } from "./caps.js";
