/** Runs `handler` on Ctrl-C (SIGINT) until the returned function is called: waits and downloads stop cleanly. */
export function processInterrupt(handler: () => void): () => void {
  process.on("SIGINT", handler);
  return () => process.off("SIGINT", handler);
}
