import type { LocalPart } from "../types.js";

export const exp = {
  name: "export",
  commands: [
    {
      name: "export",
      summary: "Export a video to an MP4 (POST /export/start); `export status` follows export jobs (GET /export/status)",
      load: async () => ({ command: (await import("./cli.js")).exportCommand }),
    },
  ],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => ({ handlers: (await import("./local.js")).exportHandlers }),
  jobs: async () => (await import("./job.js")).exportKinds,
} as const;
