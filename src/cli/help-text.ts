import type { Command } from "commander";

/** The help topics beside commands (`mediagen help <topic>`). */
export const HELP_TOPICS = ["exit-codes", "environment"] as const;
export type HelpTopic = (typeof HELP_TOPICS)[number];

/** Adds an "Examples:" block to a command's --help (every command has one). */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText("after", "\nExamples:\n" + lines.map((l) => `  $ ${l}`).join("\n"));
}

/** What commander gives an action for the flags `watchOptions` adds. */
export interface WatchOptionFlags {
  watch?: boolean;
  download?: string;
  force?: boolean;
  timeout?: string;
  interval?: string;
}

/**
 * The watch flags every start and status command shares (one wait engine, one set of flags):
 * `until` ends "wait until …", `saves` describes what --download writes.
 */
export function watchOptions(cmd: Command, o: { until: string; saves: string }): Command {
  return cmd
    .option("--watch", `wait until ${o.until}`)
    .option("--download <dir>", `save ${o.saves} (implies --watch)`)
    .option("--force", "overwrite existing files when downloading")
    .option("--timeout <duration>", "give up waiting after this long (default 20m)")
    .option("--interval <duration>", "poll interval (default: the service's schedule)");
}
