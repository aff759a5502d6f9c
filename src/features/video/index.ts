export const video = {
  name: "video",
  commands: [],
  contract: () => import("./contract.js"),
} as const;
