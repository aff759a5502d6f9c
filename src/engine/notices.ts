/**
 * Notes about slow work done inside a call that a person should hear about ("drawing the catalog's
 * pictures…"), from code that has no terminal of its own (the local instance's features). The CLI
 * frame sets where they go (stderr) for as long as it runs a command; elsewhere (the worker, serve,
 * tests without a frame) they go nowhere.
 */
type Sink = (message: string) => void;

let sink: Sink | undefined;

/** Sets where notes go; returns the previous sink, to put back. */
export function setNoticeSink(next: Sink | undefined): Sink | undefined {
  const prev = sink;
  sink = next;
  return prev;
}

export function notice(message: string): void {
  sink?.(message);
}
