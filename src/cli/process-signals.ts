/**
 * The real process's signals, as the frame's `Signals` (src/cli/runtime.ts). Only src/cli/main.ts
 * uses this: everything else hears Ctrl-C through what it was given.
 */
import { EXIT } from "./types.js";
import type { Signals } from "./runtime.js";

/** SIGINT is listened to only while a handler is registered: otherwise Ctrl-C ends the process as usual. */
function onInterrupt(handler: () => void): () => void {
  process.on("SIGINT", handler);
  return () => process.off("SIGINT", handler);
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
