/**
 * `mediagen mcp`: serves the engine to an MCP client (an AI agent) over stdio, on the target the
 * global flags choose (the local instance by default). The server itself, and the MCP SDK, are in
 * src/mcp/, loaded only when the command runs.
 */
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandModule } from "../command-context.js";
import { examples } from "../help-text.js";
import { parseCredits } from "../parse.js";
import { defineFlags, type FlagInput } from "../flags.js";

const MCP_FLAGS = defineFlags({
  allowDir: { flag: "--allow-dir <dir>", type: "list", help: "let the download tool save into <dir> (repeatable; created if missing); without it downloads are off" },
  maxCredits: {
    flag: "--max-credits <n>",
    type: "string",
    to: parseCredits,
    help: "the most this session may spend: each start is priced first and refused past it (a start whose price is unknown too)",
  },
  readOnly: { flag: "--read-only", type: "boolean", help: "offer only the tools that read (lists, statuses, pricing, wait_for, download): nothing can be started" },
});

export const command: CommandModule = {
  register(mcp: Command, getContext) {
    MCP_FLAGS.addTo(mcp).action(async (raw: FlagInput<typeof MCP_FLAGS>, cmd: Command) => {
      const ctx = getContext(cmd);
      if (ctx.io.isStdoutTTY && ctx.io.canPrompt) {
        ctx.io.info("mediagen mcp speaks the Model Context Protocol on stdin/stdout: configure it in an MCP client (see `mediagen mcp --help`). Ctrl-C stops.");
      }
      const flags = MCP_FLAGS.values(raw);
      const maxCredits = flags.maxCredits;
      const { prepareDir } = await import("../download.js");
      const { allowedDirs } = await import("../../mcp/paths.js");
      let allowDirs: string[];
      try {
        allowDirs = allowedDirs(flags.allowDir ?? [], (d) => prepareDir(d, "--allow-dir"));
      } catch (e) {
        if (e instanceof CliError) throw e;
        throw new CliError(`--allow-dir: ${(e as Error).message}`, EXIT.usage, "invalid_value", "--allow-dir");
      }
      const { runMcp } = await import("../../mcp/server.js");
      await runMcp(ctx, { readOnly: flags.readOnly === true, allowDirs, ...(maxCredits !== undefined ? { maxCredits } : {}) });
    });
    examples(mcp, [
      "mediagen mcp --allow-dir ~/agent-out",
      "mediagen mcp --allow-dir out/ --max-credits 50",
      "mediagen mcp --read-only",
      "mediagen --target hosted mcp --allow-dir out/ --max-credits 20",
    ]);
    mcp.addHelpText(
      "after",
      '\nClient configuration (stdio): {"command": "mediagen", "args": ["mcp", "--allow-dir", "/path/to/out", "--max-credits", "50"]}\n' +
        "stdout carries protocol messages only; everything else is said on stderr.",
    );
  },
};
