export const exp = {
  name: "export",
  commands: [],
  contract: () => import("./contract.js"),
} as const;
