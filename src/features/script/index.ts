import type { LocalPart } from "../types.js";

export const script = {
  name: "script",
  commands: [
    {
      name: "script",
      summary: "Generate a video script from a prompt and web pages (POST /script/generate); prints the text",
      term: "script [options]",
      load: () => import("./cli.js"),
    },
  ],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => {
    const { scriptHandlers } = await import("./local.js");
    return { handlers: scriptHandlers };
  },
} as const;
