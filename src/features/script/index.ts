export const script = {
  name: "script",
  commands: [],
  contract: () => import("./contract.js"),
} as const;
