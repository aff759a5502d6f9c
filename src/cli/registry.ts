/**
 * The command groups, loaded lazily: the features' commands (src/features/index.ts) and the frame's
 * own. `mediagen --help` lists every group from this table without importing any group's module, and
 * `mediagen asset …` imports only the asset module: startup stays close to a bare `node` (see
 * bench/startup.mjs). The registry creates each group's command with its name and summary and hands
 * it to the module, so a summary is written once.
 */
import type { Command } from "commander";
import type { ContextGetter } from "./command-context.js";
import type { CommandEntry } from "../features/types.js";
import { FEATURES } from "../features/index.js";
import { PROFILE_KEYS } from "../config/profiles.js";
import { HELP_TOPICS } from "./help-text.js";
import { meantName } from "./did-you-mean.js";

export type { CommandEntry };

/** The frame's commands: the local dashboard, the server, configuration and help. */
const FRAME_COMMANDS: readonly CommandEntry[] = [
  {
    name: "local",
    summary: "Manage the local instance: spaces, keys, credits, ledger, webhooks",
    load: () => import("./commands/local.js"),
  },
  {
    name: "serve",
    summary: "Serve the local instance over HTTP at the service's paths (/api/public/v1), with workers in process",
    term: "serve [options]",
    load: () => import("./commands/serve.js"),
  },
  {
    name: "ui",
    summary: "A web dashboard on 127.0.0.1: gallery of what you made, live jobs, the local instance's spaces, ledgers and webhooks",
    term: "ui [options]",
    load: () => import("./commands/ui.js"),
  },
  {
    name: "listen",
    summary: "Receive webhooks on 127.0.0.1: print each delivery, check its signature, optionally forward it",
    term: "listen [options]",
    load: () => import("./commands/listen.js"),
  },
  { name: "auth", summary: "Log in and out of a target, and check the key in use", load: () => import("./commands/auth.js") },
  {
    name: "config",
    summary: `Read and write profile settings (settings: ${PROFILE_KEYS.join(", ")})`,
    load: () => import("./commands/config.js"),
  },
  {
    name: "history",
    summary: "Jobs this machine started, on any target: kind, id, model, cost, status, saved file",
    term: "history|ls [options]",
    aliases: ["ls"],
    load: () => import("./commands/history.js"),
  },
  {
    name: "batch",
    summary: "Run many requests from a JSONL or CSV file under the rate limit and a credit budget; resumable",
    load: () => import("./commands/batch.js"),
  },
  {
    name: "download",
    summary: "Save the result of a finished job by its id, whatever command started it",
    term: "download [options] <id>",
    load: () => import("./commands/download.js"),
  },
  {
    name: "mcp",
    summary: "Serve the engine to AI agents over stdio (Model Context Protocol): tools, waits, downloads, a credit cap",
    term: "mcp [options]",
    load: () => import("./commands/mcp.js"),
  },
  {
    name: "whoami",
    summary: "Target, space, plan and balance of the key in use (also: credits)",
    term: "whoami|credits",
    aliases: ["credits"],
    load: () => import("./commands/whoami.js"),
  },
  {
    name: "api",
    summary: "Send any request to the target's API (GET or POST, a path under the base URL) and print the answer, as gh api does",
    term: "api [options] <method> <path>",
    load: () => import("./commands/api.js"),
  },
  {
    name: "completion",
    summary: "Print the shell completion script (commands, flags, and model/voice/look/folder ids)",
    term: "completion <shell>",
    load: () => import("./commands/completion.js"),
  },
  {
    name: "help",
    summary: `Show help for a command, or a topic (${HELP_TOPICS.join(", ")})`,
    term: "help [topic...]",
    load: () => import("./commands/help.js"),
  },
  {
    name: "__complete",
    summary: "completion candidates for the shell scripts",
    term: "__complete <kind> [words...]",
    hidden: true,
    load: () => import("./commands/complete.js"),
  },
];

export const COMMANDS: readonly CommandEntry[] = [...FEATURES.flatMap((f): readonly CommandEntry[] => f.commands), ...FRAME_COMMANDS];

interface Registration {
  getContext: ContextGetter;
  /** Applies the frame's settings (exit override, output) to a command tree. */
  settle(cmd: Command): void;
}

const registrations = new WeakMap<Command, Registration>();
const stubs = new WeakSet<Command>();
/** Root-help terms of stubs (their real arguments and options are not loaded). */
export const stubTerms = new WeakMap<Command, string>();

/** Global options that take a value, so the words after them are not mistaken for a command. */
const VALUE_OPTIONS = new Set(["--target", "--base-url", "--profile", "--request-timeout"]);

/** The first word of argv (after node and the script) that is not an option or an option's value. */
export function firstOperand(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return args[i + 1];
    if (a.startsWith("-")) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    return a;
  }
  return undefined;
}

/** Whether `token` names an option of `cmd` (or of a command above it) that takes a value. */
function takesValue(cmd: Command, token: string): boolean {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const opt = c.options.find((o) => o.long === token || o.short === token);
    if (opt) return opt.required || opt.optional;
  }
  return false;
}

/**
 * The first word of argv that names no command where a command is due (a group's subcommand), and
 * the group it was looked for in. Commander shows the group's help and exits 0 for
 * `mediagen generat --help` (its help flag is read before the unknown command); this finds the
 * word first, so an unknown command is a usage error, with or without --help.
 */
export function unknownCommandIn(program: Command, args: readonly string[]): { cmd: Command; name: string; suggest?: string } | undefined {
  let cmd = program;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return undefined;
    if (a.startsWith("-") && a.length > 1) {
      if (!a.includes("=") && takesValue(cmd, a)) i++;
      continue;
    }
    // A command with arguments takes the word as one; a leaf has no commands to miss.
    if (!cmd.commands.length || cmd.registeredArguments.length) return undefined;
    const next = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    // A group with a default subcommand (`export <video_id>` is `export start <video_id>`) takes any
    // word, except one spelled like one of its commands (`export stat <id>`: a typo, not an id).
    if ((cmd as unknown as { _defaultCommandName?: string })._defaultCommandName) {
      if (next) return undefined;
      const meant = meantName(
        a,
        cmd.commands.map((c) => c.name()),
      );
      return meant ? { cmd, name: a, suggest: meant } : undefined;
    }
    if (!next) return { cmd, name: a };
    // Only the group argv names is loaded; the others are stubs whose commands are not known.
    if (stubs.has(next)) return undefined;
    cmd = next;
  }
  return undefined;
}

export function initRegistry(program: Command, getContext: ContextGetter, settle: (cmd: Command) => void): void {
  registrations.set(program, { getContext, settle });
}

export function addStub(program: Command, entry: CommandEntry): void {
  const stub = program.command(entry.name, entry.hidden ? { hidden: true } : {}).description(entry.summary);
  if (entry.aliases) stub.aliases([...entry.aliases]);
  stubs.add(stub);
  if (entry.term) stubTerms.set(stub, entry.term);
}

async function register(program: Command, entry: CommandEntry): Promise<void> {
  const reg = registrations.get(program);
  if (!reg) throw new Error("initRegistry(program) first");
  const { command } = await entry.load();
  const cmd = program.command(entry.name, entry.hidden ? { hidden: true } : {}).description(entry.summary);
  if (entry.aliases) cmd.aliases([...entry.aliases]);
  command.register(cmd, reg.getContext, { loadAll: () => loadAllCommands(program) });
  reg.settle(cmd);
}

/** Replaces a group's stub by the real commands (no-op when already loaded). */
export async function loadCommand(program: Command, name: string): Promise<boolean> {
  const entry = COMMANDS.find((e) => e.name === name || e.aliases?.includes(name));
  if (!entry) return false;
  const idx = program.commands.findIndex((c) => c.name() === entry.name);
  const existing = idx >= 0 ? program.commands[idx] : undefined;
  if (existing && !stubs.has(existing)) return true;
  if (existing) (program.commands as Command[]).splice(idx, 1);
  await register(program, entry);
  return true;
}

/** Loads every group (completion and `help <command>` need the whole tree). */
export async function loadAllCommands(program: Command): Promise<void> {
  for (const e of COMMANDS) await loadCommand(program, e.name);
  // Keep the table's order, whatever order the groups were loaded in.
  const order = new Map(COMMANDS.map((e, i) => [e.name, i]));
  (program.commands as Command[]).sort((a, b) => (order.get(a.name()) ?? 99) - (order.get(b.name()) ?? 99));
}
