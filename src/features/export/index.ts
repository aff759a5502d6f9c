export const exp = {
  name: "export",
  commands: [
    {
      name: "export",
      summary: "Export a video to an MP4 (POST /export/start); `export status` follows export jobs (GET /export/status)",
      load: async () => ({ command: (await import("./client/cli.js")).exportCommand }),
    },
  ],
} as const;
