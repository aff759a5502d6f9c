import type { LocalPart } from "../types.js";

export const asset = {
  name: "asset",
  commands: [{ name: "asset", summary: "Generate images and videos (assets) with a model", load: () => import("./cli.js") }],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => {
    const [{ assetHandlers }, { assetKinds }] = await Promise.all([import("./local.js"), import("./job.js")]);
    return { handlers: assetHandlers, jobKinds: assetKinds };
  },
} as const;
