export const voice = {
  name: "voice",
  commands: [
    {
      name: "voice",
      summary: "Browse voices (space voices and the public catalog your plan unlocks)",
      load: () => import("./client/cli.js"),
    },
  ],
} as const;
