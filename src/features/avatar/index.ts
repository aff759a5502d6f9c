import type { LocalPart } from "../types.js";

export const avatar = {
  name: "avatar",
  commands: [{ name: "avatar", summary: "Create, edit and browse avatars and their looks", load: () => import("./cli.js") }],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => ({ handlers: (await import("./local.js")).avatarHandlers }),
  jobs: async () => (await import("./job.js")).lookKinds,
} as const;
