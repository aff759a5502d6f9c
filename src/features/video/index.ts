import type { LocalPart } from "../types.js";

export const video = {
  name: "video",
  commands: [
    {
      name: "duplicate",
      summary: "Copy a done video, optionally with a new voice and/or look (POST /video/duplicate)",
      term: "duplicate [options] [video_id]",
      load: () => import("./cli.js"),
    },
  ],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => {
    const { videoHandlers } = await import("./local.js");
    return { handlers: videoHandlers };
  },
} as const;
