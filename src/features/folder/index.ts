export const folder = {
  name: "folder",
  commands: [{ name: "folder", summary: "Create and list folders", load: () => import("./cli.js") }],
} as const;
