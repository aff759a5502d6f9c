/**
 * The root help and the version, served with the program's global options and the registry's
 * stubs only (no context, no engine, no group module). Both the full CLI (src/cli/run.ts `runCli`)
 * and the small fast entry bin/mediagen.js starts for these words (src/cli/root-help-main.ts,
 * bundled alone as dist/bundle/root-help.cjs by scripts/bundle.mjs) run `runRoot` below, with the
 * same program (src/cli/program.ts `buildProgram`) and the same output settings (`programOutput`),
 * so the two cannot print different text.
 *
 * What the root help depends on: the program and the registry's names, summaries and terms (code),
 * the width of the terminal on stdout (stderr for the no-argument usage) and COLUMNS off a terminal
 * width, and the version. It reads no configuration file, no profile and no other variable, and it
 * has no colour. Any other word on the command line (a global option, a topic, a group) is not a
 * root request: the full CLI handles it.
 */
import fs from "node:fs";
import { redact } from "../engine/redact.js";
import { terminalWidth, type Env, type Streams } from "./io.js";
import { buildProgram, type ProgramOutput } from "./program.js";
import { EXIT } from "./types.js";

/** `help`: --help/-h (stdout, exit 0); `usage`: no words (the help on stderr, exit 2); `version`: --version/-V. */
export type RootRequest = "help" | "usage" | "version";

const HELP = new Set(["--help", "-h"]);
const VERSION = new Set(["--version", "-V"]);

/** The root request argv (without node and the script) makes, if it is one; else the full CLI runs. */
export function rootRequest(args: readonly string[]): RootRequest | undefined {
  if (args.length === 0) return "usage";
  if (args.length !== 1) return undefined;
  if (HELP.has(args[0]!)) return "help";
  if (VERSION.has(args[0]!)) return "version";
  return undefined;
}

let packageVersion: string | undefined;
/** Reads package.json once for --version and the User-Agent (../../package.json from dist/cli/ and dist/bundle/ alike). */
export function readVersion(): string {
  if (packageVersion !== undefined) return packageVersion;
  try {
    const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
    packageVersion = pkg.version ?? "0.0.0";
  } catch {
    packageVersion = "0.0.0";
  }
  return packageVersion;
}

/** Where commander writes (help, usage errors) and the widths help is fitted to. */
export function programOutput(streams: Pick<Streams, "stdout" | "stderr">, env: Env): ProgramOutput {
  return {
    writeOut: (s) => void streams.stdout.write(s),
    // One style of error prefix: commander's "error: …" reads "Error: …" like every other error.
    writeErr: (s) => void streams.stderr.write(redact(s.replace(/^error: /, "Error: "))),
    outWidth: () => (streams.stdout.isTTY ? terminalWidth(streams.stdout.columns, env) : undefined),
    errWidth: () => (streams.stderr.isTTY ? terminalWidth(streams.stderr.columns, env) : undefined),
  };
}

const noContext = (): never => {
  throw new Error("the root help runs no command");
};

/** Prints the root help, the usage or the version as the full program does, and returns the exit code. */
export async function runRoot(request: RootRequest, streams: Pick<Streams, "stdout" | "stderr">, env: Env, version: string): Promise<number> {
  if (request === "version") {
    // What commander prints for -V/--version.
    streams.stdout.write(`${version}\n`);
    return EXIT.ok;
  }
  // No argument names a group: every group is a stub (name, summary, term), none is loaded.
  const program = await buildProgram(version, noContext, programOutput(streams, env), { args: [] });
  try {
    await program.parseAsync(request === "help" ? ["--help"] : [], { from: "user" });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "commander.helpDisplayed") return EXIT.ok;
    // No words: commander printed the help on stderr; a command was required (a usage error).
    if (code === "commander.help") return EXIT.usage;
    throw err;
  }
  // The program has no action of its own: parsing either word ends in one of the above.
  throw new Error(`the root ${request} printed nothing`);
}
