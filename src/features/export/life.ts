/**
 * The life of an export (see src/features/life.ts): a paid start (the first export of an API-made
 * video is free; a custom size above 1920x1080 adds 2.5 credits per started 30 s; premium avatar
 * models are billed per second of avatar on screen). Without `format` the video's own format is
 * used, which is never a custom size, so only a premium avatar model leaves the price unknown. The job
 * (`exp_…`) is polled on the spec's export schedule and saves as its MP4.
 */
import { exportSchedule } from "../../contract/poll.js";
import { PREMIUM_AVATAR_MODEL_RATE } from "../../contract/pricing.js";
import { withArticle } from "../../engine/words.js";
import { COMPLETED_OR_FAILED, resultOf, num, statusByJobId, str, type Body, type FeatureLife, type Price, type PriceTools } from "../life.js";

/**
 * An export's price before it starts, when the video's length is not known here. Without `format`
 * the video's own format is used: its price is known when this machine made the video (the history
 * keeps the format its generation asked for), and not otherwise (a custom size above 1920x1080 costs more).
 */
export function exportPriceBefore(input: Body, tools?: PriceTools): Price {
  const model = str(input.avatar_model);
  if (model && PREMIUM_AVATAR_MODEL_RATE[model] !== undefined) {
    return { credits: null, exact: false, basis: `avatar_model ${model} is billed per second of avatar on screen, known when the export starts` };
  }
  const own = str(input.format) ? undefined : str(input.video_id) ? tools?.videoFormat?.(String(input.video_id)) : undefined;
  if (!str(input.format) && !own) {
    return {
      credits: null,
      exact: false,
      basis:
        "without format the video's own format is used, unknown here (the video was not made from this machine's history), and a custom size above 1920x1080 costs more; give format to know the price",
    };
  }
  const format = str(input.format) ?? own!.format;
  const w = num(input.width) ?? own?.width ?? 1080;
  const h = num(input.height) ?? own?.height ?? 1920;
  if (format === "custom" && (w > 1920 || h > 1080)) {
    return { credits: null, exact: false, basis: "a custom size above 1920x1080 adds 2.5 credits per started 30 s of the video, known when the export starts" };
  }
  return { credits: 0, exact: true, basis: `${withArticle(format)} export${own ? " (the video's own format)" : ""} with a standard avatar model costs nothing` };
}

export const exportLife: FeatureLife = {
  operations: {
    exportStart: {
      batch: { kind: "export" },
      makes: "export",
      effect: "paid start",
      what: (input) => `an export of video ${str(input.video_id) ?? ""}`.trim(),
      price: exportPriceBefore,
      debited: (res) => num(res.estimated_credits),
      started: (input, res) => {
        const id = str(res.job_id);
        return id
          ? [
              {
                kind: "export",
                id,
                model: str(input.avatar_model) ?? null,
                cost: num(res.estimated_credits) ?? null,
                status: str(res.status) ?? "pending",
                ...(str(input.video_id) ? { video_id: String(input.video_id) } : {}),
              },
            ]
          : [];
      },
    },
    exportStatus: { effect: "read", statusOf: "export" },
  },
  jobs: {
    export: {
      kind: "export",
      noun: "export",
      idShape: /^exp_/,
      status: statusByJobId("exportStatus", exportSchedule),
      terminal: COMPLETED_OR_FAILED,
      refund: "local",
      result: (s) => {
        const url = str(resultOf(s).video_url);
        return url ? { url, ext: "mp4", type: "video" } : undefined;
      },
    },
  },
};
