/**
 * The commander program: global options, the command groups, and the settings every command
 * inherits (usage errors become exit 2, output goes through our streams).
 */
import { Command, Option } from "commander";
import type { CommandModule, ContextGetter, GlobalOptions } from "./types.js";
import { examples } from "./help-text.js";
import { command as folder } from "./commands/folder.js";
import { command as asset } from "./commands/asset.js";
import { command as avatar } from "./commands/avatar.js";
import { command as voice } from "./commands/voice.js";
import { command as local } from "./commands/local.js";
import { command as serve } from "./commands/serve.js";
import { command as auth } from "./commands/auth.js";
import { command as config } from "./commands/config.js";
import { command as completion } from "./commands/completion.js";
import { command as help } from "./commands/help.js";
import { command as complete } from "./commands/complete.js";

export const MODULES: CommandModule[] = [folder, asset, avatar, voice, local, serve, auth, config, completion, help, complete];

export interface ProgramOutput {
  writeOut(s: string): void;
  writeErr(s: string): void;
}

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
  };
}

export function buildProgram(version: string, getContext: ContextGetter, output: ProgramOutput): Command {
  const program = new Command("mediagen")
    .description("Generate images, videos, avatars and voices through the mediagen service, or a local instance of it.")
    .version(version, "-V, --version", "print the version")
    .addOption(new Option("--json", "print results as JSON (the service's objects, unchanged)"))
    .addOption(new Option("-q, --quiet", "print only ids or paths"))
    .addOption(new Option("--debug", "trace calls to stderr (keys redacted)"))
    .addOption(new Option("--no-color", "disable colour (also NO_COLOR, TERM=dumb)"))
    .addOption(new Option("--no-input", "never prompt; fail with a usage error instead"))
    .addOption(new Option("--target <target>", "local instance or hosted service").choices(["local", "hosted"]))
    .addOption(new Option("--base-url <url>", "hosted base URL (/api/public/v1 is appended when missing)"))
    .addOption(new Option("--profile <name>", "configuration profile"))
    .configureHelp({ showGlobalOptions: true })
    .helpCommand(false);

  examples(program, [
    "mediagen folder create --name Clips --json",
    "mediagen local spaces list",
    "mediagen auth login --target hosted --base-url https://api.example.com",
    "mediagen help exit-codes",
  ]);
  program.addHelpText(
    "after",
    "\nEnvironment: MEDIAGEN_TARGET, MEDIAGEN_BASE_URL, MEDIAGEN_API_KEY, MEDIAGEN_PROFILE, MEDIAGEN_HOME, NO_COLOR, CI",
  );

  for (const m of MODULES) m.register(program, getContext);

  // Applied after registration so commands built with `new Command()` by any module get it too.
  const visit = (cmd: Command) => {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut: output.writeOut, writeErr: output.writeErr });
    cmd.showSuggestionAfterError(true);
    if (cmd !== program) cmd.showHelpAfterError("(add --help for usage and examples)");
    cmd.commands.forEach(visit);
  };
  visit(program);
  return program;
}
