import type { Command } from "commander";

/** Adds an "Examples:" block to a command's --help (every command has one). */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText("after", "\nExamples:\n" + lines.map((l) => `  $ ${l}`).join("\n"));
}
