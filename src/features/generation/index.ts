import type { LocalPart } from "../types.js";

export const generation = {
  name: "generation",
  commands: [
    {
      name: "generate",
      summary: "Make a video from a prompt, a script, supplied media or a sequence plan (POST /generation/start)",
      term: "generate [options]",
      load: async () => ({ command: (await import("./cli.js")).generateCommand }),
    },
    {
      name: "generation",
      summary: "Follow generation jobs (GET /generation/status)",
      load: async () => ({ command: (await import("./cli.js")).generationCommand }),
    },
  ],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => {
    const [{ generationHandlers }, { generationKinds }] = await Promise.all([
      import("./local.js"),
      import("./job.js"),
    ]);
    return { handlers: generationHandlers, jobKinds: generationKinds };
  },
} as const;
