/**
 * `history` shows what became of jobs that were still running when last seen: before printing, the
 * rows it shows whose status is not terminal (by their job's life, src/features/lives.ts) are read
 * again from the target they were started on, when that is the target this command talks to. Bounded:
 * at most MAX_ROWS reads, under one deadline; a read that fails leaves its row as it was.
 * `--no-refresh` shows the history as recorded.
 */
import type { CommandContext } from "./command-context.js";
import type { HistoryEntry } from "./journal.js";
import type { Engine, OpName } from "../engine/engine.js";
import { historyFields, lifeState } from "../features/life.js";
import { jobLife } from "../features/lives.js";

export const MAX_ROWS = 10;
const DEADLINE_MS = 5_000;

function stale(e: HistoryEntry): boolean {
  const life = jobLife(e.kind);
  if (!life.status || (e.kind === "look" && !e.avatar_id)) return false;
  return lifeState(life, { status: e.status }) === "pending";
}

/** Refreshes the stale rows of `rows` in place, and records what was learnt. */
export async function refreshRows(ctx: CommandContext, rows: HistoryEntry[]): Promise<void> {
  const candidates = rows.filter(stale);
  if (!candidates.length) return;
  let engine: Engine;
  let here: { target: string; baseUrl: string | null };
  try {
    const { config } = ctx.resolve();
    here = { target: config.target, baseUrl: config.target === "hosted" ? (config.baseUrl ?? null) : null };
    engine = await ctx.engine();
  } catch {
    return; // a target this machine cannot reach now: the rows stay as recorded
  }
  const mine = candidates.filter((e) => e.target === here.target && (e.target !== "hosted" || e.base_url === here.baseUrl)).slice(0, MAX_ROWS);
  const signal = AbortSignal.timeout(DEADLINE_MS);
  const updates = await Promise.all(
    mine.map(async (e) => {
      const life = jobLife(e.kind);
      try {
        const s = (await engine.call(
          life.status!.op as OpName,
          life.status!.request({ kind: e.kind, id: e.id, ...(e.avatar_id ? { avatar_id: e.avatar_id } : {}) }) as never,
          { signal },
        )) as Record<string, unknown>;
        const fields = historyFields(life, s);
        Object.assign(e, fields);
        return { kind: e.kind, id: e.id, ...fields };
      } catch {
        return undefined; // not known there any more, or slow: left as recorded
      }
    }),
  );
  await ctx.recordUpdates(updates.filter((u): u is NonNullable<typeof u> => u !== undefined));
}
