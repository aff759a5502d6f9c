/**
 * Faults on demand: rules stored in the instance (table `fault_rules`, so every process of the
 * instance — in-process commands, `serve`, detached workers — sees the same ones) that make an
 * operation answer an error, wait, drop its connection, fail its job, stall it, report progress going
 * backwards, or drop, duplicate, delay or reorder its webhook. Each rule fires with a probability
 * and/or for the next N matches, and may expire. The read API (`list`) is what dashboards show.
 */
import { abortableSleep } from "../engine/sleep.js";
import { LocalAdminError } from "./admin-error.js";
import type { Routes } from "./fault-codes.js";
import { checkRule, stageOf, type CheckedRule, type FaultAction, type FaultRuleInput, type FaultStage } from "./fault-rule.js";
import type { SqlStatement as Statement } from "./db/driver.js";
import type { Clock, DB, IdGen, JobRow } from "./types.js";

export type { FaultAction, FaultRuleInput, FaultStage };

export interface FaultRuleView {
  id: string;
  op: string;
  action: FaultAction["kind"];
  /** The action's parameters (status and code, milliseconds, step…). */
  params: Omit<FaultAction, "kind">;
  space_id: string | null;
  key_id: string | null;
  probability: number;
  /** Matches left (null: no limit). */
  remaining: number | null;
  /** Times the rule fired. */
  hits: number;
  expires_at: string | null;
  /** `active`, `spent` (no matches left) or `expired`. */
  state: "active" | "spent" | "expired";
  source: string;
  created_at: string;
}

interface RuleRow {
  id: string;
  op: string;
  space_id: string | null;
  key_id: string | null;
  action: string;
  probability: number;
  remaining: number | null;
  hits: number;
  expires_at: number | null;
  source: string;
  created_at: number;
}

export interface FaultsHost {
  readonly db: DB;
  readonly clock: Clock;
  readonly ids: IdGen;
  tx<T>(fn: () => T): T;
  /** The route table: the operations request rules must name, with the codes each may answer. */
  routes(): Routes;
}

/** What a request gets from the rules that fired for it. */
export interface RequestFaults {
  /** Total added latency (every latency rule that fired). */
  delayMs: number;
  /** The first error, reset or empty response that fired; the request goes no further. */
  answer?: Extract<FaultAction, { kind: "error" | "reset" | "empty" }>;
  /** A job the request starts fails (`fail:<CODE>[@<STEP>]`, as X-Local-Simulate). */
  simulate?: string;
  /** The started job's worker waits this long before working. */
  stallMs?: number;
  /** Status reads: progress lowered by this many points. */
  backwardsBy?: number;
  /** Kinds of the rules spent for this request (job and progress ones once `settle` kept them). */
  fired: string[];
  /** Job and progress rules taken for this request, pending `Faults.settle`. */
  taken: { job_fail?: string; job_stall?: string; progress_backwards?: string };
}

function view(r: RuleRow, now: number): FaultRuleView {
  const { kind, ...params } = JSON.parse(r.action) as FaultAction;
  const state = r.remaining === 0 ? "spent" : r.expires_at !== null && r.expires_at <= now ? "expired" : "active";
  return {
    id: r.id,
    op: r.op,
    action: kind,
    params,
    space_id: r.space_id,
    key_id: r.key_id,
    probability: r.probability,
    remaining: r.remaining,
    hits: r.hits,
    expires_at: r.expires_at === null ? null : new Date(r.expires_at).toISOString(),
    state,
    source: r.source,
    created_at: new Date(r.created_at).toISOString(),
  };
}

export class Faults {
  /** Tests make probabilities deterministic through this. */
  random: () => number = Math.random;
  private prepared: { db: DB; any: Statement; match: Statement } | undefined;

  constructor(private readonly host: FaultsHost) {}

  /** Checks and stores rules (all or none); returns them as stored. */
  add(rules: FaultRuleInput | FaultRuleInput[], source = "cli"): FaultRuleView[] {
    const list = Array.isArray(rules) ? rules : [rules];
    if (!list.length) throw new LocalAdminError("invalid", "no fault rule given");
    const now = this.host.clock.now();
    const checked = list.map((r, i) => {
      try {
        return checkRule(r, this.host.routes(), now);
      } catch (e) {
        if (e instanceof LocalAdminError && list.length > 1) throw new LocalAdminError("invalid", `rule ${i + 1}: ${e.message}`);
        throw e;
      }
    });
    const ids = this.host.tx(() => checked.map((c) => this.insert(c, source, now)));
    return this.list().filter((v) => ids.includes(v.id));
  }

  private insert(c: CheckedRule, source: string, now: number): string {
    const id = this.host.ids.prefixed("flt_");
    this.host.db
      .prepare(
        `INSERT INTO fault_rules (id, op, stage, space_id, key_id, action, probability, remaining, hits, expires_at, source, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
      )
      .run(id, c.op, stageOf(c.action.kind), c.space_id, c.key_id, JSON.stringify(c.action), c.probability, c.remaining, c.expires_at, source, now);
    return id;
  }

  /** Every rule, oldest first, with its state. */
  list(): FaultRuleView[] {
    const now = this.host.clock.now();
    return (this.host.db.prepare("SELECT * FROM fault_rules ORDER BY created_at, rowid").all() as RuleRow[]).map((r) => view(r, now));
  }

  /** Removes one rule (by id) or all; returns how many were removed. */
  clear(id?: string): number {
    return this.host.tx(() => {
      if (id === undefined) return this.host.db.prepare("DELETE FROM fault_rules").run().changes;
      const n = this.host.db.prepare("DELETE FROM fault_rules WHERE id = ?").run(id).changes;
      if (!n) throw new LocalAdminError("not_found", `No fault rule with id ${id}`);
      return n;
    });
  }

  /**
   * The rules of `stage` that fire now for `op` (and the space and key), each counted once: a rule
   * with N matches left fires for exactly N of them, whichever processes ask. Empty when none does,
   * without a write.
   */
  fire(stage: FaultStage, op: string, spaceId: string | null, keyId: string | null = null): FaultAction[] {
    const rolled = this.candidates(stage, op, spaceId, keyId);
    if (!rolled.length) return [];
    return this.host.tx(() => {
      const take = this.takeStatement();
      return rolled.filter((c) => take.run(c.id).changes === 1).map((c) => JSON.parse(c.action) as FaultAction);
    });
  }

  /** The live rules of `stage` matching `op`, space and key whose probability rolled for this match; nothing is written. */
  private candidates(stage: FaultStage | "request+", op: string, spaceId: string | null, keyId: string | null): Pick<RuleRow, "id" | "action" | "probability">[] {
    // One query for the three stages a request meets (request, job, progress); webhooks on their own.
    const stages = stage === "request+" ? ["request", "job", "progress"] : [stage, stage, stage];
    const statements = this.statements();
    // Almost always there is no rule at all: a look at one row, before the (costlier) match.
    if (statements.any.get() === undefined) return [];
    const now = this.host.clock.now();
    const candidates = statements.match.all(...stages, op, spaceId, keyId, now) as Pick<RuleRow, "id" | "action" | "probability">[];
    return candidates.filter((c) => c.probability >= 1 || this.random() < c.probability);
  }

  /** Spends one match of a rule (1 change) unless it has none left (0). */
  private takeStatement(): Statement {
    return this.host.db.prepare(
      "UPDATE fault_rules SET hits = hits + 1, remaining = CASE WHEN remaining IS NULL THEN NULL ELSE remaining - 1 END WHERE id = ? AND (remaining IS NULL OR remaining > 0)",
    );
  }

  /** Every request asks: prepared once per connection (a restore or reset opens another). */
  private statements(): { any: Statement; match: Statement } {
    const db = this.host.db;
    if (this.prepared?.db !== db) {
      this.prepared = {
        db,
        any: db.prepare("SELECT 1 FROM fault_rules LIMIT 1"),
        match: db.prepare(
          `SELECT id, action, probability FROM fault_rules
           WHERE stage IN (?, ?, ?) AND (op = ? OR op = '*') AND (space_id IS NULL OR space_id = ?) AND (key_id IS NULL OR key_id = ?)
             AND (remaining IS NULL OR remaining > 0) AND (expires_at IS NULL OR expires_at > ?)
           ORDER BY created_at, rowid`,
        ),
      };
    }
    return this.prepared;
  }

  /**
   * The request, job and progress rules that fire for one request to `op`, each on its own: every
   * latency rule that fires is spent (its wait happens); of the error, reset and empty rules only the
   * first is (the request goes no further, so none of the others happened, nor any job or progress
   * rule); of the job_fail, job_stall and progress_backwards rules the first of each is taken, and
   * `settle` gives back those whose effect did not happen (no job started, the status was not lowered).
   */
  forRequest(op: string, spaceId: string, keyId: string | null): RequestFaults {
    const out: RequestFaults = { delayMs: 0, fired: [], taken: {} };
    const candidates = this.candidates("request+", op, spaceId, keyId);
    if (!candidates.length) return out;
    const parsed = candidates.map((c) => ({ id: c.id, action: JSON.parse(c.action) as FaultAction }));
    this.host.tx(() => {
      const take = this.takeStatement();
      for (const { id, action: a } of parsed.filter((p) => p.action.kind === "latency")) {
        if (a.kind !== "latency" || take.run(id).changes !== 1) continue;
        out.fired.push(a.kind);
        out.delayMs += a.min_ms + Math.round(this.random() * (a.max_ms - a.min_ms));
      }
      for (const { id, action: a } of parsed) {
        if (a.kind !== "error" && a.kind !== "reset" && a.kind !== "empty") continue;
        if (take.run(id).changes !== 1) continue;
        out.fired.push(a.kind);
        out.answer = a;
        return;
      }
      for (const { id, action: a } of parsed) {
        if (a.kind === "job_fail" && !out.taken.job_fail && take.run(id).changes === 1) {
          out.taken.job_fail = id;
          out.simulate = `fail:${a.code}${a.step ? `@${a.step}` : ""}`;
        } else if (a.kind === "job_stall" && !out.taken.job_stall && take.run(id).changes === 1) {
          out.taken.job_stall = id;
          out.stallMs = a.ms;
        } else if (a.kind === "progress_backwards" && !out.taken.progress_backwards && take.run(id).changes === 1) {
          out.taken.progress_backwards = id;
          out.backwardsBy = a.by;
        }
      }
    });
    return out;
  }

  /**
   * After the request: gives back the job and progress rules taken for it whose effect did not
   * happen — a job_fail or job_stall when the request started no job (refused, answered from memory,
   * or the job was told to fail by X-Local-Simulate instead), a progress_backwards when the status
   * read showed no running job. Those that did happen count as fired.
   */
  settle(f: RequestFaults, happened: { jobFailed: boolean; jobStarted: boolean; lowered: boolean }): void {
    const back: string[] = [];
    const keep = (kind: keyof RequestFaults["taken"], ok: boolean) => {
      const id = f.taken[kind];
      if (id === undefined) return;
      if (ok) f.fired.push(kind);
      else back.push(id);
    };
    keep("job_fail", happened.jobFailed);
    keep("job_stall", happened.jobStarted);
    keep("progress_backwards", happened.lowered);
    f.taken = {};
    if (!back.length) return;
    this.host.tx(() => {
      const give = this.host.db.prepare(
        "UPDATE fault_rules SET hits = hits - 1, remaining = CASE WHEN remaining IS NULL THEN NULL ELSE remaining + 1 END WHERE id = ? AND hits > 0",
      );
      for (const id of back) give.run(id);
    });
  }

  /**
   * Called by a worker before it runs a job: a job marked to stall waits (its lease is renewed by
   * the worker's heartbeat meanwhile), once. Aborts with the job's signal.
   */
  async beforeJob(job: JobRow, signal: AbortSignal): Promise<void> {
    if (job.kind === "webhook") return;
    const row = this.host.db.prepare("SELECT ms FROM fault_job_stalls WHERE ref = ?").get(job.id) as { ms: number } | undefined;
    if (!row) return;
    this.host.tx(() => this.host.db.prepare("DELETE FROM fault_job_stalls WHERE ref = ?").run(job.id));
    await abortableSleep(row.ms, signal);
  }
}
