/**
 * The two batch commands once their flags are checked: `price` (every line's price and the total,
 * nothing started) and `run` (the runner with its manifest, pacer, progress and summary).
 *
 * Output of `run`: without --json, each saved file's path on stdout as its line ends, progress on
 * stderr (a bar redrawn in place on a terminal, one line per finished line elsewhere) and a summary
 * at the end; with --json, NDJSON events on stdout (`started`, `line`, then `summary`).
 */
import type { CommandContext } from "../command-context.js";
import type { Engine } from "../../engine/engine.js";
import { CliError, EXIT } from "../types.js";
import { startOp, type BatchLine } from "./input.js";
import { jobLife, lifeOf } from "../../features/lives.js";
import { lockManifest, ManifestWriter, readManifest } from "./manifest.js";
import { Pacer, PRIORITY } from "./pacer.js";
import { addCredits, priceLine, type LinePrice } from "./price.js";
import { BatchRunner, type BatchEvent, type BatchSummary, type FoundStart } from "./runner.js";
import { formatDuration } from "../parse.js";
import { fitLine, stderrWidth, table } from "../output.js";
import { counted } from "../../engine/words.js";

export interface RunBatchOptions {
  parallel: number;
  out: string;
  name: string;
  manifestPath: string;
  input: string;
  timeoutMs: number;
  intervalMs?: number;
  maxCredits?: number;
  retryFailed: boolean;
  retryUnknown: boolean;
  findStarted(): Promise<((op: string, since: string, body: Record<string, unknown>, claimed: ReadonlySet<string>) => Promise<FoundStart | undefined>) | undefined>;
}

const credits = (n: number) => `${n} credit${n === 1 ? "" : "s"}`;

/** Every line's price, through the pacer (the asset prices are requests too). */
async function pricesOf(ctx: CommandContext, lines: readonly BatchLine[], pacer: Pacer): Promise<Map<number, LinePrice>> {
  const engine = await ctx.engine();
  const target = engine.target;
  const prices = new Map<number, LinePrice>();
  await Promise.all(
    lines.map(async (l) => {
      try {
        const p = await priceLine(l, target, (body) =>
          pacer.run(
            PRIORITY.poll,
            () => engine.assetPricing(body as never),
            () => engine.lastRateLimit(),
          ),
        );
        prices.set(l.line, p);
      } catch (e) {
        const x = e as { message?: string; code?: string };
        prices.set(l.line, { credits: null, basis: `not priced: ${x.message ?? String(e)}${x.code ? ` (code ${x.code})` : ""}`, exact: false });
      }
    }),
  );
  return prices;
}

export async function priceBatch(ctx: CommandContext, lines: readonly BatchLine[]): Promise<void> {
  const ac = new AbortController();
  const off = ctx.onInterrupt(() => ac.abort(new CliError("Interrupted; nothing was started.", EXIT.interrupted, "interrupted")));
  try {
    const pacer = new Pacer(ctx.runtime.clock, ac.signal);
    const prices = await pricesOf(ctx, lines, pacer);
    let total = 0;
    const unknown: number[] = [];
    const rows = lines.map((l) => {
      const p = prices.get(l.line)!;
      if (p.credits === null) unknown.push(l.line);
      else total = addCredits(total, p.credits);
      return { line: l.line, kind: l.kind, credits: p.credits, exact: p.exact, basis: p.basis };
    });
    const result = { lines: rows, total, unknown };
    ctx.print(
      result,
      (r) => [
        ...table(r.lines, [
          { header: "line", get: (x) => x.line, align: "right" },
          { header: "kind", get: (x) => x.kind },
          { header: "credits", get: (x) => (x.credits === null ? "unknown" : `${x.exact ? "" : "~"}${x.credits}`), align: "right" },
          { header: "basis", get: (x) => x.basis, optional: true },
        ]),
        `total: ${credits(r.total)} for ${r.lines.length - r.unknown.length} line${r.lines.length - r.unknown.length === 1 ? "" : "s"}` +
          (r.unknown.length ? `; not known before starting: line${r.unknown.length === 1 ? "" : "s"} ${r.unknown.join(", ")}` : ""),
      ],
      (r) => [String(r.total)],
    );
    if (!ctx.opts.json) ctx.io.info("Nothing was started.");
  } finally {
    off();
  }
}

/**
 * Jobs the batch starts go to the history too (`mediagen history`, `mediagen download <id>`): the
 * engine records every start it makes (src/cli/guarded-engine.ts); what is left is a start a crash
 * left unrecorded, which the batch found on the instance and adopted.
 */
function journal(ctx: CommandContext, lines: readonly BatchLine[], e: Extract<BatchEvent, { event: "started" }>): void {
  const l = lines.find((x) => x.line === e.line);
  if (!l || !ctx.recordJobs || !e.adopted) return;
  // The job kind the step's start makes (its life's `makes`); a job the service names no id for (a script) has no history entry to keep.
  const kind = lifeOf(e.step === "export" ? "exportStart" : startOp(l)).makes;
  if (!kind || jobLife(kind).idMadeUp) return;
  const b = l.body;
  const prompt = typeof b.prompt === "string" ? b.prompt : typeof b.script === "string" ? b.script : undefined;
  const per = e.ids.length ? Math.round((e.cost / e.ids.length) * 1000) / 1000 : e.cost;
  void ctx
    .recordJobs(
      e.ids.map((id) => ({
        kind,
        id,
        model: kind === "asset" && typeof b.model === "string" ? b.model : null,
        cost: per,
        status: kind === "asset" ? "generating" : "pending",
        ...(kind === "look" && e.avatar_id ? { avatar_id: e.avatar_id } : {}),
        ...(prompt !== undefined && kind !== "export" ? { prompt } : {}),
      })),
    )
    .catch(() => undefined);
}

/** What became of a finished line's jobs, for the history. */
function journalDone(ctx: CommandContext, lines: readonly BatchLine[], e: Extract<BatchEvent, { event: "line" }>): void {
  const l = lines.find((x) => x.line === e.line);
  if (!l || !ctx.recordUpdates) return;
  // Each id's kind is the one the history recorded at its start (no guess from its shape).
  const updates = (e.ids ?? []).map((id) => {
    const saved = (e.paths ?? []).find((p) => p.includes(id));
    return { id, status: "completed", ...(saved ? { saved } : {}) };
  });
  void ctx.recordUpdates(updates).catch(() => undefined);
}

/** The progress a person sees on stderr. */
class Progress {
  private readonly t0: number;
  private lastDraw = 0;
  private drawn = false;
  constructor(
    private readonly ctx: CommandContext,
    private readonly runner: () => BatchRunner | undefined,
    private readonly now: () => number,
  ) {
    this.t0 = now();
  }

  private get bar(): boolean {
    return this.ctx.io.isStderrTTY && !this.ctx.opts.json && !this.ctx.opts.quiet;
  }

  private line(): string {
    const r = this.runner();
    if (!r) return "";
    const c = r.counts();
    const finished = c.done + c.failed;
    const width = 24;
    const filled = c.total ? Math.round((finished / c.total) * width) : 0;
    const elapsed = this.now() - this.t0;
    const eta = finished > 0 && finished < c.total ? ` · ETA ${formatDuration((elapsed / finished) * (c.total - finished))}` : "";
    return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${c.done}/${c.total} done · ${c.failed} failed · ${c.running} running · ${credits(r.credits)}${eta}`;
  }

  event(e: BatchEvent): void {
    const { ctx } = this;
    if (ctx.opts.json) {
      if (e.event !== "progress") ctx.io.out(JSON.stringify(e));
      return;
    }
    if (e.event === "line") {
      // A line done by an earlier run still names its files: stdout lists the batch's files, every run.
      const saved = e.status === "done" || e.status === "skipped_done" ? (e.paths ?? []) : [];
      // The bar shares the terminal with stdout: cleared first, so a path never follows it on its line.
      if (saved.length) this.clear();
      for (const p of saved) ctx.io.out(p);
      if (!this.bar) {
        const what =
          e.status === "done"
            ? `done${e.paths?.length ? ` → ${e.paths.join(", ")}` : ""}`
            : e.status === "skipped_done"
              ? "already done"
              : `${e.status}${e.message ? `: ${e.message}` : ""}`;
        ctx.io.info(`line ${e.line} ${e.kind}: ${what}`);
      } else if (e.status !== "done" && e.status !== "skipped_done" && e.status !== "interrupted") {
        this.clear();
        ctx.io.info(`line ${e.line} ${e.kind}: ${e.status}${e.message ? `: ${e.message}` : ""}`);
      }
    }
    this.draw();
  }

  /** The batch holds its requests until the rate-limit window resets: said, so the pause is not a hang. */
  rateWait(ms: number, limit: number): void {
    const { ctx } = this;
    if (ctx.opts.quiet) return;
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    this.clear();
    ctx.io.info(
      ctx.opts.json
        ? JSON.stringify({ event: "rate_limit_wait", wait_s: seconds, limit })
        : `waiting ${seconds} s for the service's rate-limit window (${counted(limit, "request")} per window, all used)`,
    );
    this.draw(true);
  }

  draw(force = false): void {
    if (!this.bar) return;
    const t = this.now();
    if (!force && t - this.lastDraw < 100) return;
    this.lastDraw = t;
    this.ctx.io.stderr.write(`\r\x1b[K${fitLine(this.line(), stderrWidth(this.ctx.io) - 1)}`);
    this.drawn = true;
  }

  clear(): void {
    if (this.drawn) this.ctx.io.stderr.write("\r\x1b[K");
    this.drawn = false;
  }
}

export async function runBatch(ctx: CommandContext, lines: readonly BatchLine[], o: RunBatchOptions): Promise<void> {
  const engine = await ctx.engine();
  const target = engine.target;
  if (target === "hosted") {
    const sim = lines.find((l) => l.simulate !== undefined);
    if (sim) {
      throw new CliError(
        `line ${sim.line}: "simulate" is for the local instance only; on the hosted target it would start a real, paid job`,
        EXIT.usage,
        "usage_error",
        "simulate",
      );
    }
  }
  // The lock first, so the manifest read is the one this run goes on from.
  const lock = lockManifest(o.manifestPath);
  if (typeof lock !== "function") {
    throw new CliError(
      `--manifest: another batch (pid ${lock.heldBy}) is running on ${o.manifestPath}; wait for it, or stop it and run again`,
      EXIT.usage,
      "manifest_locked",
      "--manifest",
    );
  }
  try {
    await runLocked(ctx, engine, lines, o);
  } finally {
    lock();
  }
}

/** The manifest must record a batch of this target and these lines (manifest_mismatch otherwise). */
function checkManifestFits(
  manifest: ReturnType<typeof readManifest>,
  lines: readonly BatchLine[],
  o: RunBatchOptions,
  target: Engine["target"],
  baseUrl: string | null,
): void {
  if (manifest.header && (manifest.header.target !== target || (manifest.header.base_url ?? null) !== baseUrl)) {
    throw new CliError(
      `--manifest: ${o.manifestPath} records a batch on the ${manifest.header.target} target${manifest.header.base_url ? ` (${manifest.header.base_url})` : ""}; its jobs are not on this one. Use another --out or --manifest.`,
      EXIT.usage,
      "manifest_mismatch",
      "--manifest",
    );
  }
  for (const l of lines) {
    const s = manifest.lines.get(l.line);
    if (s && s.hash !== l.hash && (s.status !== "pending" || Object.keys(s.steps).length)) {
      throw new CliError(
        `--manifest: line ${l.line} of ${o.input} is not the request ${o.manifestPath} recorded for it (the file changed since). ` +
          "Use another --out or --manifest for the new file, or restore it.",
        EXIT.usage,
        "manifest_mismatch",
        "--manifest",
      );
    }
  }
}

/** The summary on stdout (--json) or stderr, then the exit code of the batch. */
/** `3 credits debited this run (5 in all), 1 refunded`: this run apart from the batch's total. */
function creditsLine(s: BatchSummary): string {
  const all = s.credits === s.credits_this_run ? `${credits(s.credits)} debited` : `${credits(s.credits_this_run)} debited this run (${s.credits} in all)`;
  return `${all}${s.credits_refunded ? `, ${s.credits_refunded} refunded (failed jobs)` : ""}`;
}

async function reportSummary(ctx: CommandContext, summary: BatchSummary, o: RunBatchOptions): Promise<void> {
  const withManifest = { ...summary, manifest: o.manifestPath, out: o.out };
  if (ctx.opts.json) ctx.io.out(JSON.stringify({ event: "summary", ...withManifest }));
  else {
    const earlier = summary.done - summary.done_this_run;
    const parts = [`${summary.done}/${summary.lines} done${earlier ? ` (${summary.done_this_run} this run, ${earlier} before)` : ""}`];
    if (summary.failed) parts.push(`${summary.failed} failed`);
    if (summary.skipped_budget) parts.push(`${summary.skipped_budget} skipped (budget)`);
    if (summary.insufficient_credits) {
      const missing = summary.credits_missing === null ? "" : `: ${credits(summary.credits_missing)} missing`;
      parts.push(`${summary.insufficient_credits} refused for want of credits${missing}`);
    }
    if (summary.unknown) parts.push(`${summary.unknown} unknown`);
    if (summary.incomplete) parts.push(`${summary.incomplete} not finished`);
    ctx.io.warn(
      `Batch: ${parts.join(", ")}; ${creditsLine(summary)}; ${counted(summary.requests, "request")} this run${summary.rate_limited ? `, ${summary.rate_limited} rate-limited` : ""}.`,
    );
    ctx.io.info(`Manifest: ${o.manifestPath}${summary.done < summary.lines ? " (run the same command again to go on)" : ""}`);
    if (summary.insufficient_credits) await addCreditsHint(ctx, summary.credits_missing);
  }
  const code = exitCodeOf(summary);
  if (code !== EXIT.ok) {
    const err = new CliError(
      `batch: ${summary.lines - summary.done} of ${summary.lines} lines did not succeed`,
      code,
      summary.interrupted ? "interrupted" : "batch_incomplete",
    );
    err.shown = true;
    throw err;
  }
}

async function runLocked(ctx: CommandContext, engine: Engine, lines: readonly BatchLine[], o: RunBatchOptions): Promise<void> {
  const target = engine.target;
  const manifest = readManifest(o.manifestPath);
  // Where the jobs live: the hosted base URL, or the local instance's home.
  const baseUrl = ctx.runtime.engine ? null : target === "hosted" ? (ctx.resolve().config.baseUrl ?? null) : `local:${ctx.home}`;
  checkManifestFits(manifest, lines, o, target, baseUrl);
  const ac = new AbortController();
  const off = ctx.onInterrupt(() => ac.abort(new CliError("interrupted", EXIT.interrupted, "interrupted")));
  const writer = new ManifestWriter(o.manifestPath);
  let runner: BatchRunner | undefined;
  const progress = new Progress(
    ctx,
    () => runner,
    () => ctx.runtime.clock.now(),
  );
  let summary: BatchSummary;
  try {
    if (!manifest.header) {
      writer.append({ ev: "batch", v: 1, target, base_url: baseUrl, input: o.input, at: new Date(ctx.runtime.clock.now()).toISOString() });
      manifest.header = { target, base_url: baseUrl, input: o.input };
    }
    const pacer = new Pacer(ctx.runtime.clock, ac.signal);
    pacer.onWindowWait = (ms, limit) => progress.rateWait(ms, limit);
    const findStarted = await o.findStarted();
    // Prices are needed to hold the budget; without --max-credits the lines are priced by their starts.
    const todo = lines.filter((l) => manifest.lines.get(l.line)?.status !== "done");
    const prices = o.maxCredits !== undefined ? await pricesOf(ctx, todo, pacer) : new Map<number, LinePrice>();
    runner = new BatchRunner(
      lines,
      prices,
      {
        engine,
        target,
        clock: ctx.runtime.clock,
        signal: ac.signal,
        pacer,
        writer,
        manifest,
        save: (url, dir, name) => ctx.save(url, dir, name, { force: true, signal: ac.signal }),
        ...(findStarted ? { findStarted } : {}),
        report: (e) => {
          if (e.event === "started") journal(ctx, lines, e);
          if (e.event === "line" && e.status === "done") journalDone(ctx, lines, e);
          progress.event(e);
        },
      },
      {
        parallel: o.parallel,
        out: o.out,
        name: o.name,
        retryFailed: o.retryFailed,
        retryUnknown: o.retryUnknown,
        timeoutMs: o.timeoutMs,
        ...(o.intervalMs !== undefined ? { intervalMs: o.intervalMs } : {}),
        ...(o.maxCredits !== undefined ? { maxCredits: o.maxCredits } : {}),
      },
    );
    progress.draw(true);
    summary = await runner.run();
  } finally {
    off();
    writer.close();
    progress.clear();
  }
  await reportSummary(ctx, summary, o);
}

/** How to add the credits the refused lines lacked/** How to add the credits the refused lines lacked, on this target (stderr). */
async function addCreditsHint(ctx: CommandContext, missing: number | null): Promise<void> {
  const space = await ctx.localSpace().catch(() => undefined);
  ctx.io.info(
    space
      ? `Add credits with \`mediagen local credits add ${space.id} ${missing ?? "<credits>"}\`, then run the same command again: the refused lines start then.`
      : "Add credits on the service's dashboard, then run the same command again: the refused lines start then.",
  );
}

/**
 * 0 every line done; 130 interrupted; 7 a line failed or its outcome is unknown; 8 a job still ran
 * when its wait timed out; 5 lines were skipped by --max-credits or refused for want of credits (402)
 * (and nothing else went wrong).
 */
export function exitCodeOf(s: BatchSummary): number {
  if (s.interrupted) return EXIT.interrupted;
  if (s.failed || s.unknown) return EXIT.jobFailed;
  if (s.incomplete) return EXIT.timeout;
  if (s.skipped_budget || s.insufficient_credits) return EXIT.credits;
  return EXIT.ok;
}
