/** The life of each folder operation (see src/features/life.ts). Folders are made at once and cost nothing. */
import type { FeatureLife } from "../life.js";

export const folderLife: FeatureLife = {
  operations: {
    folderCreate: {
      effect: "free start",
      what: (input) => `the folder ${typeof input.name === "string" ? `"${input.name}"` : ""}`.trim(),
      price: () => ({ credits: 0, exact: true, basis: "folders cost nothing" }),
      check: () => "`mediagen folder list` shows whether the folder was made",
    },
    folderList: { effect: "read" },
  },
};
