/**
 * The commander program: global options, the command groups, and the settings every command
 * inherits (usage errors become exit 2, output goes through our streams).
 */
import { suggestFlagsByWords } from "./flag-suggest.js";
import { Command, Help } from "commander";
import { defineFlags } from "./flags.js";
import type { GlobalOptions } from "./types.js";
import type { ContextGetter } from "./command-context.js";
import { afterHelp, examples, formatHelpItem, formatHelpText } from "./help-text.js";
import { COMMANDS, addStub, firstOperand, initRegistry, loadAllCommands, loadCommand, stubTerms } from "./registry.js";

export interface ProgramOutput {
  writeOut(s: string): void;
  writeErr(s: string): void;
  /** Width of the terminal on stdout (stderr), undefined when it is not one: help is fitted to it. */
  outWidth?(): number | undefined;
  errWidth?(): number | undefined;
}

/** The global options, in the order of `--help`; every command reads them (`globalOptions`). */
export const GLOBAL_FLAGS = defineFlags({
  json: { flag: "--json", type: "boolean", help: "print results as JSON (the service's objects, unchanged)" },
  quiet: { flag: "-q, --quiet", type: "boolean", help: "print only ids or paths" },
  debug: { flag: "--debug", type: "boolean", help: "trace calls to stderr (keys redacted)" },
  color: { flag: "--no-color", type: "boolean", help: "disable colour (also NO_COLOR, TERM=dumb)" },
  input: { flag: "--no-input", type: "boolean", help: "never prompt; fail with a usage error instead" },
  target: { flag: "--target <target>", type: "choice", choices: ["local", "hosted"], help: "local instance or hosted service" },
  baseUrl: { flag: "--base-url <url>", type: "string", help: "hosted base URL (/api/public/v1 is appended when missing)" },
  profile: { flag: "--profile <name>", type: "string", help: "configuration profile" },
  requestTimeout: {
    flag: "--request-timeout <seconds>",
    type: "string",
    help: "hosted target: give up on a request after this long, retries included (default 60; also 90s, 2m)",
  },
});

export function globalOptions(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals<Record<string, unknown>>();
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const target = str(o.target);
  return {
    json: o.json === true,
    quiet: o.quiet === true,
    debug: o.debug === true,
    color: o.color !== false,
    input: o.input !== false,
    ...(target === "local" || target === "hosted" ? { target } : {}),
    ...(str(o.baseUrl) !== undefined ? { baseUrl: str(o.baseUrl)! } : {}),
    ...(str(o.profile) !== undefined ? { profile: str(o.profile)! } : {}),
    ...(str(o.requestTimeout) !== undefined ? { requestTimeout: str(o.requestTimeout)! } : {}),
  };
}

export interface BuildOptions {
  /** argv without node and the script: only the group it names is loaded. Omit to load every group. */
  args?: string[];
}

export async function buildProgram(version: string, getContext: ContextGetter, output: ProgramOutput, opts: BuildOptions = {}): Promise<Command> {
  const program = GLOBAL_FLAGS.addTo(
    new Command("mediagen")
      .description("Generate images, videos, avatars and voices through the mediagen service, or a local instance of it.")
      .version(version, "-V, --version", "print the version"),
  ).helpCommand(false);
  const helpConfig = {
    showGlobalOptions: true,
    subcommandTerm(this: Help, cmd: Command) {
      return stubTerms.get(cmd) ?? Help.prototype.subcommandTerm.call(this, cmd);
    },
    formatItem: formatHelpItem,
    formatHelp: formatHelpText,
  };

  examples(program, [
    "mediagen folder create --name Clips --json",
    "mediagen local spaces list",
    "mediagen auth login --target hosted --base-url https://api.example.com",
    "mediagen help exit-codes",
  ]);
  afterHelp(
    program,
    "\nEnvironment: MEDIAGEN_TARGET, MEDIAGEN_BASE_URL, MEDIAGEN_API_KEY, MEDIAGEN_PROFILE, MEDIAGEN_HOME, NO_COLOR, CI (all: mediagen help environment)",
  );

  // Applied to every command, including those a module builds with `new Command()`.
  const settle = (cmd: Command) => {
    cmd.exitOverride();
    cmd.configureOutput({
      writeOut: output.writeOut,
      writeErr: output.writeErr,
      // commander's type says number; undefined (not a terminal) makes it use its default of 80.
      getOutHelpWidth: (() => output.outWidth?.()) as () => number,
      getErrHelpWidth: (() => output.errWidth?.()) as () => number,
    });
    cmd.configureHelp(helpConfig);
    cmd.showSuggestionAfterError(true);
    suggestFlagsByWords(cmd);
    if (cmd !== program) cmd.showHelpAfterError("(add --help for usage and examples)");
    cmd.commands.forEach(settle);
  };
  settle(program);
  initRegistry(program, getContext, settle);

  if (opts.args === undefined) {
    for (const e of COMMANDS) addStub(program, e);
    await loadAllCommands(program);
  } else {
    const wanted = firstOperand(opts.args);
    for (const e of COMMANDS) {
      if (e.name === wanted || (wanted !== undefined && e.aliases?.includes(wanted))) await loadCommand(program, e.name);
      else addStub(program, e);
    }
    // The loaded group was appended: restore the table's order for help listings.
    const order = new Map(COMMANDS.map((e, i) => [e.name, i]));
    (program.commands as Command[]).sort((a, b) => (order.get(a.name()) ?? 99) - (order.get(b.name()) ?? 99));
  }
  return program;
}
