import { Help, type Command } from "commander";
import { defineFlags } from "./flags.js";

/** The help topics beside commands (`mediagen help <topic>`). */
export const HELP_TOPICS = ["exit-codes", "environment"] as const;
export type HelpTopic = (typeof HELP_TOPICS)[number];

/** The width help is written for: the terminal's, or undefined off a terminal (nothing is wrapped then). */
function helpWidthOf(cmd: Command, error: boolean): number | undefined {
  const out = cmd.configureOutput() as { getOutHelpWidth?: () => number | undefined; getErrHelpWidth?: () => number | undefined };
  const w = error ? out.getErrHelpWidth?.() : out.getOutHelpWidth?.();
  return typeof w === "number" && w > 0 ? w : undefined;
}

/** Words of a shell line, quotes kept with their word (`--prompt "a b"` is two words). */
function shellWords(line: string): string[] {
  return line.match(/(?:[^\s"']+|"(?:[^"\\]|\\.)*"|'[^']*')+/g) ?? [line];
}

/**
 * One example command fitted to `width`: broken between words with a trailing ` \`, so it still
 * pastes into a shell as one command; a word longer than the line stays whole.
 */
export function wrapExample(line: string, width: number | undefined, indent = "  ", more = "      "): string {
  if (width === undefined || indent.length + line.length <= width) return indent + line;
  const out: string[] = [];
  let current = indent;
  let first = true;
  for (const word of shellWords(line)) {
    const head = first ? "" : " ";
    // Room is kept for the " \" that ends a broken line.
    if (!first && current.trim() !== "" && current.length + head.length + word.length + 2 > width) {
      out.push(current + " \\");
      current = more + word;
    } else {
      current += head + word;
    }
    first = false;
  }
  out.push(current);
  return out.join("\n");
}

/** Prose fitted to `width` (a word longer than a line is split), or as it is when the width is unknown. */
export function wrapProse(text: string, width: number | undefined): string {
  if (width === undefined) return text;
  const out: string[] = [];
  for (const para of text.split("\n")) {
    let line = "";
    for (let w of para.split(/ +/)) {
      if (line && line.length + 1 + w.length > width) {
        out.push(line);
        line = "";
      }
      while (!line && w.length > width) {
        out.push(w.slice(0, width));
        w = w.slice(width);
      }
      line = line ? `${line} ${w}` : w;
    }
    out.push(line);
  }
  return out.join("\n");
}

/** commander's whole help with its "Usage:" line fitted to the width too. */
export function formatHelpText(this: Help, cmd: Command, helper: Help): string {
  const text = Help.prototype.formatHelp.call(this, cmd, helper);
  const width = this.helpWidth;
  const nl = text.indexOf("\n");
  const first = nl < 0 ? text : text.slice(0, nl);
  if (width === undefined || first.length <= width) return text;
  const wrapped = wrapProse(first, width - 2).split("\n");
  return [wrapped[0], ...wrapped.slice(1).map((l) => `  ${l}`)].join("\n") + (nl < 0 ? "" : text.slice(nl));
}

/** Adds an "Examples:" block to a command's --help (every command has one), fitted to the terminal. */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText("after", (ctx) => {
    const width = helpWidthOf(ctx.command, ctx.error);
    return "\nExamples:\n" + lines.map((l) => wrapExample(`$ ${l}`, width)).join("\n");
  });
}

/** Help text after the usual sections, wrapped to the terminal like the rest. */
export function afterHelp(cmd: Command, text: string): Command {
  return cmd.addHelpText("after", (ctx) => wrapProse(text, helpWidthOf(ctx.command, ctx.error)));
}

/**
 * commander leaves an option's or a command's description unwrapped when the column beside the
 * terms is narrower than 40 characters, so on a narrow terminal lines run past its edge. There, the
 * description goes under its term instead, wrapped to the width.
 */
export function formatHelpItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
  const width = this.helpWidth ?? 80;
  if (!description || width - termWidth - 4 >= this.minWidthToWrap) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
  const indent = "      ";
  const text = wrapProse(description, Math.max(20, width - indent.length));
  return `  ${term}\n${text
    .split("\n")
    .map((l) => indent + l)
    .join("\n")}`;
}

/** `--show` (drawn by the frame when a file is saved: CliContext.save). */
export const SHOW_HELP = "with --download: draw each saved picture (a video's first frame) in the terminal, where it can (kitty, iTerm2)";

/** What commander gives an action for the flags `watchOptions` adds. */
export interface WatchOptionFlags {
  watch?: boolean;
  show?: boolean;
  download?: string;
  force?: boolean;
  timeout?: string;
  interval?: string;
}

/**
 * The watch flags every start and status command shares (one wait engine, one set of flags):
 * `until` ends "wait until …", `saves` describes what --download writes.
 */
export function watchFlags(o: { until: string; saves: string }) {
  return defineFlags({
    watch: { flag: "--watch", type: "boolean", help: `wait until ${o.until}` },
    download: { flag: "--download <dir>", type: "string", help: `save ${o.saves} (implies --watch)` },
    force: { flag: "--force", type: "boolean", help: "overwrite existing files when downloading" },
    show: { flag: "--show", type: "boolean", help: SHOW_HELP },
    ...waitTimingFlags("the service's schedule"),
  });
}

/** `--timeout` and `--interval` of every wait; `schedule` says what the interval is by default. */
export function waitTimingFlags(schedule: string) {
  return {
    timeout: { flag: "--timeout <duration>", type: "string", help: "give up waiting after this long (default 20m)" },
    interval: { flag: "--interval <duration>", type: "string", help: `poll interval (default: ${schedule})` },
  } as const;
}

/** Adds the watch flags (`watchFlags`) to a command. */
export function watchOptions(cmd: Command, o: { until: string; saves: string }): Command {
  return watchFlags(o).addTo(cmd);
}
