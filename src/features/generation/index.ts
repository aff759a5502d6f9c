export const generation = {
  name: "generation",
  commands: [
    {
      name: "generate",
      summary: "Make a video from a prompt, a script, supplied media or a sequence plan (POST /generation/start)",
      term: "generate [options]",
      load: async () => ({ command: (await import("./client/cli.js")).generateCommand }),
    },
    {
      name: "generation",
      summary: "Follow generation jobs (GET /generation/status)",
      load: async () => ({ command: (await import("./client/cli.js")).generationCommand }),
    },
    {
      name: "plan",
      summary: "Sequence plans: build one interactively, validate, price, show as a timeline, print the JSON Schema",
      load: async () => ({ command: (await import("./client/plan-cli.js")).planCommand }),
    },
  ],
} as const;
