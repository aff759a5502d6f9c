/**
 * stdout belongs to the protocol for the whole session: an MCP client reads every line of it as a
 * JSON-RPC message, so one stray line (a notice, a warning, a console.log deep in a dependency)
 * would break the session. While the session runs, `write` on the stream goes to stderr instead,
 * and only the transport writes to stdout, through the handle returned here.
 */
import type { Writable } from "node:stream";

export interface StdoutGuard {
  /** What the transport writes protocol messages to (the real stdout). */
  protocol: Pick<Writable, "write" | "once">;
  /** Gives stdout back (end of the session). */
  restore(): void;
}

export function guardStdout(out: Writable, err: Writable): StdoutGuard {
  const original = out.write;
  const write = original.bind(out) as (chunk: string) => boolean;
  const divert = ((...args: Parameters<Writable["write"]>) => (err.write as (...a: unknown[]) => boolean)(...args)) as Writable["write"];
  out.write = divert;
  const protocol = {
    write: (chunk: string) => write(chunk),
    once: (event: string, listener: (...a: unknown[]) => void) => {
      out.once(event, listener);
      return protocol;
    },
  } as unknown as Pick<Writable, "write" | "once">;
  return {
    protocol,
    restore: () => {
      if (out.write === divert) out.write = original;
    },
  };
}
