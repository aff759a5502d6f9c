export const generation = {
  name: "generation",
  commands: [],
  contract: () => import("./contract.js"),
} as const;
