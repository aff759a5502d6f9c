import type { Command } from "commander";
import { CliError, EXIT, type CommandModule } from "../types.js";
import { examples } from "../help-text.js";
import { table, widthOf } from "../output.js";

import { HELP_TOPICS as TOPICS } from "../help-text.js";

/** Finds `a b c` in the command tree (names and aliases). */
function findCommand(root: Command, path: string[]): Command | undefined {
  let cmd: Command | undefined = root;
  for (const name of path) {
    cmd = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!cmd) return undefined;
  }
  return cmd;
}

export const command: CommandModule = {
  register(help, getContext, tree) {
    help
      .argument("[topic...]", "a command path (e.g. `folder create`) or a topic")
      .action(async (topic: string[], _opts: unknown, cmd: Command) => {
        if (topic.length === 1 && topic[0] === "exit-codes") {
          const ctx = getContext(cmd);
          const { EXIT_CODE_DOCS } = await import("../exit-codes.js");
          ctx.print(
            EXIT_CODE_DOCS,
            (rows) => [
              ...table(rows, [{ header: "code", get: (r) => r.code, align: "right" }, { header: "meaning", get: (r) => r.meaning }], widthOf(ctx.io)),
              "",
              "With --json, errors are also printed to stderr as one line:",
              '  {"error":{"status":…,"code":…,"field":…,"message":…}}',
            ],
            (rows) => rows.map((r) => String(r.code)),
          );
          return;
        }
        const program = help.parent!;
        await tree.loadAll();
        const target = findCommand(program, topic);
        if (!target) {
          throw new CliError(`no help for "${topic.join(" ")}": not a command or topic (topics: ${TOPICS.join(", ")})`, EXIT.usage, "usage_error");
        }
        target.outputHelp();
      });
    examples(help, ["mediagen help exit-codes", "mediagen help folder create", "mediagen help exit-codes --json"]);
  },
};
