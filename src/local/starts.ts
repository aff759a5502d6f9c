/**
 * The one table of starts (db/starts-schema.ts). Each start handler keeps its answer here through
 * `ctx.keepStart(answer)` inside the transaction that makes the start (debits it, inserts its job),
 * so the start and its row commit together: a process killed at any point leaves both or neither,
 * and a batch re-run after a crash adopts the job rather than paying for it again. The dispatch
 * (service.ts) gives a start its `keepStart` (the operation, the fingerprint of the request as sent)
 * and keeps, after the answer, a start whose handler did not (none does:
 * test/unit/local-starts.test.ts). Which operations start something, and what a start debited, the
 * features say (`LocalParts.starts`, from the operations' lives); the core keeps the row.
 */
import { toMilli } from "../contract/credits.js";
import { localDebug } from "./debug.js";
import type { LocalInstanceApi } from "./types.js";
import { requestFingerprint } from "./request-fingerprint.js";

export interface StartRow {
  seq: number;
  space_id: string;
  op: string;
  fingerprint: string;
  created_at: string;
  answer: string;
  cost_milli: number | null;
}

export interface NewStart {
  spaceId: string;
  op: string;
  /** requestFingerprint of the request as the caller sent it. */
  fingerprint: string;
  answer: unknown;
  /** Credits the start debited, as its life reads the answer (null: not said). */
  cost(): number | null;
}

export { requestFingerprint };

/** Keeps one start. A failure to keep it is logged, never turned into a failed answer (the start happened). */
export function recordStart(instance: Pick<LocalInstanceApi, "db" | "nowIso">, s: NewStart): void {
  try {
    const cost = s.cost();
    instance.db
      .prepare("INSERT INTO starts (space_id, op, fingerprint, created_at, answer, cost_milli) VALUES (?, ?, ?, ?, ?, ?)")
      .run(s.spaceId, s.op, s.fingerprint, instance.nowIso(), JSON.stringify(s.answer ?? null), cost === null ? null : toMilli(cost));
  } catch (e) {
    localDebug(`${s.op}: the start could not be kept in the starts table: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The starts of a space made by one request of one operation at or after `since`, oldest first. */
export function startsOf(instance: Pick<LocalInstanceApi, "db">, q: { spaceId: string; op: string; fingerprint: string; since: string }): StartRow[] {
  return instance.db
    .prepare("SELECT * FROM starts WHERE space_id = ? AND op = ? AND fingerprint = ? AND created_at >= ? ORDER BY created_at, seq")
    .all(q.spaceId, q.op, q.fingerprint, q.since) as StartRow[];
}
