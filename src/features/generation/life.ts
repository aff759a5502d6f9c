/**
 * The life of a video generation (see src/features/life.ts): a paid start debited at its estimate
 * (5 credits per started 30 s with a 15 s buffer, +5 per animated image), priced before sending by
 * the same estimate (`./estimate.ts`, loaded when asked). The job (`run_…`) is polled on the spec's
 * generation schedule; it makes a video to export, and what it saves itself is that video's thumbnail.
 */
import { generationSchedule } from "../../contract/poll.js";
import { COMPLETED_OR_FAILED, resultOf, extOf, num, statusByJobId, str, type FeatureLife } from "../life.js";

export const generationLife: FeatureLife = {
  operations: {
    generationStart: {
      batch: { kind: "generate" },
      makes: "generation",
      effect: "paid start",
      what: () => "this video generation",
      price: async (input, tools) => {
        const { estimateGenerate } = await import("./estimate.js");
        const e = estimateGenerate(input, tools.target);
        return { credits: e.credits, exact: e.exact, basis: e.basis };
      },
      debited: (res) => num(res.estimated_credits),
      started: (input, res) => {
        const id = str(res.job_id);
        if (!id) return [];
        const text = str(input.prompt) ?? str(input.script);
        return [
          {
            kind: "generation",
            id,
            model: input.use_native_avatar === true ? (str(input.native_avatar_model) ?? "omni-flash") : null,
            cost: num(res.estimated_credits) ?? null,
            status: str(res.status) ?? "pending",
            ...(text !== undefined ? { prompt: text } : {}),
            video_format: {
              format: str(input.format) ?? "vertical",
              ...(input.format === "custom" ? { width: num(input.width) ?? 1080, height: num(input.height) ?? 1920 } : {}),
            },
          },
        ];
      },
    },
    generationStatus: { effect: "read", statusOf: "generation" },
  },
  jobs: {
    generation: {
      kind: "generation",
      noun: "video generation",
      idShape: /^run_/,
      status: statusByJobId("generationStatus", generationSchedule),
      terminal: COMPLETED_OR_FAILED,
      refund: "local",
      makesVideo: true,
      result: (s) => {
        const url = str(resultOf(s).thumbnail_url);
        return url ? { url, ext: extOf(url, "jpg"), type: "thumbnail", suffix: "-thumbnail" } : undefined;
      },
      history: (s) => ({ ...(str(s.status) ? { status: String(s.status) } : {}), ...(str(resultOf(s).video_id) ? { video_id: String(resultOf(s).video_id) } : {}) }),
    },
  },
};
