/**
 * The real process's signals, as the frame's `Signals` (src/cli/runtime.ts). Only src/cli/main.ts
 * uses this: everything else hears Ctrl-C through what it was given.
 *
 * While a wait, a download or a request with effects runs, it is stopped cleanly (the ids and the
 * resume command are printed, a partial file is removed) by Ctrl-C (SIGINT) and by the terminal
 * going away (SIGHUP, or a write to it failing with EIO), and a download also by SIGTERM. Once the
 * report is out the process ends by that same signal, as a process that does not catch it would (a
 * shell shows 130, 129 or 143): after Ctrl-C, a shell running a loop of mediagen commands stops the
 * loop only when the command died of SIGINT (an exit 130 means "handled", and the loop goes on);
 * after a hang-up, a normal exit would restore the settings of a terminal that no longer exists,
 * which aborts node. The rest of the time the defaults apply: each of them ends the process at once.
 */
import { EXIT } from "./types.js";
import type { InterruptOptions, Signals } from "./runtime.js";

/** The first signal that stopped something, for how the process ends. */
let heard: NodeJS.Signals | undefined;
/** Handlers of the hang-up signal, so a terminal found gone by a failed write stops them too. */
const hangUpHandlers = new Set<() => void>();

/** The signal that interrupted the command, if one did. */
export function stoppedBy(): NodeJS.Signals | undefined {
  return heard;
}

/**
 * Ends the process by `sig` itself, with its default action: the parent sees the signal (a shell,
 * 128 + its number), and node does not try to reset a terminal that is gone.
 */
export function endBySignal(sig: NodeJS.Signals): void {
  process.removeAllListeners(sig);
  process.kill(process.pid, sig);
}

function onInterrupt(handler: () => void, opts: InterruptOptions = {}): () => void {
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGHUP", ...(opts.terminate ? (["SIGTERM"] as const) : [])];
  const listeners = signals.map((sig) => {
    const listener = () => {
      heard ??= sig;
      handler();
    };
    process.on(sig, listener);
    return [sig, listener] as const;
  });
  const onHangUp = () => {
    heard ??= "SIGHUP";
    handler();
  };
  hangUpHandlers.add(onHangUp);
  return () => {
    for (const [sig, listener] of listeners) process.off(sig, listener);
    hangUpHandlers.delete(onHangUp);
  };
}

/**
 * The terminal is gone (a write to it failed with EIO, as after `ssh -tt` loses its connection
 * without a SIGHUP): what runs stops as on SIGHUP; with nothing running, the process ends as SIGHUP
 * would end it.
 */
export function terminalGone(): void {
  if (heard !== undefined) return;
  if (hangUpHandlers.size === 0) {
    endBySignal("SIGHUP");
    return;
  }
  heard = "SIGHUP";
  for (const h of [...hangUpHandlers]) h();
}

/** Resolves on the first SIGINT/SIGTERM; a second one while stopping ends the process at once. */
function nextStop(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (sig: NodeJS.Signals) => {
      process.off("SIGINT", first);
      process.off("SIGTERM", first);
      const again = () => process.exit(EXIT.interrupted);
      process.once("SIGINT", again);
      process.once("SIGTERM", again);
      resolve(sig);
    };
    process.on("SIGINT", first);
    process.on("SIGTERM", first);
  });
}

export const processSignals: Signals = { onInterrupt, nextStop };

/** What a failed write to stdout or stderr means for the process (also the fast entry's, src/cli/root-help-main.ts). */
export function guardOutputStreams(): void {
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    // `mediagen … | head` closes the pipe early: that is not a failure of ours.
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    // The terminal went away (EIO): stop as on SIGHUP rather than crash or go on writing to nobody.
    if (e.code === "EIO") return terminalGone();
    throw e;
  });
  process.stderr.on("error", (e: NodeJS.ErrnoException) => {
    // Nobody reads stderr any more: what is left to say cannot be said; the result still counts.
    if (e.code === "EPIPE") return;
    if (e.code === "EIO") return terminalGone();
    throw e;
  });
}
