/** The life of each voice operation (see src/features/life.ts): reads only. */
import type { FeatureLife } from "../life.js";

export const voiceLife: FeatureLife = {
  operations: { voiceList: { effect: "read" }, voiceGet: { effect: "read" }, resourceVoices: { effect: "read" } },
};
