/**
 * The one table of starts (db/starts-schema.ts), written at the one place every start passes: the
 * dispatch (service.ts), right after the operation's handler answered and before the answer goes
 * out. Which operations start something, and what a start debited, the features say
 * (`LocalParts.starts`, from the operations' lives); the core keeps the row.
 *
 * The row is not written in the handler's own transaction (handlers await: a source to probe, a
 * webhook address to check), so a process killed after the handler committed and before this insert
 * leaves a start without its row. Nothing runs in between but the return from the handler.
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
