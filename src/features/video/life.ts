/**
 * The life of a duplicate (see src/features/life.ts): a free start whose answer is a new video,
 * `done` at once. A video has no status endpoint and no file of its own: it is exported.
 */
import { str, type FeatureLife } from "../life.js";

export const videoLife: FeatureLife = {
  operations: {
    videoDuplicate: {
      batch: { kind: "duplicate" },
      makes: "video",
      effect: "free start",
      what: (input) => `a copy of video ${str(input.video_id) ?? ""}`.trim(),
      price: () => ({ credits: 0, exact: true, basis: "a duplicate costs nothing (its export may)" }),
      started: (input, res) => {
        const id = str(res.video_id);
        return id
          ? [
              {
                kind: "video",
                id,
                video_id: id,
                model: null,
                cost: 0,
                status: str(res.status) ?? "done",
                ...(str(input.video_id) ? { source_video_id: String(input.video_id) } : {}),
              },
            ]
          : [];
      },
    },
  },
  jobs: {
    video: {
      kind: "video",
      noun: "video",
      idShape: /^[0-9a-f]{24}$/i,
      nextStep: (id) => `mediagen export ${id} --download ${id}.mp4`,
    },
  },
};
