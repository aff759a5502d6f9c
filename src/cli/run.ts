/**
 * The whole CLI as a function (gh's Factory/runF): parse the words, run one command, render any
 * failure, return the exit code. Everything it reads from the outside is handed in (streams, TTY
 * flags, environment, Ctrl-C, clock, optionally the engine), so tests and embedders run it in
 * process; src/cli/main.ts hands it the real process.
 */
import type { Engine } from "../engine/engine.js";
import { buildProgram, globalOptions } from "./program.js";
import { unknownCommandIn } from "./registry.js";
import { programOutput, readVersion, rootRequest, runRoot } from "./root-help.js";
// Static, though a group's --help needs none of them: in the bundle they are in the common chunk that
// every command loads anyway (scripts/bundle-common.ts), and an import() would cost one more file.
// (The root help and the version return before any of them: src/cli/root-help.ts.)
import { CliContext } from "./context.js";
import { createIO } from "./io.js";
import { loadStyles, resetStyles } from "./output.js";
import type { Env, Streams } from "./io.js";
import { realClock, signalsFrom, type Clock, type Runtime, type Signals } from "./runtime.js";

export type { Env, Streams };

export interface RunCliOptions extends Streams {
  /** The environment the command sees (MEDIAGEN_*, NO_COLOR, CI, proxies…): never process.env unless handed in. */
  env: Env;
  /** Ctrl-C: aborting it interrupts a wait or a download (exit 130) and stops `serve`. Default: never. */
  interrupt?: AbortSignal;
  /** Ctrl-C and stop requests as the real process hears them (src/cli/main.ts); beats `interrupt`. */
  signals?: Signals;
  /** Time for waits and caches. Default: real timers. */
  clock?: Clock;
  /** The engine every command uses instead of the target's; not closed by the CLI. */
  engine?: () => Promise<Engine>;
  /** For --version and the User-Agent. Default: package.json's. */
  version?: string;
}

/** Runs `mediagen <args…>` (args without node and the script) and resolves with the exit code. */
export async function runCli(args: readonly string[], options: RunCliOptions): Promise<number> {
  const { env } = options;
  const streams: Streams = { stdout: options.stdout, stderr: options.stderr, stdin: options.stdin };
  const version = options.version ?? readVersion();
  const runtime: Runtime = {
    signals: options.signals ?? signalsFrom(options.interrupt),
    clock: options.clock ?? realClock,
    ...(options.engine ? { engine: options.engine } : {}),
  };
  const argv = [...args];
  // The root help and the version: the same code as the fast entry bin/mediagen.js starts for them.
  const root = rootRequest(argv);
  if (root) return runRoot(root, streams, env, version);
  let ctx: CliContext | undefined;
  // The context is built in the preAction hook, so `--help` never builds it (startup time).
  const getContext = (): CliContext => {
    if (!ctx) throw new Error("the command context is only available inside an action");
    return ctx;
  };

  const program = await buildProgram(version, getContext, programOutput(streams, env), { args: argv });
  program.hook("preAction", async (_root, action) => {
    const opts = globalOptions(action);
    ctx ??= new CliContext(createIO(streams, env, opts), opts, env, version, runtime);
    // A command that offers --show asks the frame to draw what it saves (CliContext.save).
    ctx.showPictures = action.opts().show === true;
    // A bad --request-timeout is a usage error on any command, not only when a request is made.
    if (opts.requestTimeout !== undefined) ctx.requestTimeoutMs();
    await loadStyles(ctx.io.color, ctx.io.stderrColor);
  });

  try {
    const unknown = unknownCommandIn(program, argv);
    if (unknown) {
      // Commander's own report (message, nearest suggestion, exit 2), before it would print a help.
      if (unknown.suggest) unknown.cmd.error(`error: unknown command '${unknown.name}'\n(Did you mean ${unknown.suggest}?)`, { code: "commander.unknownCommand" });
      unknown.cmd.args = [unknown.name];
      (unknown.cmd as unknown as { unknownCommand(): never }).unknownCommand();
    }
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version") return 0;
    const { renderError } = await import("./errors.js");
    // Usage errors happen before any context exists: read the flags that shape the report from argv,
    // and report without colour, as a fresh process would (an earlier run in process may have set it).
    if (!ctx) resetStyles();
    const flags = ctx?.opts ?? {
      json: argv.includes("--json"),
      debug: argv.includes("--debug"),
      quiet: argv.includes("-q") || argv.includes("--quiet"),
    };
    const io = ctx?.io ?? { stderr: streams.stderr, quiet: flags.quiet };
    const explain = ctx ? await ctx.explain(err).catch(() => ({})) : {};
    return renderError(err, io, flags, explain).exitCode;
  } finally {
    await ctx?.close();
  }
}
