/**
 * Entry point of the real process (bin/mediagen.js): runs the CLI (src/cli/run.ts) on this
 * process's argv, environment, streams and signals (src/cli/process-signals.ts), sets the exit code,
 * and makes sure the process ends once the output is out. The rest of the frame only sees what it is
 * handed here.
 */
import { runCli } from "./run.js";
import { endBySignal, guardOutputStreams, processSignals, stoppedBy } from "./process-signals.js";
import { EXIT } from "./types.js";

guardOutputStreams();

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  signals: processSignals,
});
process.exitCode = code;
// Stopped by a signal, reported and cleaned up: end by that same signal (src/cli/process-signals.ts),
// so a calling shell sees it and stops too (`for …; do mediagen … --watch; done` does not go on to
// start and pay for the next job after Ctrl-C), as git and gh do. Ctrl-C typed at a prompt (the
// terminal in raw mode sends no signal) is a Ctrl-C all the same.
const sig = code === EXIT.interrupted ? (stoppedBy() ?? "SIGINT") : undefined;
if (sig !== undefined) {
  const end = () => {
    if (process.stdout.writableLength > 0 || process.stderr.writableLength > 0) setTimeout(end, 20);
    else endBySignal(sig);
  };
  end();
}
// The result is out. A poll abandoned at a deadline, by an engine that did not honour the abort, may
// still hold a socket or a timer: it must not keep the process (and the user) waiting. Unref'd, so a
// process with nothing left to do exits at once, as usual.
const exitWhenFlushed = () => {
  // Output still being written (a slow pipe) is not a lingering handle: let it drain first.
  if (process.stdout.writableLength > 0 || process.stderr.writableLength > 0) setTimeout(exitWhenFlushed, 100).unref();
  else process.exit();
};
setTimeout(exitWhenFlushed, 1_500).unref();
