/**
 * After a crash between "start request sent" and "job id recorded", `mediagen batch` asks the local
 * instance whether the request landed: the service has no idempotency key and no job listing, but
 * the local instance keeps every start it answered in one table (src/local/starts.ts), whatever the
 * operation. A start that landed is found by its space, its operation, the fingerprint of the very
 * request (`requestFingerprint`: another client's start of the same shape is never adopted), a
 * creation time at or after the batch announced it (the same machine's clock), and ids no other line
 * of the batch already holds; the oldest such start wins. What it made is read from its kept answer
 * through the operation's life (./start-facts.ts), as the batch reads an answer it received. Not
 * found, the line is sent again (the request never landed).
 */
import type { LocalInstance } from "../local/instance.js";
import { fromMilli } from "../contract/credits.js";
import { requestFingerprint, startsOf, type StartRow } from "../local/starts.js";
import { hasLife, isRead } from "./lives.js";
import { startFacts, type StartFacts } from "./start-facts.js";

export interface StartedQuery {
  /** The start operation (`assetStart`, `exportStart`…). */
  op: string;
  /** The key the batch uses (its space is searched). */
  apiKey: string;
  /** ISO time the batch recorded before sending. */
  since: string;
  /** The request as the batch sent it. */
  body: Record<string, unknown>;
  /** Ids already held by lines of the batch. */
  claimed: ReadonlySet<string>;
}

export type StartedJob = StartFacts;

/** What a kept start made, read through its operation's life; a job the service names no id for is named by the start. */
function factsOf(row: StartRow, body: Record<string, unknown>): StartFacts | undefined {
  let answer: unknown;
  try {
    answer = JSON.parse(row.answer) as unknown;
  } catch {
    return undefined;
  }
  const facts = startFacts(row.op, body, answer, (kind) => `${kind}-start-${row.seq}`);
  return { ...facts, cost: row.cost_milli !== null ? fromMilli(row.cost_milli) : facts.cost };
}

/** The oldest start of this very request that is not claimed, or undefined when the request never landed. */
export function findStartedJob(instance: LocalInstance, q: StartedQuery): StartedJob | undefined {
  const space = instance.spaceForKey(q.apiKey);
  if (!space) return undefined;
  const rows = startsOf(instance, { spaceId: space.id, op: q.op, fingerprint: requestFingerprint(q.body), since: q.since });
  for (const row of rows) {
    const found = factsOf(row, q.body);
    if (found && !found.ids.some((id) => q.claimed.has(id))) return found;
  }
  return undefined;
}

/** What the dispatch needs to keep starts (LocalParts.starts): which operations start, and what a start debited. */
export const startsPart = {
  isStart: (op: string): boolean => hasLife(op) && !isRead(op),
  cost: (op: string, input: Record<string, unknown>, answer: unknown): number | null => startFacts(op, input, answer, (kind) => kind).cost,
};
