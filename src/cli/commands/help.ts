import type { Command } from "commander";
import { CliError, EXIT, type Context } from "../types.js";
import type { CommandModule } from "../command-context.js";
import { examples, HELP_TOPICS, type HelpTopic } from "../help-text.js";
import { table, widthOf } from "../output.js";

/** Finds `a b c` in the command tree (names and aliases). */
function findCommand(root: Command, path: string[]): Command | undefined {
  let cmd: Command | undefined = root;
  for (const name of path) {
    cmd = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!cmd) return undefined;
  }
  return cmd;
}

/** Each topic prints a table people read and `--json` rows scripts read (docs/cli.md lists the same). */
const TOPICS: Record<HelpTopic, (ctx: Context) => Promise<void>> = {
  "exit-codes": async (ctx) => {
    const { EXIT_CODE_DOCS } = await import("../exit-codes.js");
    ctx.print(
      EXIT_CODE_DOCS,
      (rows) => [
        ...table(
          rows,
          [
            { header: "code", get: (r) => r.code, align: "right", id: true },
            { header: "meaning", get: (r) => r.meaning },
          ],
          widthOf(ctx.io),
        ),
        "",
        "With --json, errors are also printed to stderr as one line:",
        '  {"error":{"status":…,"code":…,"field":…,"message":…}}',
      ],
      (rows) => rows.map((r) => String(r.code)),
    );
  },
  environment: async (ctx) => {
    const { describeEnv } = await import("../../config/env.js");
    ctx.print(
      describeEnv(),
      (rows) => [
        ...table(
          rows,
          [
            { header: "variable", get: (r) => r.name, id: true },
            { header: "read by", get: (r) => r.area, optional: true },
            { header: "meaning", get: (r) => r.description },
          ],
          widthOf(ctx.io),
        ),
        "",
        "Flags beat variables; variables beat the profile's settings (see `mediagen config list`).",
      ],
      (rows) => rows.map((r) => r.name),
    );
  },
};

const isTopic = (words: string[]): words is [HelpTopic] => words.length === 1 && (HELP_TOPICS as readonly string[]).includes(words[0]!);

export const command: CommandModule = {
  register(help, getContext, tree) {
    help.argument("[topic...]", "a command path (e.g. `folder create`) or a topic").action(async (topic: string[], _opts: unknown, cmd: Command) => {
      if (isTopic(topic)) return TOPICS[topic[0]](getContext(cmd));
      const program = help.parent!;
      await tree.loadAll();
      const target = findCommand(program, topic);
      if (!target) {
        throw new CliError(`no help for "${topic.join(" ")}": not a command or topic (topics: ${HELP_TOPICS.join(", ")})`, EXIT.usage, "usage_error");
      }
      target.outputHelp();
    });
    examples(help, ["mediagen help exit-codes", "mediagen help environment", "mediagen help folder create", "mediagen help exit-codes --json"]);
  },
};
