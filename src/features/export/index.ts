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
  local: async (): Promise<LocalPart> => {
    const [{ exportHandlers }, { exportKinds }] = await Promise.all([
      import("./local.js"),
      import("./job.js"),
    ]);
    return { handlers: exportHandlers, jobKinds: exportKinds };
  },
} as const;
