/** Entry point: parse, run one command, render any failure, set the exit code. */
import { redact } from "../engine/redact.js";
import { buildProgram, globalOptions } from "./program.js";
import { CliContext, readVersion } from "./context.js";
import { createIO } from "./io.js";
import { renderError } from "./errors.js";
import { loadStyles } from "./output.js";
import type { ContextGetter } from "./types.js";

async function main(argv: string[]): Promise<number> {
  const env = process.env;
  const streams = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  const version = readVersion();
  let ctx: CliContext | undefined;
  const getContext = (cmd: Parameters<ContextGetter>[0]): CliContext => {
    if (!ctx) {
      const opts = globalOptions(cmd);
      ctx = new CliContext(createIO(streams, env, opts), opts, env, version);
    }
    return ctx;
  };

  const program = buildProgram(version, getContext, {
    writeOut: (s) => process.stdout.write(s),
    writeErr: (s) => process.stderr.write(redact(s)),
  });
  program.hook("preAction", async (_root, action) => {
    const c = getContext(action);
    await loadStyles(c.io.color, c.io.stderrColor);
  });

  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    // Usage errors can happen before any context exists: read the flags that shape the report from argv.
    const flags = ctx?.opts ?? {
      json: argv.includes("--json"),
      debug: argv.includes("--debug"),
      quiet: argv.includes("-q") || argv.includes("--quiet"),
    };
    const io = ctx?.io ?? { stderr: process.stderr, quiet: flags.quiet };
    return renderError(err, io, flags).exitCode;
  } finally {
    await ctx?.close();
  }
}

process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  // `mediagen … | head` closes the pipe early: that is not a failure of ours.
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

process.exitCode = await main(process.argv);
