/**
 * --debug tracing. Every line goes through redact(), so a key that slips into a URL, a message or a
 * header never reaches the terminal.
 */
import type { Writable } from "node:stream";
import { redact } from "../engine/redact.js";
import { escapeControls } from "./terminal-text.js";

export type Trace = (line: string) => void;

export function createTracer(stderr: Writable, enabled: boolean, now: () => number = () => performance.now()): Trace | undefined {
  if (!enabled) return undefined;
  const start = now();
  return (line) => {
    const t = ((now() - start) / 1000).toFixed(3);
    stderr.write(escapeControls(redact(`[debug +${t}s] ${line}`)) + "\n");
  };
}
