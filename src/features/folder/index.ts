import type { LocalPart } from "../types.js";

export const folder = {
  name: "folder",
  commands: [{ name: "folder", summary: "Create and list folders", load: () => import("./cli.js") }],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => ({ handlers: (await import("./local.js")).folderHandlers }),
} as const;
