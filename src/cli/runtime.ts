/**
 * What the frame needs from the world outside the command line, injected (gh's Factory): Ctrl-C and
 * termination requests, the clock, and optionally the engine. `bin/` hands over the real process
 * (src/cli/main.ts); tests and embedders run the whole CLI in process with their own (src/cli/run.ts).
 * Nothing here imports anything heavy: `mediagen --help` loads it.
 */
import type { Engine } from "../engine/engine.js";

export interface InterruptOptions {
  /**
   * Also a request to terminate (SIGTERM): for what must not be left half done, such as a download
   * whose partial file is removed. Without it SIGTERM keeps its default (the process ends at once).
   */
  terminate?: boolean;
}

/**
 * Registers a handler for Ctrl-C (and the terminal hanging up) while something can act on it;
 * returns its removal.
 */
export type OnInterrupt = (handler: () => void, opts?: InterruptOptions) => () => void;

export interface Signals {
  /**
   * Ctrl-C (or SIGHUP: the terminal went away) during a wait, a download or a request with effects.
   * Registered only while one runs: the rest of the time a real process keeps the default (the
   * signal ends it at once).
   */
  onInterrupt: OnInterrupt;
  /**
   * Resolves with the signal's name on the first request to stop a long-running command (`serve`):
   * Ctrl-C or SIGTERM. In a real process a second one while stopping ends the process at once.
   */
  nextStop(): Promise<NodeJS.Signals>;
}

export interface Clock {
  /** Wall clock in ms. */
  now(): number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface Runtime {
  signals: Signals;
  clock: Clock;
  /**
   * The engine every command uses, instead of the one the resolved target would create (the local
   * instance under MEDIAGEN_HOME, or the hosted client). The CLI does not close it: its owner does.
   */
  engine?: () => Promise<Engine>;
}

/** Real timers: a sleep that ends early when `signal` aborts. */
export function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export const realClock: Clock = { now: () => Date.now(), sleep: realSleep };

/** Ctrl-C as an AbortSignal: aborting it interrupts a wait or a download, and stops `serve`. */
export function signalsFrom(signal: AbortSignal | undefined): Signals {
  if (!signal) {
    return { onInterrupt: () => () => {}, nextStop: () => new Promise<NodeJS.Signals>(() => {}) };
  }
  return {
    onInterrupt(handler) {
      // Already aborted: the handler still runs, once, as a Ctrl-C that came first.
      if (signal.aborted) {
        handler();
        return () => {};
      }
      signal.addEventListener("abort", handler, { once: true });
      return () => signal.removeEventListener("abort", handler);
    },
    nextStop: () =>
      new Promise<NodeJS.Signals>((resolve) => {
        if (signal.aborted) resolve("SIGINT");
        else signal.addEventListener("abort", () => resolve("SIGINT"), { once: true });
      }),
  };
}

/** A runtime that is never interrupted, on real timers. */
export function defaultRuntime(): Runtime {
  return { signals: signalsFrom(undefined), clock: realClock };
}
