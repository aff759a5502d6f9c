/** How a wait shows progress: ora on an interactive stderr, one line per state change elsewhere. */
import { hasWidth, type FrameIO } from "./io.js";
import type { JobSummary, WaitEnding, WaitReporter, WaitState } from "./wait.js";
import { formatDuration } from "./parse.js";
import { errStyle, fitLine, wrapCell } from "./output.js";
import { redact } from "../engine/redact.js";
import { escapeControls, terminalLine } from "./terminal-text.js";

const silent: WaitReporter = { update() {}, missed() {}, stop() {} };

export async function createReporter(io: FrameIO, labels: readonly string[], json: boolean): Promise<WaitReporter> {
  if (io.quiet) return silent;
  // TERM=dumb, CI and 0-column terminals cannot redraw a line: they get the plain lines.
  if (io.isStderrTTY && io.animate) return spinnerReporter(io, labels);
  return lineReporter(io, json);
}

/** Off a TTY: a line per state change (NDJSON with --json), and one note per streak of missed polls of a job. */
export function lineReporter(io: Pick<FrameIO, "info">, json: boolean): WaitReporter {
  const missing = new Set<string>();
  const emit = (label: string, state: string, message: string, elapsedMs: number) =>
    io.info(
      json
        ? JSON.stringify({ label, state, message, elapsed_ms: Math.round(elapsedMs) })
        : `${label}: ${message} (${formatDuration(Math.round(elapsedMs / 1000) * 1000)})`,
    );
  return {
    update(label, state: WaitState, text, elapsedMs) {
      missing.delete(label);
      emit(label, state, text, elapsedMs);
    },
    missed(label, reason, elapsedMs) {
      if (missing.has(label)) return;
      missing.add(label);
      emit(label, "retrying", `poll missed (${reason}); retrying`, elapsedMs);
    },
    stop() {},
  };
}

/** The final mark of a job, painted only when stderr may have colour (errStyle is plain otherwise). */
export function finalMark(state: JobSummary["state"], ending: WaitEnding): string {
  if (state === "done") return errStyle.green("✔");
  if (state === "failed" || state === "error") return errStyle.red("✖");
  return errStyle.yellow(ending === "interrupted" ? "■" : "⚠");
}

/** What the spinner says: one job by its state, several jobs side by side. */
function spinnerText(labels: readonly string[], states: Map<string, string>): string {
  return redact(labels.map((l) => `${l}: ${states.get(l) || "waiting"}`).join(", "));
}

/**
 * The stream as ora sees it: a width of 0 (a terminal resized to nothing while the spinner runs)
 * reads as 80, because ora divides by it and would otherwise redraw forever.
 */
function withWidth(stream: FrameIO["stderr"]): NodeJS.WritableStream {
  return new Proxy(stream as NodeJS.WritableStream & { columns?: number }, {
    get(target, prop) {
      if (prop === "columns") return hasWidth(target.columns) ? target.columns : 80;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Elapsed time as the state lines write it: whole seconds, "(1m5s)". */
const elapsedText = (ms: number) => `(${formatDuration(Math.round(Math.max(0, ms) / 1000) * 1000)})`;

/**
 * The spinner on an interactive stderr. Like the state lines, it says how long the wait has run,
 * ticking every second between state changes. `now` is the clock (ms) for that count.
 */
export async function spinnerReporter(io: Pick<FrameIO, "stderr" | "stderrColor">, labels: readonly string[], now: () => number = Date.now): Promise<WaitReporter> {
  const { default: ora } = await import("ora");
  const states = new Map<string, string>();
  let retrying = "";
  // The wait's own elapsed time when it says one, carried forward by the clock between reports.
  let base = 0;
  let baseAt = now();
  const elapsed = () => base + (now() - baseAt);
  // Cut to the terminal (less the spinner's frame and space), so a long line never wraps mid-word.
  const columns = () => (io.stderr as { columns?: number }).columns;
  const text = () => fitLine(`${spinnerText(labels, states)}${retrying} ${elapsedText(elapsed())}`, hasWidth(columns()) ? columns()! - 2 : Infinity);
  const spinner = ora({
    stream: withWidth(io.stderr),
    discardStdin: false,
    isEnabled: true,
    color: io.stderrColor ? "cyan" : false,
  }).start(text());
  const tick = setInterval(() => (spinner.text = text()), 1000);
  tick.unref();
  const at = (ms: number) => {
    base = ms;
    baseAt = now();
  };
  return {
    update(label, _state, t, elapsedMs) {
      states.set(label, escapeControls(t));
      retrying = "";
      at(elapsedMs);
      spinner.text = text();
    },
    missed(_label, reason, elapsedMs) {
      retrying = ` (retrying: ${escapeControls(reason)})`;
      at(elapsedMs);
      spinner.text = text();
    },
    stop(ending, jobs) {
      clearInterval(tick);
      // ora's own symbols pick their colour by themselves; ours follow --no-color and NO_COLOR.
      spinner.stop();
      const took = elapsedText(elapsed());
      // These lines stay: wrapped at words to the terminal (an id is never cut), not cut like the spinner.
      const width = hasWidth(columns()) ? columns()! : Infinity;
      for (const j of jobs) {
        for (const l of wrapCell(redact(`${finalMark(j.state, ending)} ${j.label}: ${j.text || "waiting"} ${took}`), width)) io.stderr.write(terminalLine(l) + "\n");
      }
    },
  };
}
