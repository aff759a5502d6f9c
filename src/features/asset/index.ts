import type { LocalPart } from "../types.js";

export const asset = {
  name: "asset",
  commands: [{ name: "asset", summary: "Generate images and videos (assets) with a model", load: () => import("./cli.js") }],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => ({ handlers: (await import("./local.js")).assetHandlers }),
  jobs: async () => (await import("./job.js")).assetKinds,
} as const;
