export const asset = {
  name: "asset",
  commands: [{ name: "asset", summary: "Generate images and videos (assets) with a model", load: () => import("./client/cli.js") }],
} as const;
