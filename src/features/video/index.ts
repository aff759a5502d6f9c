export const video = {
  name: "video",
  commands: [
    {
      name: "duplicate",
      summary: "Copy a done video, optionally with a new voice and/or look (POST /video/duplicate)",
      term: "duplicate [options] [video_id]",
      load: () => import("./client/cli.js"),
    },
  ],
} as const;
