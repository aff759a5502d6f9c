export const script = {
  name: "script",
  commands: [
    {
      name: "script",
      summary: "Generate a video script from a prompt and web pages (POST /script/generate); prints the text",
      term: "script [options]",
      load: () => import("./client/cli.js"),
    },
  ],
} as const;
