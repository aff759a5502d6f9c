import type { LocalPart } from "../types.js";

export const voice = {
  name: "voice",
  commands: [
    {
      name: "voice",
      summary: "Browse voices (space voices and the public catalog your plan unlocks)",
      load: () => import("./cli.js"),
    },
  ],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => ({ handlers: (await import("./local.js")).voiceHandlers }),
} as const;
