import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { fromMilli, toMilli } from "../contract/credits.js";
import { ensureHome } from "../config/home.js";
import { PLANS, parsePlan, type Plan } from "../contract/plans.js";
import { isoOf, systemClock } from "./clock.js";
import { openDatabase } from "./db/open.js";
import { randomIds } from "./ids.js";
import { findKey, insertKey, isApiKeyFormat } from "./keys.js";
import { JobQueue, DEFAULT_LEASE_MS } from "./jobs.js";
import { Ledger } from "./ledger.js";
import { LocalEngine, type LocalEngineOptions } from "./local-engine.js";
import { DEFAULT_RATE_LIMIT, RateLimiter, type RateLimitConfig } from "./rate-limit.js";
import { LocalService } from "./service.js";
import { ensureDetachedWorker } from "./spawn-worker.js";
import type { Clock, DB, IdGen, JobKind, LocalInstanceApi, LocalParts, SpaceRow, UrlBuilder } from "./types.js";
import { Webhooks, type WebhookDeliveryView } from "./webhooks.js";
import { Worker } from "./worker.js";
import { liveWorkers } from "./worker-registry.js";

export type WorkerMode = "inline" | "detached" | "none";

export interface ResetOptions {
  /** How long to wait for detached workers, and for jobs of this process, to stop (default 10 s). */
  waitMs?: number;
  /** How often the workers' rows are looked at while waiting (default 50 ms). */
  pollMs?: number;
}

export interface OpenOptions {
  home: string;
  /** The features' handlers, job kinds, migrations and worker entry (src/features/local.ts). */
  parts: LocalParts;
  clock?: Clock;
  ids?: IdGen;
  /**
   * `inline`: jobs run in this process (serve, tests). `detached` (default): `kick()` makes sure one
   * background worker process runs for the instance. `none`: nothing runs jobs unless asked.
   */
  worker?: WorkerMode;
  rateLimit?: RateLimitConfig;
  leaseMs?: number;
  /** Renders at once (webhook deliveries have their own lane). */
  concurrency?: number;
}

export interface SpaceView {
  id: string;
  name: string;
  plan: Plan;
  credits: number;
  is_default: boolean;
  created_at: string;
  /** Active (not revoked) keys. */
  keys: number;
}

export interface LedgerEntryView {
  id: number;
  kind: "grant" | "debit" | "refund";
  amount: number;
  balance_after: number;
  ref: string | null;
  note: string | null;
  created_at: string;
}

export interface LedgerCheckView {
  space_id: string;
  balance: number;
  ledger_sum: number;
  ok: boolean;
}

/** An admin request that cannot be done: `not_found` (exit 4 in the CLI) or `invalid` input (exit 2). */
export class LocalAdminError extends Error {
  override readonly name = "LocalAdminError";
  constructor(
    readonly kind: "not_found" | "invalid",
    message: string,
  ) {
    super(message);
  }
}

/**
 * `instance.ledger` is both the LedgerApi the rules use (`ledger.debit(…)`) and the admin listing
 * `ledger(spaceId)`: one name, as the internal API and the admin API each require.
 */
export type LedgerAccess = Ledger & ((spaceId: string) => LedgerEntryView[]);

export const DEFAULT_SPACE_NAME = "default";
export const DEFAULT_SPACE_CREDITS = 1000;
export const DEFAULT_CONCURRENCY = 2;

export function instancePaths(home: string) {
  const localDir = path.join(home, "local");
  return {
    localDir,
    dbPath: path.join(localDir, "instance.db"),
    mediaDir: path.join(localDir, "media"),
    defaultKeyPath: path.join(localDir, "default.key"),
  };
}

function debug(text: string): void {
  if (process.env.MEDIAGEN_DEBUG) process.stderr.write(`mediagen-local: ${text}\n`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A bound on waiting that never keeps the process alive by itself. */
function graceTimer(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/** The local instance: one SQLite file and a media dir under `<home>/local`, and what runs on them. */
export class LocalInstance implements LocalInstanceApi {
  readonly home: string;
  readonly localDir: string;
  readonly dbPath: string;
  readonly mediaDir: string;
  readonly defaultKeyPath: string;
  readonly clock: Clock;
  readonly ids: IdGen;
  readonly workerMode: WorkerMode;
  readonly leaseMs: number;
  readonly concurrency: number;
  readonly ledger: LedgerAccess;
  readonly jobs: JobQueue;
  readonly webhooks: Webhooks;
  readonly rateLimiter: RateLimiter;
  readonly service: LocalService;
  readonly parts: LocalParts;
  /** Every job kind, by name (`parts.jobKinds`). */
  readonly jobKinds: Record<string, JobKind>;
  private _db: DB;
  private worker: Worker | undefined;
  private closed = false;

  constructor(opts: OpenOptions) {
    this.home = path.resolve(opts.home);
    const p = instancePaths(this.home);
    this.localDir = p.localDir;
    this.dbPath = p.dbPath;
    this.mediaDir = p.mediaDir;
    this.defaultKeyPath = p.defaultKeyPath;
    this.clock = opts.clock ?? systemClock;
    this.ids = opts.ids ?? randomIds;
    this.workerMode = opts.worker ?? "detached";
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    this.parts = opts.parts;
    this.jobKinds = opts.parts.jobKinds;
    ensureHome(this.home);
    fs.mkdirSync(this.localDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.mediaDir, { recursive: true });
    this._db = openDatabase(this.dbPath, this.parts.migrations);
    const core = new Ledger(this);
    this.ledger = Object.assign((spaceId: string) => this.ledgerEntries(spaceId), {
      debit: core.debit.bind(core),
      refund: core.refund.bind(core),
      grant: core.grant.bind(core),
      balance: core.balance.bind(core),
      rows: core.rows.bind(core),
      verify: core.verify.bind(core),
    }) as unknown as LedgerAccess;
    this.jobs = new JobQueue(this, this.jobKinds);
    this.webhooks = new Webhooks(this);
    this.rateLimiter = new RateLimiter(this, opts.rateLimit ?? DEFAULT_RATE_LIMIT);
    this.service = new LocalService(this);
    if (this.workerMode === "inline") this.launchWorker();
    // Work left behind by a worker that died (or a machine that restarted) resumes with the next command.
    else if (this.workerMode === "detached" && this.jobs.hasUnfinished()) this.kick();
  }

  get db(): DB {
    return this._db;
  }

  nowIso(): string {
    return isoOf(this.clock);
  }

  tx<T>(fn: () => T): T {
    return this._db.transaction(fn).immediate();
  }

  // ---- background work -------------------------------------------------------------------------

  private launchWorker(): void {
    if (this.worker?.isRunning) return;
    this.worker = new Worker(this, this.jobs, this.jobKinds, {
      mode: "inline",
      leaseMs: this.leaseMs,
      concurrency: this.concurrency,
      register: true,
    });
    this.worker.start();
  }

  kick(): void {
    if (this.closed) return;
    if (this.worker?.isRunning) {
      this.worker.wake();
      return;
    }
    if (this.workerMode !== "detached") return;
    try {
      ensureDetachedWorker(this._db, this.clock, this.home, this.parts.workerEntry);
    } catch (e) {
      // The request that queued the work succeeded; the next kick (or `mediagen serve`) runs it.
      debug(`could not start a background worker: ${(e as Error).message}`);
    }
  }

  async startWorker(): Promise<void> {
    this.launchWorker();
  }

  /** Lets running jobs finish for up to `graceMs`, then hands the rest back to the queue. */
  async stopWorker(graceMs = 1000): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.stop(graceMs);
  }

  /** Runs due jobs in this process until none is due and none is running here (tests). */
  async runUntilIdle(timeoutMs = 10_000): Promise<void> {
    let w = this.worker;
    let temp: Worker | undefined;
    if (!w?.isRunning) {
      temp = new Worker(this, this.jobs, this.jobKinds, { mode: "inline", leaseMs: this.leaseMs, concurrency: this.concurrency });
      temp.start();
      w = temp;
    } else {
      w.wake();
    }
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        await sleep(5);
        if (w.isIdle()) return;
        if (Date.now() > deadline) throw new Error(`the local instance still had work after ${timeoutMs} ms`);
      }
    } finally {
      if (temp) await temp.stop(0);
    }
  }

  // ---- spaces, keys, credits ---------------------------------------------------------------------

  private spaceRow(id: string): SpaceRow | undefined {
    return this._db.prepare("SELECT * FROM spaces WHERE id = ?").get(id) as SpaceRow | undefined;
  }

  private view(row: SpaceRow): SpaceView {
    const { n } = this._db
      .prepare("SELECT COUNT(*) AS n FROM api_keys WHERE space_id = ? AND revoked_at IS NULL")
      .get(row.id) as { n: number };
    return {
      id: row.id,
      name: row.name,
      plan: row.plan,
      credits: fromMilli(row.balance_milli),
      is_default: row.is_default === 1,
      created_at: row.created_at,
      keys: n,
    };
  }

  private requireSpace(id: string): SpaceRow {
    const row = this.spaceRow(id);
    if (!row) throw new LocalAdminError("not_found", `No space with id ${id}`);
    return row;
  }

  private insertSpace(name: string, plan: Plan, milli: number, isDefault: boolean): SpaceRow {
    const id = this.ids.prefixed("sp_");
    this._db
      .prepare("INSERT INTO spaces (id, name, plan, balance_milli, is_default, created_at) VALUES (?, ?, ?, 0, ?, ?)")
      .run(id, name, plan, isDefault ? 1 : 0, this.nowIso());
    if (milli > 0) this.ledger.grant(id, milli, "starting credits");
    return this.spaceRow(id)!;
  }

  private newKey(spaceId: string): { id: string; key: string } {
    return insertKey(this._db, spaceId, this.ids.prefixed("key_"), this.nowIso());
  }

  createSpace(input: { name?: string; plan: Plan | string; credits: number }): { space: SpaceView; api_key: string } {
    const plan = PLANS.includes(input.plan as Plan) ? (input.plan as Plan) : parsePlan(String(input.plan ?? ""));
    if (!plan) throw new LocalAdminError("invalid", `plan must be one of ${PLANS.join(", ")}`);
    const milli = this.creditsToMilli(input.credits, true);
    if (input.name !== undefined && (typeof input.name !== "string" || input.name.trim() === "")) {
      throw new LocalAdminError("invalid", "a space name cannot be empty");
    }
    return this.tx(() => {
      const row = this.insertSpace(input.name ?? "", plan, milli, false);
      if (!input.name) this._db.prepare("UPDATE spaces SET name = ? WHERE id = ?").run(`space-${row.id.slice(-6)}`, row.id);
      const { key } = this.newKey(row.id);
      return { space: this.view(this.spaceRow(row.id)!), api_key: key };
    });
  }

  private creditsToMilli(credits: unknown, allowZero: boolean): number {
    if (typeof credits !== "number" || !Number.isFinite(credits) || credits < 0 || (!allowZero && credits === 0)) {
      throw new LocalAdminError("invalid", `credits must be a ${allowZero ? "non-negative" : "positive"} number`);
    }
    try {
      return toMilli(credits);
    } catch {
      throw new LocalAdminError("invalid", "credits amount is out of range");
    }
  }

  listSpaces(): SpaceView[] {
    return (this._db.prepare("SELECT * FROM spaces ORDER BY rowid").all() as SpaceRow[]).map((r) => this.view(r));
  }

  getSpace(id: string): SpaceView | undefined {
    const row = this.spaceRow(id);
    return row ? this.view(row) : undefined;
  }

  addCredits(spaceId: string, credits: number, note?: string): SpaceView {
    const milli = this.creditsToMilli(credits, false);
    return this.tx(() => {
      this.requireSpace(spaceId);
      this.ledger.grant(spaceId, milli, note ?? "credits added");
      return this.view(this.spaceRow(spaceId)!);
    });
  }

  ledgerEntries(spaceId: string): LedgerEntryView[] {
    this.requireSpace(spaceId);
    return this.ledger.rows(spaceId).map((r) => ({
      id: r.id,
      kind: r.kind,
      amount: fromMilli(r.amount_milli),
      balance_after: fromMilli(r.balance_after_milli),
      ref: r.ref,
      note: r.note,
      created_at: r.created_at,
    }));
  }

  verifyLedger(): LedgerCheckView[] {
    return this.ledger.verify().map((c) => ({
      space_id: c.space_id,
      balance: fromMilli(c.balance_milli),
      ledger_sum: fromMilli(c.ledger_sum_milli),
      ok: c.ok,
    }));
  }

  private activeKeyRow(apiKey: string) {
    if (typeof apiKey !== "string" || !isApiKeyFormat(apiKey)) {
      throw new LocalAdminError("invalid", "not an API key: expected mg_live_ followed by 64 lowercase hexadecimal characters");
    }
    const row = findKey(this._db, apiKey);
    if (!row) throw new LocalAdminError("not_found", "no API key of this instance matches");
    if (row.revoked_at !== null) throw new LocalAdminError("invalid", "this API key is already revoked");
    return row;
  }

  revokeKey(apiKey: string): void {
    this.tx(() => {
      const row = this.activeKeyRow(apiKey);
      this._db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(this.nowIso(), row.id);
    });
    this.service.forgetAuth();
  }

  /** Revokes the key at once and returns a new one for the same space. */
  regenerateKey(apiKey: string): string {
    const key = this.tx(() => {
      const row = this.activeKeyRow(apiKey);
      const fresh = this.newKey(row.space_id);
      this._db.prepare("UPDATE api_keys SET revoked_at = ?, replaced_by = ? WHERE id = ?").run(this.nowIso(), fresh.id, row.id);
      if (this.readDefaultKeyFile() === apiKey) this.writeDefaultKeyFile(fresh.key);
      return fresh.key;
    });
    this.service.forgetAuth();
    return key;
  }

  spaceForKey(apiKey: string): SpaceView | undefined {
    const row = typeof apiKey === "string" ? findKey(this._db, apiKey) : undefined;
    if (!row || row.revoked_at !== null) return undefined;
    const space = this.spaceRow(row.space_id);
    return space ? this.view(space) : undefined;
  }

  private readDefaultKeyFile(): string | undefined {
    try {
      const key = fs.readFileSync(this.defaultKeyPath, "utf8").trim();
      return isApiKeyFormat(key) ? key : undefined;
    } catch {
      return undefined;
    }
  }

  private writeDefaultKeyFile(key: string): void {
    fs.mkdirSync(this.localDir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.localDir, 0o700);
    const tmp = `${this.defaultKeyPath}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, key + "\n", { mode: 0o600 });
    fs.renameSync(tmp, this.defaultKeyPath);
  }

  private isDefaultSpaceKey(key: string | undefined): key is string {
    if (!key) return false;
    const row = findKey(this._db, key);
    if (!row || row.revoked_at !== null) return false;
    return this.spaceRow(row.space_id)?.is_default === 1;
  }

  /**
   * The key of the default space ("default", PRO, 1000 credits), created on first use. The key file
   * is written inside the transaction that creates the key, so a process that sees the default space
   * also finds its key on disk; two processes racing here end with the same key.
   */
  defaultKey(): string {
    const seen = this.readDefaultKeyFile();
    if (this.isDefaultSpaceKey(seen)) return seen;
    return this.tx(() => {
      const again = this.readDefaultKeyFile();
      if (this.isDefaultSpaceKey(again)) return again;
      const space =
        (this._db.prepare("SELECT * FROM spaces WHERE is_default = 1").get() as SpaceRow | undefined) ??
        this.insertSpace(DEFAULT_SPACE_NAME, "PRO", toMilli(DEFAULT_SPACE_CREDITS), true);
      const { key } = this.newKey(space.id);
      this.writeDefaultKeyFile(key);
      return key;
    });
  }

  // ---- settings, webhooks, urls, engines ---------------------------------------------------------

  getSetting(key: string): string | undefined {
    const row = this._db.prepare("SELECT value FROM settings WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  /** `null` or `undefined` removes the setting. */
  setSetting(key: string, value: string | null | undefined): void {
    this.tx(() => {
      if (value === null || value === undefined) this._db.prepare("DELETE FROM settings WHERE key = ?").run(key);
      else
        this._db
          .prepare("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
          .run(key, value);
    });
  }

  /** Stores `value` only if `key` has no value yet, and returns what is stored (first writer wins). */
  ensureSetting(key: string, value: string): string {
    return this.tx(() => {
      this._db.prepare("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING").run(key, value);
      return (this._db.prepare("SELECT value FROM settings WHERE key = ?").get(key) as { value: string }).value;
    });
  }

  webhookDeliveries(spaceId?: string): WebhookDeliveryView[] {
    return this.webhooks.list(spaceId);
  }

  /** `file://` URLs of the media files (the in-process default; `serve` signs http URLs instead). */
  fileUrls(): UrlBuilder {
    return { media: (relPath: string) => pathToFileURL(path.join(this.mediaDir, relPath)).href };
  }

  /**
   * An Engine speaking to this instance with `apiKey`. With `closeInstance`, closing it closes the
   * instance; the other options tune its 429 waits (tests inject sleep and clock).
   */
  engine(apiKey: string, urls?: UrlBuilder, opts: LocalEngineOptions = {}): LocalEngine {
    return new LocalEngine(this, apiKey, urls ?? this.fileUrls(), opts);
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  /**
   * Deletes the database, the media and the default key, and starts again from an empty instance.
   * Files are only deleted once no other process has them open through a worker: a `serve` (or any
   * other process running jobs in process) makes it refuse; detached workers are asked to stop
   * (SIGTERM) and waited for. Jobs running in this process are stopped and settled first, so none
   * of them writes into the new database.
   */
  async reset(opts: ResetOptions = {}): Promise<void> {
    if (this.closed) throw new Error("the local instance is closed");
    const waitMs = opts.waitMs ?? 10_000;
    await this.stopOtherWorkers(waitMs, opts.pollMs ?? 50);
    const restart = this.worker?.isRunning ?? false;
    const w = this.worker;
    this.worker = undefined;
    if (w) {
      const settled = await Promise.race([w.releaseAll().then(() => true), graceTimer(waitMs).then(() => false)]);
      if (!settled) {
        if (restart) this.launchWorker();
        throw new LocalAdminError("invalid", `jobs running in this process did not stop within ${waitMs / 1000} s; nothing was reset, try again`);
      }
    }
    this._db.close();
    for (const f of [this.dbPath, `${this.dbPath}-wal`, `${this.dbPath}-shm`, this.defaultKeyPath]) {
      fs.rmSync(f, { force: true });
    }
    fs.rmSync(this.mediaDir, { recursive: true, force: true });
    fs.mkdirSync(this.mediaDir, { recursive: true });
    this._db = openDatabase(this.dbPath, this.parts.migrations);
    this.service.forgetAuth();
    if (restart) this.launchWorker();
  }

  /**
   * Refuses while another process serves the instance (an inline worker: `mediagen serve`), and
   * stops detached workers, waiting until their rows are gone. Rows of this process are ours.
   */
  private async stopOtherWorkers(waitMs: number, pollMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    const signalled = new Set<number>();
    for (;;) {
      const others = liveWorkers(this._db, this.clock).filter((r) => r.pid !== process.pid);
      if (others.length === 0) return;
      const serving = others.find((r) => r.mode === "inline");
      if (serving) {
        throw new LocalAdminError(
          "invalid",
          `the local instance is in use by another process (pid ${serving.pid}, e.g. \`mediagen serve\`); stop it, then reset`,
        );
      }
      for (const r of others) {
        // A placeholder without a pid is a worker being spawned right now: signal it once it has one.
        if (r.pid === null || signalled.has(r.pid)) continue;
        signalled.add(r.pid);
        try {
          process.kill(r.pid, "SIGTERM");
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "ESRCH") {
            throw new LocalAdminError("invalid", `cannot stop the background worker (pid ${r.pid}): ${(e as Error).message}`);
          }
        }
      }
      if (Date.now() >= deadline) {
        const pids = others.map((r) => r.pid ?? "starting").join(", ");
        throw new LocalAdminError("invalid", `background workers (pid ${pids}) did not stop within ${waitMs / 1000} s; nothing was reset, try again`);
      }
      await sleep(pollMs);
    }
  }

  /** Hands running jobs back to the queue and closes the database at once; resolves when runs have settled. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    const settling = this.worker?.releaseAll() ?? Promise.resolve();
    this.worker = undefined;
    this._db.close();
    return Promise.race([settling, graceTimer(2000)]);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

export function openLocalInstance(opts: OpenOptions): LocalInstance {
  return new LocalInstance(opts);
}
