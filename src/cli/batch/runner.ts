/**
 * Runs the lines of a batch: at most `parallel` lines at once, every request through one pacer
 * (pacer.ts), each job followed on the spec's schedule, results saved under `out`, and every step
 * recorded in the manifest before and after it happens (manifest.ts), so that a batch killed at any
 * moment and run again pays for no line twice.
 *
 * The window between "start request sent" and "job id recorded": before each start the line's
 * intent is appended and fsync'ed; after the answer its job ids are. A re-run that finds an intent
 * without ids does not send again blindly:
 * - on the local instance it asks the instance for a start of that operation, space and request made
 *   at or after the intent and not held by another line (started-jobs.ts); found, the line adopts it
 *   and goes on watching it; not found, the request never landed and is sent again;
 * - on the hosted service (no idempotency key, no job listing) the outcome cannot be known: the line
 *   is `unknown`, reported with what to check, and sent again only with `--retry-unknown`.
 */
import path from "node:path";
import fs from "node:fs";
import type { CallOptions, Engine, OpName, Target } from "../../engine/engine.js";
import { localSchedule } from "../../contract/poll.js";
import { startOp, type BatchLine, type BatchKind } from "./input.js";
import { jobLife, lifeOf } from "../../features/lives.js";
import { lifeState, type JobLife, type StartedJob } from "../../features/life.js";
import { startFacts, type StartFacts } from "../../features/start-facts.js";
import { apply, claimedIds, emptyLine, type Event, type LineState, type Manifest, type ManifestWriter, type Phase, type Step, type StepState } from "./manifest.js";
import { type Pacer, PRIORITY, rateInfoOf, type PacerClock } from "./pacer.js";
import { addCredits, type LinePrice } from "./price.js";
import { INSUFFICIENT, missingOf, shortfallOf, totalMissing, type Shortfall } from "./shortfall.js";
import { classifyPollError } from "../wait.js";

/** What a start made (its ids, what it debited: null when its answer does not say), as its operation's life reads it. */
export type FoundStart = StartFacts;

export interface RunnerDeps {
  engine: Engine;
  target: Target;
  clock: PacerClock;
  /** Aborted on Ctrl-C: no new line starts, waits stop. */
  signal: AbortSignal;
  pacer: Pacer;
  writer: ManifestWriter;
  manifest: Manifest;
  /** Saves a media URL as `dir/name` (atomic; overwrites). */
  save(url: string, dir: string, name: string): Promise<string>;
  /** Local instance only: a start of the operation `op` announced at `since` that landed (see the module comment). */
  findStarted?(op: string, since: string, body: Record<string, unknown>, claimed: ReadonlySet<string>): Promise<FoundStart | undefined>;
  /** Progress and results (the command draws or prints them). */
  report(e: BatchEvent): void;
}

export interface RunnerOptions {
  parallel: number;
  out: string;
  name: string;
  maxCredits?: number;
  retryFailed: boolean;
  retryUnknown: boolean;
  /** Per job: give up waiting after this long (the line stays resumable). */
  timeoutMs: number;
  /** Poll interval override (ms); default the spec's schedules, faster on the local target. */
  intervalMs?: number;
}

export type LineOutcome = "done" | "failed" | "skipped_budget" | "insufficient_credits" | "unknown" | "incomplete" | "skipped_done" | "skipped_failed" | "interrupted";

export type BatchEvent =
  | {
      event: "line";
      line: number;
      kind: BatchKind;
      status: LineOutcome;
      ids?: string[];
      paths?: string[];
      cost?: number;
      price?: number | null;
      missing?: number | null;
      code?: string;
      message?: string;
    }
  | { event: "started"; line: number; kind: BatchKind; step: Step; ids: string[]; cost: number; adopted?: boolean; avatar_id?: string }
  | { event: "progress" };

export interface BatchSummary {
  lines: number;
  done: number;
  failed: number;
  skipped_budget: number;
  /** Lines whose start the service refused for want of credits (402): nothing debited. */
  insufficient_credits: number;
  /** Credits to add for those lines to start (null when a refusal did not say). */
  credits_missing: number | null;
  unknown: number;
  incomplete: number;
  /** Credits debited at start by the lines of this batch (this run and earlier runs). */
  credits: number;
  /** Of those, debited by this run. */
  credits_this_run: number;
  /** Lines done by this run (the others of `done` were done by an earlier run). */
  done_this_run: number;
  /** Credits the service gave back for jobs of this batch that failed (refunded automatically). */
  credits_refunded: number;
  /** Requests sent by this run, and 429s it met (waited out). */
  requests: number;
  rate_limited: number;
  interrupted: boolean;
}

/** Why a line stops short (recorded in the manifest, then reported). */
class LineStop extends Error {
  constructor(
    readonly outcome: "failed" | "skipped_budget" | "insufficient_credits" | "unknown" | "incomplete" | "interrupted",
    readonly step: Step,
    readonly phase: Phase,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One value in a file name: letters, digits, `.`, `_`, `-`; the rest become `-`. */
function safePart(v: string): string {
  return (
    v
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[-.]+|-+$/g, "")
      .slice(0, 80) || "x"
  );
}

/** `{line}-{kind}-{id}` and friends, plus the line's fields (`{model}`, CSV columns). */
export function fileName(template: string, l: BatchLine, id: string, index: number, ext: string): string {
  const vars: Record<string, string> = { ...l.fields, line: String(l.line), kind: l.kind, id, index: String(index), hash: l.hash };
  const base = template.replace(/\{([A-Za-z0-9_ -]+)\}/g, (m, k: string) => (k.trim() in vars ? safePart(vars[k.trim()]!) : m));
  return `${safePart(base)}${ext}`;
}

export class BatchRunner {
  private readonly states = new Map<number, LineState>();
  private committed = 0;
  /** What the earlier runs had debited. */
  private readonly before: number;
  private readonly reserved = new Map<number, number>();
  private readonly spent = new Map<number, number>();
  private readonly outcomes = new Map<number, LineOutcome>();
  /** Lines refused for want of credits in this run, with what the service said they lacked. */
  private readonly shortfalls = new Map<number, Shortfall>();
  private adoptLock: Promise<unknown> = Promise.resolve();
  private readonly names = new Set<string>();
  running = 0;

  constructor(
    private readonly lines: readonly BatchLine[],
    private readonly prices: ReadonlyMap<number, LinePrice>,
    private readonly deps: RunnerDeps,
    private readonly opts: RunnerOptions,
  ) {
    for (const l of lines) {
      const prev = deps.manifest.lines.get(l.line);
      const s = prev && prev.hash === l.hash ? prev : emptyLine(l.line, l.hash);
      this.states.set(l.line, s);
      const cost = Object.values(s.steps).reduce((n, st) => addCredits(n, st?.cost ?? 0), 0);
      this.spent.set(l.line, cost);
      this.committed = addCredits(this.committed, cost);
    }
    this.before = this.committed;
  }

  /** Credits of the lines whose job failed after its start: the service refunds them. */
  private refunded(): number {
    let n = 0;
    for (const l of this.lines) {
      const s = this.state(l);
      if (s.status === "failed" && s.failure?.phase === "job") n = addCredits(n, s.steps[s.failure.step]?.cost ?? 0);
    }
    return n;
  }

  outcome(line: number): LineOutcome | undefined {
    return this.outcomes.get(line);
  }

  /** Credits debited by the batch's lines so far, this run and the earlier ones. */
  get credits(): number {
    return this.committed;
  }

  counts(): { done: number; failed: number; running: number; total: number } {
    let done = 0;
    let failed = 0;
    for (const o of this.outcomes.values()) {
      if (o === "done" || o === "skipped_done") done++;
      else if (o !== "interrupted") failed++;
    }
    return { done, failed, running: this.running, total: this.lines.length };
  }

  private record(ev: Event): LineState {
    this.deps.writer.append({ ...ev });
    return apply(this.deps.manifest, ev);
  }

  private state(l: BatchLine): LineState {
    return this.deps.manifest.lines.get(l.line) ?? this.states.get(l.line)!;
  }

  async run(): Promise<BatchSummary> {
    const queue = [...this.lines];
    const worker = async () => {
      for (;;) {
        if (this.deps.signal.aborted) return;
        const l = queue.shift();
        if (!l) return;
        await this.runOne(l);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.opts.parallel, this.lines.length)) }, worker));
    for (const l of queue) this.outcomes.set(l.line, "interrupted");
    for (const l of this.lines) if (!this.outcomes.has(l.line)) this.outcomes.set(l.line, "interrupted");
    const all = [...this.outcomes.values()];
    const n = (...o: LineOutcome[]) => all.filter((x) => o.includes(x)).length;
    return {
      lines: this.lines.length,
      done: n("done", "skipped_done"),
      failed: n("failed", "skipped_failed"),
      skipped_budget: n("skipped_budget"),
      insufficient_credits: n("insufficient_credits"),
      credits_missing: totalMissing([...this.shortfalls.values()]),
      unknown: n("unknown"),
      incomplete: n("incomplete", "interrupted"),
      credits: this.committed,
      credits_this_run: Math.max(0, addCredits(this.committed, -this.before)),
      done_this_run: n("done"),
      credits_refunded: this.refunded(),
      requests: this.deps.pacer.sent,
      rate_limited: this.deps.pacer.limited,
      interrupted: this.deps.signal.aborted,
    };
  }

  private async runOne(l: BatchLine): Promise<void> {
    const s = this.state(l);
    if (s.status === "done") {
      this.finish(l, "skipped_done", { paths: s.paths });
      return;
    }
    // A start refused for want of credits debited nothing: the next run tries it again by itself.
    const refusedForCredits = s.status === "failed" && s.failure?.code === INSUFFICIENT && s.failure.phase === "start";
    if (s.status === "failed" && !this.opts.retryFailed && !refusedForCredits) {
      this.finish(l, "skipped_failed", { code: s.failure?.code, message: `failed earlier (${s.failure?.message ?? "no reason"}); --retry-failed runs it again` });
      return;
    }
    if (s.status === "unknown" && !this.opts.retryUnknown) {
      this.finish(l, "unknown", { code: "unknown_outcome", message: `${s.failure?.message ?? "the start may have landed"}; --retry-unknown sends it again` });
      return;
    }
    if (s.status === "failed" && s.failure) {
      // A refused start or a failed job starts that step over; a failed download only saves again.
      if (s.failure.phase === "start" || s.failure.phase === "job") this.record({ ev: "retry", line: l.line, hash: l.hash, step: s.failure.step });
    }
    if (s.status === "unknown" && s.failure) this.record({ ev: "retry", line: l.line, hash: l.hash, step: s.failure.step });
    // What an earlier attempt cost stays in the batch's total, not in this attempt's.
    if (s.status === "pending" && !Object.keys(s.steps).length) this.spent.set(l.line, 0);
    this.running++;
    this.deps.report({ event: "progress" });
    try {
      const paths = await this.execute(l);
      const cost = this.spent.get(l.line) ?? 0;
      this.record({ ev: "done", line: l.line, hash: l.hash, cost });
      this.finish(l, "done", { paths, cost, ids: this.ids(l) });
    } catch (e) {
      // Anything else (a manifest that cannot be written…) is not the job's fault: a retry goes on with what was started.
      const stop =
        e instanceof LineStop
          ? e
          : this.deps.signal.aborted
            ? new LineStop("interrupted", "start", "watch", "interrupted", "interrupted")
            : new LineStop("failed", "start", "watch", errCode(e), errMessage(e));
      if (stop.outcome === "failed" || stop.outcome === "insufficient_credits")
        this.record({ ev: "failed", line: l.line, hash: l.hash, step: stop.step, phase: stop.phase, code: stop.code, message: stop.message });
      this.finish(l, stop.outcome, { code: stop.code, message: stop.message, ids: this.ids(l), cost: this.spent.get(l.line) ?? 0 });
    } finally {
      this.running--;
      this.reserved.delete(l.line);
      this.deps.report({ event: "progress" });
    }
  }

  private ids(l: BatchLine): string[] {
    const s = this.state(l);
    return [...(s.steps.start?.ids ?? []), ...(s.steps.export?.ids ?? [])];
  }

  private finish(l: BatchLine, status: LineOutcome, extra: { paths?: string[]; cost?: number; ids?: string[]; code?: string | undefined; message?: string } = {}): void {
    this.outcomes.set(l.line, status);
    const ev: BatchEvent = { event: "line", line: l.line, kind: l.kind, status };
    if (extra.ids?.length) ev.ids = extra.ids;
    if (extra.paths?.length) ev.paths = extra.paths;
    if (extra.cost !== undefined) ev.cost = extra.cost;
    if (status === "skipped_budget") ev.price = this.prices.get(l.line)?.credits ?? null;
    const short = this.shortfalls.get(l.line);
    if (status === "insufficient_credits" && short) ev.missing = missingOf(short);
    if (extra.code !== undefined) ev.code = extra.code;
    if (extra.message !== undefined) ev.message = extra.message;
    this.deps.report(ev);
  }

  // ---- steps ------------------------------------------------------------------------------------------

  /**
   * A line is its start operation's life walked through (src/features/<f>/life.ts): the start sent
   * (or found), each job it made followed through its job life's status operation to a terminal
   * state, its result saved (a text the answer carries written); then, for a chained export, the
   * same walk of `exportStart` on the video the first step made.
   */
  private async execute(l: BatchLine): Promise<string[]> {
    const first = await this.walk(l, "start", startOp(l), l.body, l.simulate, l.export !== undefined);
    if (l.export === undefined) return first.paths;
    if (!first.videoId) throw new LineStop("failed", "start", "job", "no_video", `line ${l.line} made no video to export`);
    return (await this.walk(l, "export", "exportStart", { ...l.export, video_id: first.videoId }, undefined, false)).paths;
  }

  /** One start and the jobs it made; `chained`: the video it makes is exported next (its own file is not saved). */
  private async walk(
    l: BatchLine,
    step: Step,
    op: string,
    body: Record<string, unknown>,
    simulate: string | undefined,
    chained: boolean,
  ): Promise<{ paths: string[]; videoId?: string }> {
    const life = lifeOf(op);
    const st = await this.ensureStarted(l, step, op, body, async () => {
      const r = await this.deps.engine.call(op as OpName, body as never, this.callOpts(simulate));
      // A job the service names no id for is named by its line (`script-3`).
      const f = startFacts(op, body, r, (kind) => `${kind}-${l.line}`);
      if (!f.ids.length) throw new Error(`the answer to ${op} names no job`);
      return { ...f, cost: this.costOf(l, f.cost) };
    });
    const ids = st.ids ?? [];
    const job = life.makes ? jobLife(life.makes) : undefined;
    if (!job) return { paths: [] };
    if (job.answerText) {
      if (st.script === undefined)
        throw new LineStop(
          "failed",
          step,
          "download",
          `no_${job.kind}`,
          `the ${job.noun} was paid for but its text was lost in a crash; --retry-failed generates it again (and pays again)`,
        );
      return { paths: [this.writeText(l, st.script, ids[0]!)] };
    }
    // A look is read through its avatar (the start's record names it).
    const ref = (id: string): StartedJob => ({ kind: job.kind, id, ...(st.avatarId ? { avatar_id: st.avatarId } : {}) });
    // A job with no status of its own (a duplicate's video) is done when started.
    if (!job.status) return { paths: [], videoId: st.videoId ?? ids[0] };
    if (job.makesVideo) return this.videoOf(l, step, job, ref(ids[0]!), st, chained);
    const paths: string[] = [];
    for (const [i, id] of ids.entries()) {
      const x = await this.follow(step, job, ref(id));
      const file = lifeState(job, x) === "done" ? job.result?.(x) : undefined;
      if (!file) throw this.jobFailed(step, job, id, x);
      paths.push(await this.saveOnce(l, file.url, id, i + 1, step, `.${file.ext}`));
    }
    return { paths };
  }

  /** A job that makes a video: followed until the video is named (unless it is known and exported next); its thumbnail saved when not exported. */
  private async videoOf(l: BatchLine, step: Step, job: JobLife, ref: StartedJob, st: StepState, chained: boolean): Promise<{ paths: string[]; videoId?: string }> {
    if (st.videoId && chained) return { paths: [], videoId: st.videoId };
    const x = await this.follow(step, job, ref);
    const videoId = lifeState(job, x) === "done" ? job.history?.(x).video_id : undefined;
    if (!videoId) throw this.jobFailed(step, job, ref.id, x);
    if (!st.videoId) this.record({ ev: "result", line: l.line, hash: l.hash, step, video_id: videoId });
    const file = chained ? undefined : job.result?.(x);
    return { paths: file ? [await this.saveOnce(l, file.url, ref.id, 1, step, `.${file.ext}`)] : [], videoId };
  }

  /** A job that ended without its product: failed (its credits come back when its life says so). */
  private jobFailed(step: Step, job: JobLife, id: string, x: Record<string, unknown>): LineStop {
    const err = (x.error && typeof x.error === "object" ? x.error : {}) as { code?: unknown; message?: unknown };
    const code = typeof err.code === "string" && err.code ? err.code : "failed";
    const message = typeof err.message === "string" && err.message ? err.message : "no reason given";
    return new LineStop("failed", step, "job", code, `${job.noun} ${id} failed: ${message}${job.refund === "always" ? " (refunded)" : ""}`);
  }

  /** What a start debited: the service's figure, else (an answer without one) the line's price before sending. */
  private costOf(l: BatchLine, said: number | null | undefined): number {
    return typeof said === "number" ? said : (this.prices.get(l.line)?.credits ?? 0);
  }

  /** Every call tells the pacer about a 429 the engine waited out (there should be none). */
  private callOpts(simulate: string | undefined): CallOptions {
    return { ...(simulate !== undefined ? { simulate } : {}), onRateLimited: () => this.deps.pacer.rateLimited() };
  }

  /**
   * The job(s) of a step, started once: already recorded → as recorded; announced but not recorded
   * → found on the local instance, or unknown on the hosted service; otherwise the budget is
   * checked, the intent recorded, the request sent and its ids recorded.
   */
  private async ensureStarted(l: BatchLine, step: Step, op: string, body: Record<string, unknown>, send: () => Promise<FoundStart>): Promise<StepState> {
    const kind = lifeOf(op).batch?.kind ?? op;
    let st = this.state(l).steps[step];
    if (st?.ids) return st;
    if (st?.intentAt) {
      const found = await this.lookup(op, st.intentAt, body);
      if (found) return this.started(l, step, found, true);
      if (!this.deps.findStarted) {
        this.record({ ev: "unknown", line: l.line, hash: l.hash, step, message: this.unknownMessage(kind) });
        throw new LineStop("unknown", step, "start", "unknown_outcome", `${this.unknownMessage(kind)}; --retry-unknown sends it again`);
      }
      // Looked for and not there: the request never landed, so sending it is the first time.
    }
    if (step === "start") this.reserve(l);
    if (this.deps.signal.aborted) throw new LineStop("interrupted", step, "start", "interrupted", "interrupted");
    // The slot first, then the intent: an intent on record always means the request was sent (or about to be).
    const { pacer, engine } = this.deps;
    await pacer.acquire(PRIORITY.start).catch(() => {
      throw new LineStop("interrupted", step, "start", "interrupted", "interrupted");
    });
    const at = new Date(this.deps.clock.now()).toISOString();
    let res: FoundStart;
    try {
      this.record({ ev: "intent", line: l.line, hash: l.hash, step, at });
    } catch (e) {
      pacer.settle(undefined);
      throw e;
    }
    try {
      res = await send();
      pacer.settle(engine.lastRateLimit());
    } catch (e) {
      pacer.settle(rateInfoOf(e) ?? engine.lastRateLimit());
      if (mayHaveLanded(e) || this.deps.signal.aborted) {
        const found = await this.lookup(op, at, body);
        if (found) return this.started(l, step, found, true);
        if (!this.deps.findStarted) {
          const message = `${errMessage(e)}; ${this.unknownMessage(kind)}`;
          this.record({ ev: "unknown", line: l.line, hash: l.hash, step, message });
          throw new LineStop("unknown", step, "start", "unknown_outcome", message);
        }
      }
      const short = shortfallOf(e);
      if (short) {
        this.shortfalls.set(l.line, short);
        throw new LineStop(
          "insufficient_credits",
          step,
          "start",
          INSUFFICIENT,
          `${kind} start refused for want of credits: ${errMessage(e)} (nothing was debited; the next run tries it again)`,
        );
      }
      throw new LineStop("failed", step, "start", errCode(e), `${kind} start refused: ${errMessage(e)}${mayHaveLanded(e) ? "" : " (nothing was debited)"}`);
    }
    st = this.started(l, step, res, false);
    return st;
  }

  private started(l: BatchLine, step: Step, found: FoundStart, adopted: boolean): StepState {
    const f = { ...found, cost: this.costOf(l, found.cost) };
    const s = this.record({
      ev: "started",
      line: l.line,
      hash: l.hash,
      step,
      ids: f.ids,
      cost: f.cost,
      ...(adopted ? { adopted: true } : {}),
      ...(f.look_id ? { look_id: f.look_id } : {}),
      ...(f.avatar_id ? { avatar_id: f.avatar_id } : {}),
      at: new Date(this.deps.clock.now()).toISOString(),
    });
    if (f.video_id || f.script !== undefined) {
      this.record({
        ev: "result",
        line: l.line,
        hash: l.hash,
        step,
        ...(f.video_id ? { video_id: f.video_id } : {}),
        ...(f.script !== undefined ? { script: f.script } : {}),
      });
    }
    this.spent.set(l.line, addCredits(this.spent.get(l.line) ?? 0, f.cost));
    this.committed = addCredits(this.committed, f.cost);
    this.deps.report({
      event: "started",
      line: l.line,
      kind: l.kind,
      step,
      ids: f.ids,
      cost: f.cost,
      ...(adopted ? { adopted: true } : {}),
      ...(f.avatar_id ? { avatar_id: f.avatar_id } : {}),
    });
    return s.steps[step]!;
  }

  private unknownMessage(kind: string): string {
    return this.deps.target === "hosted"
      ? `the ${kind} start was sent but its answer was not recorded, and the hosted service cannot be asked whether it landed (check the dashboard's recent jobs and the balance)`
      : `the ${kind} start may have landed; it could not be looked up`;
  }

  /** One lookup at a time, so two lines in doubt never adopt the same job. */
  private lookup(op: string, since: string, body: Record<string, unknown>): Promise<FoundStart | undefined> {
    const find = this.deps.findStarted;
    if (!find) return Promise.resolve(undefined);
    const next = this.adoptLock.then(() => find(op, since, body, claimedIds(this.deps.manifest)));
    this.adoptLock = next.catch(() => undefined);
    return next;
  }

  /** `--max-credits`: the line's whole price must fit beside what is spent and reserved. */
  private reserve(l: BatchLine): void {
    const max = this.opts.maxCredits;
    if (max === undefined || this.reserved.has(l.line)) return;
    const price = this.prices.get(l.line)?.credits ?? null;
    const skip = (why: string) => {
      this.record({ ev: "skipped_budget", line: l.line, hash: l.hash, price });
      return new LineStop("skipped_budget", "start", "start", "over_max_credits", why);
    };
    if (price === null) throw skip(`its price is not known before it starts (${this.prices.get(l.line)?.basis ?? "unknown"}), so --max-credits cannot allow it`);
    let pending = 0;
    for (const [line, r] of this.reserved) pending = addCredits(pending, Math.max(0, r - (this.spent.get(line) ?? 0)));
    const total = addCredits(addCredits(this.committed, pending), price);
    if (total > max) throw skip(`it would cost ${price} credits, taking the batch to ${total}, over --max-credits ${max}`);
    this.reserved.set(l.line, price);
  }

  /** Polls one job through its life's status operation, on its schedule (faster on the local target), through the pacer, until a terminal state. */
  private async follow(step: Step, job: JobLife, ref: StartedJob): Promise<Record<string, unknown>> {
    const { clock, signal, pacer, engine } = this.deps;
    const { op, request, schedule } = job.status!;
    const poll = async () => (await engine.call(op as OpName, request(ref) as never, this.callOpts(undefined))) as Record<string, unknown>;
    const t0 = clock.now();
    const delay = (elapsed: number) => this.opts.intervalMs ?? (this.deps.target === "local" ? localSchedule(elapsed) : schedule(elapsed));
    for (;;) {
      if (signal.aborted) throw new LineStop("interrupted", step, "job", "interrupted", "interrupted");
      let x: Record<string, unknown>;
      try {
        x = await pacer.run(PRIORITY.poll, poll, () => engine.lastRateLimit());
      } catch (e) {
        if (signal.aborted) throw new LineStop("interrupted", step, "watch", "interrupted", "interrupted");
        // A 5xx, a reset or a 429 is a missed read, as for --watch (src/cli/wait.ts): the job did not
        // fail; read it again on the schedule, until the timeout.
        const elapsed = clock.now() - t0;
        if (classifyPollError(e).kind !== "fatal" && elapsed < this.opts.timeoutMs) {
          await clock.sleep(delay(elapsed), signal).catch(() => undefined);
          continue;
        }
        // The job is paid for and may still finish: a retry watches it again, it does not start it again.
        throw new LineStop("failed", step, "watch", errCode(e), `reading its status failed: ${errMessage(e)} (--retry-failed watches it again, without a new start)`);
      }
      if (lifeState(job, x) !== "pending") return x;
      const elapsed = clock.now() - t0;
      if (elapsed >= this.opts.timeoutMs) {
        throw new LineStop("incomplete", step, "job", "timeout", `still ${String(x.status)} after ${Math.round(elapsed / 1000)} s; run the batch again to keep waiting`);
      }
      await clock.sleep(delay(elapsed), signal).catch(() => undefined);
    }
  }

  private uniqueName(name: string): string {
    let n = name;
    for (let i = 2; this.names.has(n); i++) {
      const ext = path.extname(name);
      n = `${name.slice(0, name.length - ext.length)}-${i}${ext}`;
    }
    this.names.add(n);
    return n;
  }

  /** Saves a result once: a file this line already saved (recorded and on disk) is not fetched again. */
  private async saveOnce(l: BatchLine, url: string, id: string, index: number, step: Step, ext: string): Promise<string> {
    const name = this.uniqueName(fileName(this.opts.name, l, id, index, ext));
    const target = path.resolve(this.opts.out, name);
    if (this.state(l).paths.includes(target) && fs.existsSync(target)) return target;
    let saved: string;
    try {
      saved = await this.deps.save(url, this.opts.out, name);
    } catch (e) {
      if (this.deps.signal.aborted) throw new LineStop("interrupted", step, "download", "interrupted", "interrupted");
      throw new LineStop(
        "failed",
        step,
        "download",
        errCode(e),
        `saving ${name} failed: ${errMessage(e)} (the job is paid; --retry-failed saves it again without a new start)`,
      );
    }
    this.record({ ev: "saved", line: l.line, hash: l.hash, path: saved });
    return saved;
  }

  private writeText(l: BatchLine, text: string, id: string): string {
    const name = this.uniqueName(fileName(this.opts.name, l, id, 1, ".txt"));
    const target = path.resolve(this.opts.out, name);
    fs.mkdirSync(this.opts.out, { recursive: true });
    const tmp = `${target}.${process.pid}.part`;
    fs.writeFileSync(tmp, text.endsWith("\n") ? text : `${text}\n`);
    fs.renameSync(tmp, target);
    this.record({ ev: "saved", line: l.line, hash: l.hash, path: target });
    return target;
  }
}

function errCode(e: unknown): string {
  const c = e && typeof e === "object" ? (e as { code?: unknown }).code : undefined;
  return typeof c === "string" && c ? c : "error";
}

function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The failures after which a start may still have been acted on (guarded-engine.ts's rule). */
function mayHaveLanded(e: unknown): boolean {
  const x = (e && typeof e === "object" ? e : {}) as { name?: string; status?: unknown; message?: unknown };
  if (x.name === "ApiError") return typeof x.status === "number" && x.status >= 500;
  if (x.name === "UnexpectedResponseError") return true;
  if (x.name === "NetworkError") return typeof x.message === "string" && x.message.includes("may have reached the service");
  if (x.name === "CliError" && (e as { code?: string }).code === "interrupted") return true;
  return false;
}
