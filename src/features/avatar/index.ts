import type { LocalPart } from "../types.js";

export const avatar = {
  name: "avatar",
  commands: [{ name: "avatar", summary: "Create, edit and browse avatars and their looks", load: () => import("./cli.js") }],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => {
    const [{ avatarHandlers }, { lookKinds }] = await Promise.all([import("./local.js"), import("./job.js")]);
    return { handlers: avatarHandlers, jobKinds: lookKinds };
  },
} as const;
