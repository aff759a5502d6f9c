export const folder = {
  name: "folder",
  commands: [{ name: "folder", summary: "Create and list folders", load: () => import("./client/cli.js") }],
} as const;
