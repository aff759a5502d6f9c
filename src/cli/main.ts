/** Entry point: parse, run one command, render any failure, set the exit code. */
import fs from "node:fs";
import { redact } from "../engine/redact.js";
import { buildProgram, globalOptions } from "./program.js";
import type { CliContext } from "./context.js";

/** Reads package.json once for --version and the User-Agent. */
function readVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

async function main(argv: string[]): Promise<number> {
  const env = process.env;
  const streams = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  const version = readVersion();
  let ctx: CliContext | undefined;
  // The context is built in the preAction hook, so `--help` never loads it (startup time).
  const getContext = (): CliContext => {
    if (!ctx) throw new Error("the command context is only available inside an action");
    return ctx;
  };

  const program = await buildProgram(
    version,
    getContext,
    { writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(redact(s)) },
    { args: argv.slice(2) },
  );
  program.hook("preAction", async (_root, action) => {
    const [{ CliContext }, { createIO }, { loadStyles }] = await Promise.all([
      import("./context.js"),
      import("./io.js"),
      import("./output.js"),
    ]);
    const opts = globalOptions(action);
    ctx ??= new CliContext(createIO(streams, env, opts), opts, env, version);
    await loadStyles(ctx.io.color, ctx.io.stderrColor);
  });

  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version") return 0;
    const { renderError } = await import("./errors.js");
    // Usage errors happen before any context exists: read the flags that shape the report from argv.
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
// The result is out. A poll abandoned at a deadline, by an engine that did not honour the abort, may
// still hold a socket or a timer: it must not keep the process (and the user) waiting. Unref'd, so a
// process with nothing left to do exits at once, as usual.
const exitWhenFlushed = () => {
  // Output still being written (a slow pipe) is not a lingering handle: let it drain first.
  if (process.stdout.writableLength > 0 || process.stderr.writableLength > 0) setTimeout(exitWhenFlushed, 100).unref();
  else process.exit();
};
setTimeout(exitWhenFlushed, 1_500).unref();
