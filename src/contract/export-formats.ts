/** The export formats and their sizes (hosted-facts, POST /export/start), in one module without zod. */
export const EXPORT_FORMATS = ["vertical", "ads", "square", "horizontal", "custom"] as const;
export type ExportFormatName = (typeof EXPORT_FORMATS)[number];

/** Export sizes per format (hosted facts). */
export const EXPORT_SIZES: Record<string, { width: number; height: number }> = {
  vertical: { width: 1080, height: 1920 },
  ads: { width: 1080, height: 1350 },
  square: { width: 1080, height: 1080 },
  horizontal: { width: 1920, height: 1080 },
};

/** The avatar model the local instance uses when the request names none (the hosted service "picks a default"). */
export const DEFAULT_AVATAR_MODEL = "standard";
