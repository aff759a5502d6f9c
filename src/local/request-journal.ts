/**
 * The request journal of `mediagen serve`: every request to the API and media paths recorded — when,
 * method, path, operation, status, duration, request id, and the JSON body with anything key-like
 * masked — so a test can assert what an app sent ("POSTed /asset/start exactly once after a 503").
 * Kept in the instance's rate-limit store (`<home>/local/rates.db`: never fsynced, outside the
 * snapshots, emptied by a reset), bounded to the last JOURNAL_MAX entries per home, shared by every
 * process of the home (`GET /_mediagen/requests`, `mediagen local requests`, the dashboard).
 */
import { redact } from "../engine/redact.js";
import { LocalAdminError } from "./admin-error.js";
import type { RecordedRequest } from "../testing/index.js";
import type { Clock, DB } from "./types.js";

/** Entries kept per home; older ones are dropped as new ones come. */
export const JOURNAL_MAX = 10_000;
/** A recorded body's JSON text is cut past this many characters (`body_truncated`). */
export const JOURNAL_BODY_MAX = 16 * 1024;

/**
 * One recorded request, as listed. The type is the `mediagen/testing` entry's (RecordedRequest): that
 * module's declarations are built self-contained (Node built-ins only), so the fields are written
 * there once and the journal takes them from it (a type-only import: nothing of it is loaded).
 */
export type JournalEntry = RecordedRequest;

export interface JournalFilter {
  /** Operation name(s); a comma-separated list matches any. */
  op?: string | undefined;
  /** `429`, `4xx`, `5xx`, or a comma-separated list of those. */
  status?: string | undefined;
  /** Entries at or after this time (ISO 8601). */
  since?: string | undefined;
  /** Entries after this seq. */
  after?: number | string | undefined;
  method?: string | undefined;
  /** The newest N matching (default all kept). */
  limit?: number | string | undefined;
}

export interface JournalHost {
  readonly ratesDb: DB;
  readonly clock: Clock;
}

/**
 * What a request is, as the server learns it (its operation and body) and ends it (its status): an
 * entry's fields, with the start time in ms and the body as received (stored masked).
 */
export interface JournalRecord extends Pick<JournalEntry, "method" | "path" | "query" | "op" | "status" | "error" | "body"> {
  startedAt: number;
  durationMs: number;
  requestId: string | null;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS request_journal (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  at          INTEGER NOT NULL,
  method      TEXT NOT NULL,
  path        TEXT NOT NULL,
  query       TEXT,
  op          TEXT,
  status      INTEGER,
  error       TEXT,
  duration_ms REAL NOT NULL,
  request_id  TEXT,
  body        TEXT
) STRICT`;

/** Field names whose values are secrets whatever they look like. */
const SECRET_FIELD = /(^|_)(api_?key|key|secret|token|password|authorization)$/i;

function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_FIELD.test(k) && typeof v === "string" ? "[REDACTED]" : masked(v)]),
    );
  }
  return value;
}

/** A body as stored: fields named like secrets masked, then key-like text anywhere (redact), cut at JOURNAL_BODY_MAX. */
export function journalBody(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  const text = redact(JSON.stringify(masked(body)));
  return text.length > JOURNAL_BODY_MAX ? `${text.slice(0, JOURNAL_BODY_MAX)}…` : text;
}

/** A stored row: the entry's fields, with the time in ms and the body as its stored JSON text. */
type Row = Omit<JournalEntry, "at" | "body" | "body_truncated"> & { at: number; body: string | null };

function entryOf(r: Row): JournalEntry {
  let body: unknown = null;
  let truncated = false;
  if (r.body !== null) {
    try {
      body = JSON.parse(r.body);
    } catch {
      body = r.body;
      truncated = true;
    }
  }
  return { ...r, at: new Date(r.at).toISOString(), duration_ms: Math.round(r.duration_ms * 10) / 10, body, body_truncated: truncated };
}

/** `status=`: exact statuses and classes (`4xx`), as SQL and its parameters. */
function statusClause(value: string): { sql: string; params: number[] } {
  const parts = value
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const sql: string[] = [];
  const params: number[] = [];
  for (const p of parts) {
    if (/^[1-5]xx$/.test(p)) {
      sql.push("(status >= ? AND status < ?)");
      params.push(Number(p[0]) * 100, Number(p[0]) * 100 + 100);
    } else if (/^[1-5]\d\d$/.test(p)) {
      sql.push("status = ?");
      params.push(Number(p));
    } else throw new LocalAdminError("invalid", `status: expected a status (429) or a class (4xx), got "${p}"`);
  }
  if (!sql.length) throw new LocalAdminError("invalid", "status: expected a status (429) or a class (4xx)");
  return { sql: `(${sql.join(" OR ")})`, params };
}

function wholeNumber(v: number | string, what: string): number {
  const n = typeof v === "number" ? v : /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new LocalAdminError("invalid", `${what}: expected a whole number, got "${v}"`);
  return n;
}

/** The WHERE clause of a filter (every part checked: a bad value is a LocalAdminError naming it). */
function whereOf(f: JournalFilter): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (f.op) {
    const ops = f.op
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    where.push(`op IN (${ops.map(() => "?").join(", ")})`);
    params.push(...ops);
  }
  if (f.status) {
    const s = statusClause(f.status);
    where.push(s.sql);
    params.push(...s.params);
  }
  if (f.since) {
    const t = Date.parse(f.since);
    if (!Number.isFinite(t)) throw new LocalAdminError("invalid", `since: expected an ISO 8601 time, got "${f.since}"`);
    where.push("at >= ?");
    params.push(t);
  }
  if (f.after !== undefined && f.after !== "") {
    where.push("seq > ?");
    params.push(wholeNumber(f.after, "after"));
  }
  if (f.method) {
    where.push("method = ?");
    params.push(f.method.toUpperCase());
  }
  return { sql: where.length ? `WHERE ${where.join(" AND ")}` : "", params };
}

export class RequestJournal {
  private ready: DB | undefined;
  private sinceTrim = 0;

  constructor(private readonly host: JournalHost) {}

  /** The store's connection with the table made (once per connection: a reset opens another). */
  private db(): DB {
    const db = this.host.ratesDb;
    if (this.ready !== db) {
      db.exec(SCHEMA);
      this.ready = db;
    }
    return db;
  }

  /** Records one finished request; drops the oldest past JOURNAL_MAX (checked every 100 records). */
  record(r: JournalRecord): void {
    const db = this.db();
    db.prepare(
      `INSERT INTO request_journal (at, method, path, query, op, status, error, duration_ms, request_id, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(r.startedAt, r.method, r.path, r.query, r.op, r.status, r.error, r.durationMs, r.requestId, journalBody(r.body));
    if (++this.sinceTrim >= 100) {
      this.sinceTrim = 0;
      this.trim();
    }
  }

  /** Keeps the newest `max` entries. */
  trim(max = JOURNAL_MAX): void {
    this.db().prepare("DELETE FROM request_journal WHERE seq <= (SELECT MAX(seq) FROM request_journal) - ?").run(max);
  }

  /** Entries matching the filter, oldest first (the newest `limit` of them when given). */
  list(f: JournalFilter = {}): JournalEntry[] {
    const { sql, params } = whereOf(f);
    const limit = f.limit === undefined || f.limit === "" ? JOURNAL_MAX : wholeNumber(f.limit, "limit");
    const rows = this.db()
      .prepare(`SELECT * FROM (SELECT * FROM request_journal ${sql} ORDER BY seq DESC LIMIT ?) ORDER BY seq`)
      .all(...params, limit) as Row[];
    return rows.map(entryOf);
  }

  /** Empties the journal; returns how many entries it held. */
  clear(): number {
    return this.db().prepare("DELETE FROM request_journal").run().changes;
  }
}
