/**
 * The local instance's internal API: what the core (instance, ledger, jobs, webhooks, service) offers
 * to the per-endpoint rules and job kinds. This file is the agreement between those parts.
 */
import type { Plan } from "../contract/plans.js";
import type { OpName, OpRequest, OpResponse } from "../features/operations.js";
import type { RouteTable } from "../features/routes.js";
import type { WebhookPayload } from "../contract/webhook.js";
import type { Faults } from "./faults.js";
import type { SqlDatabase } from "./db/driver.js";

/** A connection to the instance database (db/driver.ts: node:sqlite or better-sqlite3 behind one interface). */
export type DB = SqlDatabase;

/** Injectable time and ids, so tests of time never sleep and ids can be deterministic. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
export interface IdGen {
  /** 24 lowercase hex characters (folder ids and other opaque ids). */
  hex24(): string;
  /** `prefix` + opaque id, e.g. `run_…` for generation jobs. */
  prefixed(prefix: string): string;
}

export interface SpaceRow {
  id: string;
  name: string;
  plan: Plan;
  /** A snapshot taken at authentication (possibly cached): read balances with `ledger.balance`. */
  balance_milli: number;
  is_default: number;
  created_at: string;
}

/** Builds the URLs media files are reachable at: `file://` in process, signed http under `serve`. */
export interface UrlBuilder {
  /** `relPath` is relative to the instance's media dir; `ttlSeconds` bounds signed URLs. */
  media(relPath: string, ttlSeconds?: number): string;
}

/** What a rule (endpoint handler) gets for one authenticated request. */
export interface RequestContext {
  instance: LocalInstanceApi;
  space: SpaceRow;
  /** `fail` or `fail:<CODE>` (X-Local-Simulate): the job this request starts must end failed. */
  simulate: string | undefined;
  urls: UrlBuilder;
  /**
   * Whether media inputs may be local paths or `file://` URLs. True in process (the caller is on this
   * machine); false over HTTP unless `serve --allow-local-files`, so a key holder cannot read the
   * server's files through a reference.
   */
  allowLocalFiles: boolean;
  /**
   * Whether media URLs fetched for this request (now or by its job) may reach loopback, private and
   * link-local addresses. True in process; false over HTTP unless `serve --allow-private-urls`.
   */
  allowPrivateNetwork: boolean;
  /**
   * For a start: keeps this start's answer in the `starts` table (./starts.ts). A start handler calls
   * it inside the transaction that makes the start, so the start and its row commit together: a
   * process killed at any point leaves both or neither, and a batch re-run after a crash adopts the
   * job instead of paying for it again. Absent for an operation that starts nothing.
   */
  keepStart?(answer: unknown): void;
}

export type Handler<K extends OpName> = (ctx: RequestContext, input: OpRequest<K>) => OpResponse<K> | Promise<OpResponse<K>>;

export type HandlerTable = { [K in OpName]?: Handler<K> };

/** The append-only credit ledger. All amounts in millicredits. Call inside a transaction. */
export interface LedgerApi {
  /** Debits `milli`; returns false (and writes nothing) when the balance is short. */
  debit(spaceId: string, milli: number, ref: string, note?: string): boolean;
  /** Refunds a debit once; a second refund for the same ref is a no-op returning false. */
  refund(spaceId: string, milli: number, ref: string, note?: string): boolean;
  grant(spaceId: string, milli: number, note?: string): void;
  balance(spaceId: string): number;
}

export interface EnqueueJob {
  kind: string;
  spaceId?: string | null;
  /** The row this job works on (asset id, look id, delivery id…). */
  ref?: string | null;
  payload?: unknown;
  maxAttempts?: number;
  /** Milliseconds since the epoch; default now. */
  runAfter?: number;
}

export interface JobRow {
  id: string;
  kind: string;
  space_id: string | null;
  ref: string | null;
  payload: string;
  status: "queued" | "running" | "done" | "failed";
  attempts: number;
  max_attempts: number;
  run_after: number;
  lease_owner: string | null;
  lease_expires: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface JobRunContext {
  instance: LocalInstanceApi;
  signal: AbortSignal;
  /** Renews the lease; called automatically on an interval too. */
  heartbeat(): void;
}

/**
 * A kind of background job. `run` does the slow work outside any transaction and returns `commit`,
 * which the worker calls inside an IMMEDIATE transaction only while it still holds the lease.
 * `giveUp` is called once, in a transaction, when the job has no attempts left (its worker died or
 * `run` kept throwing): it must leave the domain row in a terminal state (failed + refund + webhook).
 */
export interface JobKind {
  run(job: JobRow, ctx: JobRunContext): Promise<{ commit: () => void }>;
  giveUp(instance: LocalInstanceApi, job: JobRow, error: string): void;
}

export interface JobsApi {
  /** Call inside the transaction that creates the domain row. Returns the job id. */
  enqueue(job: EnqueueJob): string;
}

export interface WebhooksApi {
  /** Writes one delivery to the outbox and queues it. Call inside the state change's transaction. */
  enqueue(spaceId: string | null, url: string, payload: WebhookPayload): string;
}

/**
 * What the features add to the local core (composed in src/features/local.ts): the operation table,
 * the handlers of the endpoints, the job kinds, the schema migrations and the detached worker's entry
 * point. The core takes them from here, never from the features, so it does not depend on them.
 */
export interface LocalParts {
  /** Method, path and success status of every operation (no schemas): the dispatch answers with these statuses. */
  operations: RouteTable;
  handlers: HandlerTable;
  /** Every job kind by name, the core's webhook deliveries included. */
  jobKinds: Record<string, JobKind>;
  /**
   * Fills `handlers` and `jobKinds` with what they lack: the part serving `op`, or every part when
   * `op` is absent. Absent: the tables are complete. The dispatch calls it for an operation it has no
   * handler for; a worker calls it (without `op`) before it claims a job.
   */
  load?(op?: OpName): Promise<void>;
  /**
   * The contract's judgement of a request (its schema: types, enums, bounds, dependent fields), the
   * answer for its first problem; undefined when it follows the contract. The dispatch asks before a
   * handler runs; handlers keep the checks that need state (ids, credits, plans, limits).
   */
  check?(op: OpName, input: Record<string, unknown>): Promise<{ status: number; body: unknown } | undefined>;
  /**
   * Which operations start something (their life's effect is a start) and what a start's answer says
   * it debited (credits; null when it does not say): the dispatch keeps each successful start in the
   * `starts` table (./starts.ts). Absent: nothing is kept.
   */
  starts?: { isStart(op: OpName): boolean; cost(op: OpName, input: Record<string, unknown>, answer: unknown): number | null };
  /** Ordered SQL: entry i brings the schema to `PRAGMA user_version` i + 1. */
  migrations: readonly string[];
  /** Script run with node as the detached worker process (`--home <home> [--worker-id <id>]`). */
  workerEntry: string;
}

export interface LocalInstanceApi {
  readonly db: DB;
  readonly home: string;
  /** Absolute path of the media dir (`$MEDIAGEN_HOME/local/media`). */
  readonly mediaDir: string;
  readonly clock: Clock;
  /**
   * The clock job and worker leases count on: the injected (or the machine's) clock, never moved by
   * `local clock advance|freeze`, so moving the emulated time does not make a running job look dead.
   */
  readonly leaseClock: Clock;
  readonly ids: IdGen;
  readonly ledger: LedgerApi;
  readonly jobs: JobsApi;
  readonly webhooks: WebhooksApi;
  /** ISO 8601 of the clock's now. */
  nowIso(): string;
  /** Runs `fn` in an IMMEDIATE transaction (never await inside). */
  tx<T>(fn: () => T): T;
  /** Tells the instance that jobs were queued, so a worker runs them (detached/inline per mode). */
  kick(): void;
  /** Logs `e` if it is a storage fault (full disk, database gone) and returns it; undefined otherwise. */
  reportStoreFault?(e: unknown): unknown;
  /** The fault rules of the instance (absent in bare test doubles). */
  readonly faults?: Faults;
}
