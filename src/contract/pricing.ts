/**
 * Price formulas of the spec that do not depend on a model catalog. All return credits as numbers
 * that are exact in thousandths (see credits.ts). Asset prices are per model (local catalog).
 */

/** Video generation: 5 credits per started 30 s of (duration + 15 s buffer); +5 per animated image. */
export function generationCredits(durationSeconds: number, animatedImages = 0): number {
  const blocks = Math.max(1, Math.ceil((durationSeconds + 15) / 30));
  return blocks * 5 + animatedImages * 5;
}

/** Script generation: 0.1 per started 60 s, +0.1 with web search, +0.1 per URL. */
export function scriptCredits(durationSeconds: number, webSearch: boolean, urlCount: number): number {
  const tenths = Math.ceil(durationSeconds / 60) + (webSearch ? 1 : 0) + urlCount;
  return tenths / 10;
}

/** Avatar create (prompt-based) and avatar edit: 2 credits at 2K, 4 at 4K; image-based create is free. */
export function avatarCredits(resolution: string | undefined): number {
  return resolution === "4K" ? 4 : 2;
}

/** Avatar edit: the resolution's price, plus 1.5 credits with `upscale` (hosted-facts.md). */
export function avatarEditCredits(resolution: string | undefined, upscale: unknown): number {
  return avatarCredits(resolution) + (upscale === true ? 1.5 : 0);
}

/** Per-second price of premium avatar models on export (rate not shown by the spec; local choice). */
export const PREMIUM_AVATAR_MODEL_RATE: Record<string, number> = { premium: 0.1, ultra: 0.2 };

/**
 * Export: the first export of an API-made video is free; custom sizes wider than 1920 or taller than
 * 1080 add 2.5 credits per started 30 s; premium avatar models add their per-second rate for the
 * seconds the avatar is on screen.
 */
export function exportCredits(opts: {
  firstExport: boolean;
  format: string;
  width: number;
  height: number;
  durationSeconds: number;
  avatarModel?: string;
  avatarSeconds?: number;
}): number {
  let milli = 0;
  if (!opts.firstExport || opts.format === "custom") {
    if (opts.format === "custom" && (opts.width > 1920 || opts.height > 1080)) {
      milli += Math.ceil(opts.durationSeconds / 30) * 2500;
    }
  }
  const rate = opts.avatarModel ? PREMIUM_AVATAR_MODEL_RATE[opts.avatarModel] : undefined;
  if (rate) milli += Math.round(rate * 1000) * Math.ceil(opts.avatarSeconds ?? opts.durationSeconds);
  if (opts.firstExport && opts.format !== "custom" && !rate) return 0;
  return milli / 1000;
}
