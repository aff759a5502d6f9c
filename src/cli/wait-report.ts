/** How a wait shows progress: ora on a TTY stderr, one line per state change elsewhere. */
import type { FrameIO } from "./io.js";
import type { WaitReporter, WaitState } from "./wait.js";
import { formatDuration } from "./parse.js";

export async function createReporter(io: FrameIO, label: string, json: boolean): Promise<WaitReporter> {
  if (io.quiet) return { update() {}, missed() {}, stop() {} };
  if (io.isStderrTTY) return spinnerReporter(io, label);
  return lineReporter(io, label, json);
}

/** Off a TTY: a line per state change (NDJSON with --json), and one note per streak of missed polls. */
export function lineReporter(io: Pick<FrameIO, "info">, label: string, json: boolean): WaitReporter {
  let missing = false;
  const emit = (state: string, message: string, elapsedMs: number) =>
    io.info(
      json
        ? JSON.stringify({ label, state, message, elapsed_ms: Math.round(elapsedMs) })
        : `${label}: ${message} (${formatDuration(Math.round(elapsedMs / 1000) * 1000)})`,
    );
  return {
    update(state: WaitState, text, elapsedMs) {
      missing = false;
      emit(state, text, elapsedMs);
    },
    missed(reason, elapsedMs) {
      if (missing) return;
      missing = true;
      emit("retrying", `poll missed (${reason}); retrying`, elapsedMs);
    },
    stop() {},
  };
}

async function spinnerReporter(io: FrameIO, label: string): Promise<WaitReporter> {
  const { default: ora } = await import("ora");
  const spinner = ora({ stream: io.stderr as NodeJS.WritableStream, discardStdin: false, isEnabled: true, color: io.stderrColor ? "cyan" : false }).start(label);
  let text = "";
  return {
    update(_state, t) {
      text = t;
      spinner.text = `${label}: ${t}`;
    },
    missed(reason) {
      spinner.text = `${label}: ${text || "waiting"} (retrying: ${reason})`;
    },
    stop(outcome, t) {
      const line = `${label}: ${t || text}`;
      if (outcome === "done") spinner.succeed(line);
      else if (outcome === "failed") spinner.fail(line);
      else if (outcome === "timeout" || outcome === "interrupted") spinner.warn(line);
      else spinner.stop();
    },
  };
}
