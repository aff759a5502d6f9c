export const avatar = {
  name: "avatar",
  commands: [{ name: "avatar", summary: "Create, edit and browse avatars and their looks", load: () => import("./client/cli.js") }],
} as const;
