/**
 * What `generate` can say about its price before starting (`--dry-run`, `--max-credits`, the
 * confirmation): the spec's rule (5 credits per started 30 s of video with a 15 s buffer, +5 per
 * animated image) applied to the length the request implies. A prompt's length is its `duration`;
 * a script's and a plan's are their speech, estimated from the text exactly as the local instance
 * estimates it (the hosted service prices the speech it makes, so there it is an estimate); supplied
 * speech (`voice_url`, `avatar_url`) is measured when the job starts, so its price is not known
 * before. Pure: no engine call.
 */
import { generationCredits } from "../../contract/pricing.js";
import { checkPlan, extensionOf, kindOfExtension, planEstimateMs, planHasMedia } from "./plan.js";
import { estimateSpeechMs } from "./text.js";

export interface GenerateEstimate {
  /** Credits the start would debit; null when it cannot be known before starting. */
  credits: number | null;
  /** The length the price follows, in seconds (null: unknown). */
  seconds: number | null;
  /** How the figure was reached, for people. */
  basis: string;
  /** True when the target computes exactly this figure (the local instance, but for media it cannot see). */
  exact: boolean;
}

const isImage = (u: unknown) => typeof u === "string" && kindOfExtension(extensionOf(u)) === "image";

export function estimateGenerate(body: Record<string, unknown>, target: "local" | "hosted"): GenerateEstimate {
  let ms: number | null = null;
  let basis: string;
  let exact = target === "local";
  let animatable = 0;
  let unsure = false;
  const plan = Array.isArray(body.sequence_plan) ? body.sequence_plan : undefined;
  if (plan) {
    const checked = checkPlan(plan, { allowLocalFiles: true });
    if (!checked.blocks) return { credits: null, seconds: null, basis: "the plan has problems", exact: false };
    ms = planEstimateMs(checked.blocks);
    basis = "the plan's speech, estimated from its text, and its silences";
    for (const b of checked.blocks) {
      for (const s of b.sequences) {
        const m = s.media as { url?: unknown; asset_id?: unknown } | null;
        if (!m) continue;
        if (m.asset_id !== undefined)
          unsure = true; // a library asset may be an image
        else if (isImage(m.url)) animatable++;
      }
    }
    if (!planHasMedia(checked.blocks) && Array.isArray(body.media_urls)) animatable += body.media_urls.filter(isImage).length;
  } else if (typeof body.script === "string" && body.script.trim() !== "") {
    ms = estimateSpeechMs(body.script);
    basis = "the script's speech, estimated from its text";
  } else if (typeof body.prompt === "string" && body.prompt.trim() !== "" && typeof body.duration === "number") {
    ms = body.duration * 1000;
    basis = "the duration asked";
  } else {
    return {
      credits: null,
      seconds: null,
      basis: "the price follows the length of the supplied speech, measured when the job starts",
      exact: false,
    };
  }
  if (!plan && Array.isArray(body.media_urls)) animatable += body.media_urls.filter(isImage).length;
  if (target === "hosted" && (plan || body.script !== undefined)) exact = false;
  let animated = 0;
  if (body.animate_image === true) {
    const max = typeof body.animate_image_max === "number" ? body.animate_image_max : Infinity;
    animated = Math.min(animatable, max);
    if (unsure) {
      exact = false;
      basis += "; library media that are images add 5 credits each when animated";
    }
    if (animated) basis += `; ${animated} animated image${animated === 1 ? "" : "s"} (+5 each)`;
  }
  const seconds = Math.round(ms / 100) / 10;
  return { credits: generationCredits(ms / 1000, animated), seconds, basis, exact };
}
