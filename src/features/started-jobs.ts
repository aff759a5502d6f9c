/**
 * After a crash between "start request sent" and "job id recorded", `mediagen batch` asks the local
 * instance whether the request landed: the service has no idempotency key and no job listing, but
 * the local instance can list what a space started. A start that landed is found by its kind, its
 * space, a creation time at or after the batch announced it (the same machine's clock), what the
 * request said (model, prompt, video), and an id no other line of the batch already holds.
 */
import type { LocalInstance } from "../local/instance.js";
import { fromMilli } from "../contract/credits.js";

export type StartedKind = "asset" | "generate" | "export" | "script" | "avatar" | "duplicate";

export interface StartedQuery {
  kind: StartedKind;
  /** The key the batch uses (its space is searched). */
  apiKey: string;
  /** ISO time the batch recorded before sending. */
  since: string;
  body: Record<string, unknown>;
  /** Ids already held by lines of the batch. */
  claimed: ReadonlySet<string>;
}

export interface StartedJob {
  ids: string[];
  cost: number;
  look_id?: string;
  avatar_id?: string;
  video_id?: string;
  script?: string;
}

type Row = Record<string, unknown> & { id: string; created_at: string };

/** The oldest start that matches and is not claimed, or undefined when the request never landed. */
export function findStartedJob(instance: LocalInstance, q: StartedQuery): StartedJob | undefined {
  const space = instance.spaceForKey(q.apiKey);
  if (!space) return undefined;
  const db = instance.db;
  const free = (r: Row) => !q.claimed.has(r.id);
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  switch (q.kind) {
    case "asset": {
      const rows = db
        .prepare("SELECT id, created_at, cost_milli FROM assets WHERE space_id = ? AND created_at >= ? AND model = ? ORDER BY created_at, rowid")
        .all(space.id, q.since, String(q.body.model ?? "")) as Row[];
      // One start makes generation_count rows with the same creation time.
      const count = typeof q.body.generation_count === "number" ? q.body.generation_count : 1;
      const groups = new Map<string, Row[]>();
      for (const r of rows) groups.set(r.created_at, [...(groups.get(r.created_at) ?? []), r]);
      for (const g of groups.values()) {
        if (g.length === count && g.every(free)) {
          return { ids: g.map((r) => r.id), cost: fromMilli(g.reduce((n, r) => n + (r.cost_milli as number), 0)) };
        }
      }
      return undefined;
    }
    case "generate": {
      const rows = db
        .prepare("SELECT id, created_at, cost_milli, spec FROM generations WHERE space_id = ? AND created_at >= ? ORDER BY created_at, rowid")
        .all(space.id, q.since) as Row[];
      // The request's own words, as the normalised spec keeps them.
      const same = (r: Row) => {
        let spec: Record<string, unknown>;
        try {
          spec = JSON.parse(String(r.spec)) as Record<string, unknown>;
        } catch {
          return false;
        }
        return ["prompt", "script", "avatar_id"].every((k) => {
          const want = str(q.body[k]);
          return want === undefined || str(spec[k])?.trim() === want.trim();
        });
      };
      const r = rows.find((x) => free(x) && same(x));
      return r ? { ids: [r.id], cost: fromMilli(r.cost_milli as number) } : undefined;
    }
    case "export": {
      const rows = db
        .prepare("SELECT id, created_at, cost_milli FROM exports WHERE space_id = ? AND video_id = ? AND created_at >= ? ORDER BY created_at, rowid")
        .all(space.id, String(q.body.video_id ?? ""), q.since) as Row[];
      const r = rows.find(free);
      return r ? { ids: [r.id], cost: fromMilli(r.cost_milli as number) } : undefined;
    }
    case "script": {
      const rows = db
        .prepare("SELECT id, created_at, cost_milli, status, script FROM scripts WHERE space_id = ? AND prompt = ? AND created_at >= ? ORDER BY created_at, rowid")
        .all(space.id, String(q.body.prompt ?? ""), q.since) as Row[];
      const r = rows.find(free);
      if (!r) return undefined;
      return { ids: [r.id], cost: fromMilli(r.cost_milli as number), ...(r.status === "done" && str(r.script) !== undefined ? { script: str(r.script)! } : {}) };
    }
    case "avatar": {
      const edit = q.body.look_id !== undefined && q.body.avatar_id !== undefined;
      const rows = db
        .prepare("SELECT id, avatar_id, created_at, cost_milli FROM looks WHERE space_id = ? AND task = ? AND created_at >= ? ORDER BY created_at, seq")
        .all(space.id, edit ? "avatar_edit" : "avatar_create", q.since) as Row[];
      const r = rows.find((x) => free(x) && (!edit || x.avatar_id === q.body.avatar_id));
      return r ? { ids: [r.id], cost: fromMilli(r.cost_milli as number), look_id: r.id, avatar_id: String(r.avatar_id) } : undefined;
    }
    case "duplicate": {
      const rows = db
        .prepare("SELECT id, created_at FROM videos WHERE space_id = ? AND origin = 'duplicate' AND parent_video_id = ? AND created_at >= ? ORDER BY created_at, rowid")
        .all(space.id, String(q.body.video_id ?? ""), q.since) as Row[];
      const r = rows.find(free);
      return r ? { ids: [r.id], cost: 0, video_id: r.id } : undefined;
    }
  }
}
