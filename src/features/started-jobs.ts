/**
 * After a crash between "start request sent" and "job id recorded", `mediagen batch` asks the local
 * instance whether the request landed: the service has no idempotency key and no job listing, but
 * the local instance can list what a space started. A start that landed is found by its kind, its
 * space, a creation time at or after the batch announced it (the same machine's clock), the request
 * itself, and an id no other line of the batch already holds. Asset and generation starts keep the
 * fingerprint of the whole request they were made by (`requestFingerprint`): only that very request
 * matches, so another client's start of the same model, count and time is never adopted. The other
 * kinds are matched on every field their rows keep. Not found, the line is reported `unknown`.
 */
import type { LocalInstance } from "../local/instance.js";
import { fromMilli } from "../contract/credits.js";
import { requestFingerprint } from "../local/request-fingerprint.js";

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
        .prepare("SELECT id, created_at, cost_milli, params FROM assets WHERE space_id = ? AND created_at >= ? AND model = ? ORDER BY created_at, rowid")
        .all(space.id, q.since, String(q.body.model ?? "")) as Row[];
      const fingerprint = requestFingerprint(q.body);
      const sameRequest = (r: Row) => jsonField(r.params, "request") === fingerprint;
      // One start makes generation_count rows with the same creation time.
      const count = typeof q.body.generation_count === "number" ? q.body.generation_count : 1;
      const groups = new Map<string, Row[]>();
      for (const r of rows) groups.set(r.created_at, [...(groups.get(r.created_at) ?? []), r]);
      for (const g of groups.values()) {
        if (g.length === count && g.every(free) && g.every(sameRequest)) {
          return { ids: g.map((r) => r.id), cost: fromMilli(g.reduce((n, r) => n + (r.cost_milli as number), 0)) };
        }
      }
      return undefined;
    }
    case "generate": {
      const rows = db
        .prepare("SELECT id, created_at, cost_milli, spec FROM generations WHERE space_id = ? AND created_at >= ? ORDER BY created_at, rowid")
        .all(space.id, q.since) as Row[];
      const fingerprint = requestFingerprint(q.body);
      const same = (r: Row) => jsonField(r.spec, "request") === fingerprint;
      const r = rows.find((x) => free(x) && same(x));
      return r ? { ids: [r.id], cost: fromMilli(r.cost_milli as number) } : undefined;
    }
    case "export": {
      const rows = db
        .prepare(
          "SELECT id, created_at, cost_milli, format, width, height, avatar_model, webhook_url FROM exports WHERE space_id = ? AND video_id = ? AND created_at >= ? ORDER BY created_at, rowid",
        )
        .all(space.id, String(q.body.video_id ?? ""), q.since) as Row[];
      // Fields left out of the request took defaults: only what it names is compared.
      const same = (r: Row) =>
        ["format", "width", "height", "avatar_model"].every((k) => q.body[k] === undefined || q.body[k] === r[k]) && (q.body.webhook_url ?? null) === r.webhook_url;
      const r = rows.find((x) => free(x) && same(x));
      return r ? { ids: [r.id], cost: fromMilli(r.cost_milli as number) } : undefined;
    }
    case "script": {
      const rows = db
        .prepare(
          "SELECT id, created_at, cost_milli, status, script, duration, urls, web_search FROM scripts WHERE space_id = ? AND prompt = ? AND created_at >= ? ORDER BY created_at, rowid",
        )
        .all(space.id, String(q.body.prompt ?? ""), q.since) as Row[];
      const same = (r: Row) =>
        r.duration === (q.body.duration ?? 60) && String(r.urls) === JSON.stringify(q.body.urls ?? []) && r.web_search === (q.body.webSearch === true ? 1 : 0);
      const r = rows.find((x) => free(x) && same(x));
      if (!r) return undefined;
      return { ids: [r.id], cost: fromMilli(r.cost_milli as number), ...(r.status === "done" && str(r.script) !== undefined ? { script: str(r.script)! } : {}) };
    }
    case "avatar": {
      const edit = q.body.look_id !== undefined && q.body.avatar_id !== undefined;
      const rows = db
        .prepare(
          "SELECT id, avatar_id, created_at, cost_milli, prompt, style, format, resolution, source_look_id, webhook_url FROM looks WHERE space_id = ? AND task = ? AND created_at >= ? ORDER BY created_at, seq",
        )
        .all(space.id, edit ? "avatar_edit" : "avatar_create", q.since) as Row[];
      // What the look keeps of the request; fields left out took defaults, so only given ones are compared.
      const given = (k: string, col: string, x: Row) => q.body[k] === undefined || q.body[k] === x[col];
      const same = (x: Row) =>
        (edit ? x.avatar_id === q.body.avatar_id && x.source_look_id === q.body.look_id : true) &&
        (str(q.body.prompt) ?? null) === (str(x.prompt) ?? null) &&
        given("style", "style", x) &&
        given("format", "format", x) &&
        given("resolution", "resolution", x) &&
        (q.body.webhook_url ?? null) === x.webhook_url;
      const r = rows.find((x) => free(x) && same(x));
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

/** A field of a JSON column, undefined when the column is not an object. */
function jsonField(text: unknown, key: string): unknown {
  try {
    const o = JSON.parse(String(text)) as unknown;
    return o && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}
