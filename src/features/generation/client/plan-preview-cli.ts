/**
 * `mediagen plan preview <plan.json> [-o preview.mp4]`: the plan rendered by the local instance,
 * whatever the profile's target, free and at draft quality (generation/preview.ts does the work,
 * through the context's door into the local target). Prints the file, its timeline, and the ids
 * that stood in for ones the local instance does not have; on a terminal, offers to open the file.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { CliError, EXIT, type Context } from "../../../cli/types.js";
import { isCI, type Env } from "../../../cli/io.js";
import type { PreviewResult } from "../preview-types.js";

export interface PreviewFlags {
  output: string;
  animateImage?: boolean;
  open?: boolean;
  /** The wizard's preview: the report goes to stderr, so stdout keeps only the saved plan's path. */
  reportOnStderr?: boolean;
}

const secs = (ms: number) => `${(Math.round(ms / 100) / 10).toFixed(1)} s`;

export function previewLines(r: PreviewResult): string[] {
  const lines = [
    `Preview: ${r.file} (${r.width}x${r.height}, a quarter of the full ${r.full_width}x${r.full_height}; ${secs(r.duration_ms)}, ${r.frames} frames; rendered locally in ${secs(r.timings.total)}, no credits used)`,
  ];
  for (const s of r.sequences) {
    const say = s.text === null ? "(silence)" : `"${s.text.length > 60 ? s.text.slice(0, 59) + "…" : s.text}"`;
    lines.push(
      `  ${secs(s.start_ms).padStart(7)}–${secs(s.end_ms).padEnd(7)} block ${s.block + 1} seq ${s.index + 1}  ${say}${s.media_show ? ` · media ${s.media_show}` : ""}`,
    );
  }
  if (r.substitutions.length) {
    lines.push("Not on the local instance (stand-ins used):");
    for (const x of r.substitutions) lines.push(`  ${x.field}: ${x.id} → ${x.stood_in ?? "nothing"} (${x.note})`);
  }
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  return lines;
}

/**
 * Where a plan's preview goes by default: `<plan>.preview.mp4` beside the plan (as the wizard writes
 * it), so the previews of two plans do not replace each other; `preview.mp4` for a plan from stdin.
 */
export function previewPathFor(planFile: string): string {
  return planFile === "-" ? "preview.mp4" : planFile.replace(/(\.json)?$/i, ".preview.mp4");
}

/** Whether this machine can show a file in a desktop player: a desktop session (macOS, Windows, X or Wayland). */
function hasDesktop(env: Env): boolean {
  return process.platform === "darwin" || process.platform === "win32" || !!env.DISPLAY || !!env.WAYLAND_DISPLAY;
}

/** The desktop's opener for a file (xdg-open, open, start), detached: the command does not wait for the player. */
export function openFile(file: string): void {
  const [cmd, args] = process.platform === "darwin" ? ["open", [file]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", file]] : ["xdg-open", [file]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // no opener: the path was printed
  }
}

/** On a terminal (and not --json/--quiet), asks whether to open the preview. */
async function offerToOpen(ctx: Context, file: string, flags: PreviewFlags): Promise<void> {
  if (flags.open === false) return;
  const env = (ctx as { env?: Env }).env ?? {};
  const stdinTTY = (ctx.io.stdin as { isTTY?: boolean }).isTTY === true;
  if (!stdinTTY || !ctx.io.isStderrTTY || !ctx.opts.input || isCI(env) || ctx.opts.json || ctx.opts.quiet) return;
  // A headless box (ssh, a container) has nothing to open it with: say where it is instead of asking.
  if (!hasDesktop(env)) {
    ctx.io.info(`No desktop here to play it: copy ${file} to a machine with a player (e.g. scp) to watch it.`);
    return;
  }
  const { confirm } = await import("@inquirer/prompts");
  const yes = await confirm({ message: `Open ${path.basename(file)} now?`, default: true }, { input: ctx.io.stdin, output: ctx.io.stderr }).catch(() => false);
  if (yes) openFile(file);
}

export async function runPreview(ctx: Context, file: string, flags: PreviewFlags): Promise<PreviewResult> {
  if (!ctx.previewPlan) throw new CliError("plan preview needs the local instance, which this context cannot open", EXIT.error, "no_local_instance");
  const { loadPlan, judgePlan } = await import("./plan-io.js");
  const loaded = await loadPlan(ctx, file);
  // The plan's rules only: its ids are resolved by the local instance, with stand-ins.
  const verdict = await judgePlan(ctx, loaded, { offline: true });
  if (verdict.problems.length) {
    const first = verdict.problems[0]!;
    throw new CliError(`${loaded.from} has ${verdict.problems.length} problem(s); the first: ${first.message}`, EXIT.usage, first.code, first.field);
  }
  const body: Record<string, unknown> = { ...(loaded.request ?? {}), sequence_plan: loaded.plan };
  if (flags.animateImage) body.animate_image = true;
  const outPath = path.resolve(flags.output);
  const quiet = ctx.opts.json || ctx.opts.quiet;
  if (!quiet) ctx.io.info(`Previewing ${loaded.from} on the local instance (draft quality, free)…`);
  let lastStep = "";
  const ac = new AbortController();
  const frame = ctx as { onInterrupt?: (handler: () => void) => () => void };
  const stop = frame.onInterrupt ? frame.onInterrupt(() => ac.abort()) : () => undefined;
  let r: PreviewResult;
  try {
    r = await ctx.previewPlan({
      body,
      outPath,
      signal: ac.signal,
      onProgress: (step) => {
        if (step === lastStep || quiet) return;
        lastStep = step;
        ctx.io.info(`  ${step.toLowerCase().replace(/_/g, " ")}…`);
      },
    });
  } catch (e) {
    if (ac.signal.aborted) throw new CliError("Interrupted: no preview was written.", EXIT.interrupted, "interrupted");
    throw previewFailure(e);
  } finally {
    stop();
  }
  if (flags.reportOnStderr) for (const l of previewLines(r)) ctx.io.info(l);
  else ctx.print(r, previewLines, (x) => [x.file]);
  await offerToOpen(ctx, r.file, flags);
  return r;
}

/** A step that could not be done (a media that cannot be fetched, a render that failed): exit 1 with its code. */
function previewFailure(e: unknown): unknown {
  const x = e as { name?: string; code?: string; message?: string };
  if (x?.name === "StepFailure" || x?.name === "ExportError") {
    return new CliError(`preview failed: ${x.code ? `${x.code}: ` : ""}${x.message ?? String(e)}`, EXIT.error, x.code ?? "preview_failed");
  }
  return e;
}
