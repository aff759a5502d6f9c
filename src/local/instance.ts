/**
 * The local instance: one SQLite file and a media dir under `<home>/local`, and what runs on them.
 * This class only assembles the parts, each in its own file: the files (storage.ts), the jobs run
 * outside requests (background.ts), the administration (dashboard.ts), the settings (settings.ts),
 * reset and close (lifecycle.ts); the dispatch, ledger, jobs, webhooks and rate limit it hands to the
 * rules. Its methods are that API in one place, for the CLI, the server and tests.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Background, type WorkerMode } from "./background.js";
import { InstanceClock, isoOf, systemClock, type ClockState } from "./clock.js";
import { parseDurationMs } from "./duration.js";
import { Dashboard, type KeyView, type LedgerCheckView, type LedgerEntryView, type SpaceView } from "./dashboard.js";
import { DefaultKeyFile } from "./default-key-file.js";
import { randomIds } from "./ids.js";
import { JobQueue, DEFAULT_LEASE_MS } from "./jobs.js";
import { Ledger } from "./ledger.js";
import { Lifecycle, type ResetOptions } from "./lifecycle.js";
import { LocalEngine, type LocalEngineOptions } from "./local-engine.js";
import { RateLimiter, rateLimitFromEnv, type RateLimitConfig } from "./rate-limit.js";
import { LocalService } from "./service.js";
import { Settings } from "./settings.js";
import { InstanceStorage } from "./storage.js";
import { localDebug } from "./debug.js";
import { asStoreFault, type StoreUnavailableError } from "./store-fault.js";
import type { Clock, DB, IdGen, JobKind, LocalInstanceApi, LocalParts, UrlBuilder } from "./types.js";
import { Webhooks, type WebhookDeliveryView } from "./webhooks.js";
import { Faults } from "./faults.js";
import { RequestJournal } from "./request-journal.js";
import { redeliverWebhook, resendWebhook, triggerWebhook, type TriggerOptions } from "./webhook-replay.js";
import { discardStaged, type RestoreHook, swapIn } from "./snapshot-restore.js";
import { checkSnapshotName, Snapshots, type SnapshotView, stageSnapshotCopy } from "./snapshots.js";

import { LocalAdminError } from "./admin-error.js";
export { LocalAdminError };
export { DEFAULT_SPACE_CREDITS, DEFAULT_SPACE_NAME, type KeyView, type LedgerCheckView, type LedgerEntryView, type SpaceView } from "./dashboard.js";
export { instancePaths } from "./storage.js";
export type { ResetOptions, WorkerMode };

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
  /** Default: MEDIAGEN_LOCAL_RATE_LIMIT / MEDIAGEN_LOCAL_RATE_WINDOW_MS of this process, else 100 per minute. */
  rateLimit?: RateLimitConfig;
  leaseMs?: number;
  /** Renders at once (webhook deliveries have their own lane). */
  concurrency?: number;
  /**
   * Where operational problems go (the storage is full, read-only or was deleted under the process):
   * `mediagen serve` passes its stderr, the detached worker its log file. Default: stderr with
   * MEDIAGEN_DEBUG only, since in a CLI command the failing request already says why.
   */
  log?: (line: string) => void;
  /** Wraps the database connection (instrumentation; tests inject storage faults through it). */
  wrapDatabase?: (db: DB) => DB;
}

/** A storage problem is logged when it starts and at most this often while it lasts. */
const FAULT_LOG_INTERVAL_MS = 30_000;

/**
 * `instance.ledger` is both the LedgerApi the rules use (`ledger.debit(…)`) and the admin listing
 * `ledger(spaceId)`: one name, as the internal API and the admin API each require.
 */
export type LedgerAccess = Ledger & ((spaceId: string) => LedgerEntryView[]);

export const DEFAULT_CONCURRENCY = 2;

export class LocalInstance implements LocalInstanceApi {
  readonly home: string;
  readonly localDir: string;
  readonly dbPath: string;
  readonly mediaDir: string;
  readonly defaultKeyPath: string;
  /** The injected (or system) clock moved by `local clock` (clock.ts InstanceClock). */
  readonly clock: InstanceClock;
  /** Leases of jobs and workers: the injected (or system) clock, which `local clock` does not move. */
  readonly leaseClock: Clock;
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
  readonly background: Background;
  readonly dashboard: Dashboard;
  readonly settings: Settings;
  /** Faults on demand (faults.ts): rules shared by every process of the instance. */
  readonly faults: Faults;
  /** Snapshots of the instance (snapshots.ts) under `<home>/local/snapshots`. */
  readonly snapshots: Snapshots;
  /** The request journal of `serve` (request-journal.ts), kept in the rates store. */
  readonly requests: RequestJournal;
  private readonly storage: InstanceStorage;
  private readonly lifecycle: Lifecycle;
  private readonly log: (line: string) => void;
  private readonly faultLogged = new Map<string, number>();

  constructor(opts: OpenOptions) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the faults' host reads the current connection
    const self = this;
    this.home = path.resolve(opts.home);
    this.clock = new InstanceClock(opts.clock ?? systemClock, {
      get db() {
        return self.db;
      },
      tx: (fn) => this.tx(fn),
    });
    this.leaseClock = this.clock.base;
    this.ids = opts.ids ?? randomIds;
    this.workerMode = opts.worker ?? "detached";
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    this.parts = opts.parts;
    this.jobKinds = opts.parts.jobKinds;
    this.log = opts.log ?? ((line) => localDebug(line));
    this.storage = new InstanceStorage(this.home, this.parts.migrations, opts.wrapDatabase ? { wrapDatabase: opts.wrapDatabase } : {});
    this.localDir = this.storage.paths.localDir;
    this.dbPath = this.storage.paths.dbPath;
    this.mediaDir = this.storage.paths.mediaDir;
    this.defaultKeyPath = this.storage.paths.defaultKeyPath;
    const core = new Ledger(this);
    const forgetAuth = () => this.service.forgetAuth();
    this.dashboard = new Dashboard(this, core, new DefaultKeyFile(this.localDir, this.defaultKeyPath), forgetAuth);
    this.ledger = Object.assign((spaceId: string) => this.dashboard.ledgerEntries(spaceId), {
      debit: core.debit.bind(core),
      refund: core.refund.bind(core),
      grant: core.grant.bind(core),
      balance: core.balance.bind(core),
      rows: core.rows.bind(core),
      verify: core.verify.bind(core),
    }) as unknown as LedgerAccess;
    this.jobs = new JobQueue(this, this.jobKinds);
    this.webhooks = new Webhooks(this);
    this.rateLimiter = new RateLimiter(this, opts.rateLimit ?? rateLimitFromEnv());
    this.service = new LocalService(this);
    this.settings = new Settings(this);
    this.faults = new Faults({
      get db() {
        return self.db;
      },
      clock: this.clock,
      ids: this.ids,
      tx: (fn) => this.tx(fn),
      routes: () => this.parts.operations,
    });
    let prepareFailureSaid = false;
    this.background = new Background(this, {
      mode: this.workerMode,
      leaseMs: this.leaseMs,
      concurrency: this.concurrency,
      jobKinds: this.jobKinds,
      ...(this.parts.load ? { prepare: () => this.parts.load!() } : {}),
      // Said once: the worker tries again at each poll, and each try would say the same.
      onPrepareFailed: (e) => {
        if (prepareFailureSaid) return;
        prepareFailureSaid = true;
        this.log(`the background worker cannot load its job kinds (${(e as Error).message}); queued jobs wait until this process restarts`);
      },
      workerEntry: this.parts.workerEntry,
    });
    this.snapshots = new Snapshots(this);
    this.requests = new RequestJournal(this);
    this.lifecycle = new Lifecycle(this.storage, this.background, this.leaseClock, forgetAuth);

    if (this.workerMode === "inline") this.background.launch();
    // Work left behind by a worker that died (or a machine that restarted) resumes with the next command.
    else if (this.workerMode === "detached" && this.jobs.hasUnfinished()) this.kick();
  }

  get db(): DB {
    return this.storage.db;
  }

  /** The rate-limit windows' store (`<home>/local/rates.db`), opened on first use. */
  get ratesDb(): DB {
    return this.storage.ratesDb;
  }

  nowIso(): string {
    return isoOf(this.clock);
  }

  /** Every write goes through here: none goes into a database file that is no longer at its path. */
  tx<T>(fn: () => T): T {
    const gone = this.storage.problem();
    if (gone) {
      this.reportStoreFault(gone);
      throw gone;
    }
    return this.db.transaction(fn).immediate();
  }

  // ---- storage faults (store-fault.ts) ---------------------------------------------------------

  /** Why the database cannot be used any more (deleted or replaced under this process), if so. */
  storeProblem(): StoreUnavailableError | undefined {
    return this.storage.problem();
  }

  /**
   * If `e` is a storage fault (full disk, read-only, I/O error, database gone), logs it (when it
   * starts, then every 30 s while it lasts) and returns it; undefined for any other error.
   */
  reportStoreFault(e: unknown): StoreUnavailableError | undefined {
    const fault = asStoreFault(e, this.localDir);
    if (!fault) return undefined;
    const now = Date.now();
    const last = this.faultLogged.get(fault.reason);
    if (last === undefined || now - last >= FAULT_LOG_INTERVAL_MS) {
      this.faultLogged.set(fault.reason, now);
      const where = fault.reason === "database_gone" ? this.dbPath : this.localDir;
      const effect =
        fault.reason === "database_gone"
          ? "every request now answers 503 and nothing more is written to it; restart to use the database now at that path"
          : "requests that must write answer 503 until it is fixed; reads still work";
      this.log(`local instance storage problem: ${fault.what} at ${where}${fault.detail ? ` (${fault.detail})` : ""}; ${effect}`);
    }
    return fault;
  }

  // ---- background work (background.ts) ---------------------------------------------------------

  kick(): void {
    if (!this.lifecycle.isClosed) this.background.kick();
  }

  /** Looks after the job queue on behalf of a request (at most once a second; see Background.supervise). */
  supervise(): void {
    if (!this.lifecycle.isClosed) this.background.supervise();
  }

  async startWorker(): Promise<void> {
    this.background.launch();
  }

  /** Lets running jobs finish for up to `graceMs`, then hands the rest back to the queue. */
  stopWorker(graceMs?: number): Promise<void> {
    return this.background.stop(graceMs);
  }

  /** Runs due jobs in this process until none is due and none is running here (tests). */
  runUntilIdle(timeoutMs?: number): Promise<void> {
    return this.background.runUntilIdle(timeoutMs);
  }

  // ---- spaces, keys, credits (dashboard.ts) ----------------------------------------------------

  createSpace(input: Parameters<Dashboard["createSpace"]>[0]): { space: SpaceView; api_key: string } {
    return this.dashboard.createSpace(input);
  }

  listSpaces(): SpaceView[] {
    return this.dashboard.listSpaces();
  }

  getSpace(id: string): SpaceView | undefined {
    return this.dashboard.getSpace(id);
  }

  addCredits(spaceId: string, credits: number, note?: string): SpaceView {
    return this.dashboard.addCredits(spaceId, credits, note);
  }

  ledgerEntries(spaceId: string): LedgerEntryView[] {
    return this.dashboard.ledgerEntries(spaceId);
  }

  verifyLedger(): LedgerCheckView[] {
    return this.dashboard.verifyLedger();
  }

  /** Keys (masked) of every space or of one. */
  listKeys(spaceId?: string): KeyView[] {
    return this.dashboard.listKeys(spaceId);
  }

  /** `keyOrId`: the key itself or its id (`key_…`, from `listKeys`). */
  revokeKey(keyOrId: string): void {
    this.dashboard.revokeKey(keyOrId);
  }

  /** Revokes the key (itself or its id) at once and returns a new one for the same space. */
  regenerateKey(keyOrId: string): string {
    return this.dashboard.regenerateKey(keyOrId);
  }

  spaceForKey(keyOrId: string): SpaceView | undefined {
    return this.dashboard.spaceForKey(keyOrId);
  }

  /** The key of the default space ("default", PRO, 1000 credits), created on first use. */
  defaultKey(): string {
    return this.dashboard.defaultKey();
  }

  // ---- settings, webhooks, urls, engines -------------------------------------------------------

  getSetting(key: string): string | undefined {
    return this.settings.get(key);
  }

  /** `null` or `undefined` removes the setting. */
  setSetting(key: string, value: string | null | undefined): void {
    this.settings.set(key, value);
  }

  /** Stores `value` only if `key` has no value yet, and returns what is stored (first writer wins). */
  ensureSetting(key: string, value: string): string {
    return this.settings.ensure(key, value);
  }

  webhookDeliveries(spaceId?: string): WebhookDeliveryView[] {
    return this.webhooks.list(spaceId);
  }

  /** Sends a recorded delivery again (to its URL or `to`); returns its id (webhook-replay.ts). */
  resendWebhook(deliveryId: string, to?: string): string {
    return resendWebhook(this, deliveryId, to);
  }

  /** Queues a sample delivery of a webhook task; returns the delivery's id (webhook-replay.ts). */
  /** A recorded delivery's body sent as a new delivery (a new webhook-id); returns its id. */
  redeliverWebhook(deliveryId: string, to?: string): string {
    return redeliverWebhook(this, deliveryId, to);
  }

  triggerWebhook(task: string, opts: TriggerOptions): string {
    return triggerWebhook(this, task, opts);
  }

  /** One delivery with its attempts, if it exists. */
  webhookDelivery(id: string): WebhookDeliveryView | undefined {
    return this.webhooks.get(id);
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

  // ---- the clock (clock.ts) --------------------------------------------------------------------

  /** Moves the instance's clock forward by a duration (`90s`, `1m`, `8d`, or milliseconds). */
  advanceClock(duration: string | number): ClockState {
    const ms = parseDurationMs(duration, "duration");
    if (ms <= 0) throw new LocalAdminError("invalid", "duration: the clock only moves forward; give a positive duration");
    return this.clock.advance(ms);
  }

  freezeClock(): ClockState {
    return this.clock.freeze();
  }

  resetClock(): ClockState {
    return this.clock.reset();
  }

  clockState(): ClockState {
    return this.clock.state();
  }

  // ---- reset and close (lifecycle.ts) ----------------------------------------------------------

  /** Deletes everything and starts again from an empty instance (see Lifecycle.reset for when it refuses). */
  reset(opts?: ResetOptions): Promise<void> {
    return this.lifecycle.reset(opts);
  }

  /** Saves the instance as snapshot `name` (consistent while other processes write). */
  saveSnapshot(name: string, opts?: { replace?: boolean }): Promise<SnapshotView> {
    return this.snapshots.save(name, opts);
  }

  listSnapshots(): SnapshotView[] {
    return this.snapshots.list();
  }

  deleteSnapshot(name: string): void {
    this.snapshots.delete(name);
  }

  /**
   * Replaces the instance with snapshot `name` (of this home, or the folder `fromDir` of another's).
   * Refused while another process serves the instance (see Lifecycle.restore).
   */
  async restoreSnapshot(name: string, opts: ResetOptions & { fromDir?: string; onStep?: RestoreHook } = {}): Promise<SnapshotView> {
    checkSnapshotName(name);
    const dir = opts.fromDir ?? this.snapshots.existing(name);
    if (!fs.existsSync(path.join(dir, "snapshot.json")) || !fs.existsSync(path.join(dir, "instance.db"))) {
      throw new LocalAdminError("not_found", `No snapshot named "${name}" in ${path.dirname(dir)}`);
    }
    const view = JSON.parse(fs.readFileSync(path.join(dir, "snapshot.json"), "utf8")) as SnapshotView;
    // Checked (and migrated) on a copy first: a snapshot that cannot be used leaves the instance alone.
    const staged = stageSnapshotCopy(name, dir, this.localDir, this.parts.migrations, opts.onStep);
    try {
      await this.lifecycle.restore((paths) => swapIn(staged, paths, opts.onStep), opts);
    } finally {
      discardStaged(staged);
    }
    return view;
  }

  /** Hands running jobs back to the queue and closes the database at once; resolves when runs have settled. */
  close(): Promise<void> {
    return this.lifecycle.close();
  }

  get isClosed(): boolean {
    return this.lifecycle.isClosed;
  }
}

export function openLocalInstance(opts: OpenOptions): LocalInstance {
  return new LocalInstance(opts);
}
