/**
 * One scenario suite, two targets. `forBothTargets(name, (t) => { it(…) })` defines the same tests
 * twice: against the local engine in process, and through HostedEngine → `serve` on 127.0.0.1:0
 * over the same kind of instance. A difference between the two is a bug in one of them.
 *
 *   forBothTargets("folders", (t) => {
 *     it("creates a folder", async () => {
 *       const engine = t.engine();                 // fresh PRO space with credits
 *       expect((await engine.folderCreate({ name: "x" })).type).toBe("assets");
 *     });
 *   });
 *
 * Every engine handed out checks each successful response against its operation's response schema
 * (strictly: a value outside an enum is drift too), so a handler and its schema cannot drift apart
 * without a test failing. The local target's answers are read with the spec's full records
 * (test/helpers/strict-responses.ts: every field the spec gives, by state, nothing it does not give);
 * the hosted target's go through the client, which reads tolerantly as the product does (issue 34).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import type { Plan } from "../../src/contract/plans.js";
import { BaseEngine, type CallOptions, type Engine, type OpName, type OpRequest, type OpResponse, type RateLimitInfo } from "../../src/engine/engine.js";
import { ApiError } from "../../src/engine/errors.js";
import { HostedEngine } from "../../src/hosted/hosted-engine.js";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { rateLimitHeaders } from "../../src/contract/rate-limit.js";
import type { Clock } from "../../src/local/types.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { operations } from "../../src/features/operations.js";
import { responseProblems } from "../../src/hosted/response-check.js";
import { strictProblems } from "../helpers/strict-responses.js";
import { copyMediaDir, linkTree, seedCatalogPictures } from "../helpers/catalog-seed.js";

/**
 * Catalog media (look pictures, voice previews: `<media>/catalog/…`) is drawn on first need and is the
 * same for every instance. A new home starts with the run's look pictures (drawn once per run:
 * test/helpers/catalog-seed.ts) and with what earlier harnesses of this process drew (voice
 * previews): each harness gives its instance's catalog to this process's copy at teardown, so the
 * next target (and the next file, when files share the process) does not draw it again. Only whole
 * files are linked (temp names start with a dot).
 */
let catalogSeed: string | undefined;

function seedCatalog(home: string): void {
  seedCatalogPictures(home);
  if (catalogSeed) copyMediaDir(catalogSeed, "catalog", home);
}

function keepCatalog(mediaDir: string): void {
  const drawn = path.join(mediaDir, "catalog");
  if (!fs.existsSync(drawn)) return;
  if (!catalogSeed) {
    catalogSeed = fs.mkdtempSync(path.join(os.tmpdir(), "mg-catalog-"));
    const dir = catalogSeed;
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  // Links: the home's catalog files may be links to these very files (seedCatalog gave them).
  linkTree(drawn, path.join(catalogSeed, "catalog"));
}

export type TargetName = "local" | "hosted";
export const TARGETS: readonly TargetName[] = ["local", "hosted"];

/** Real time plus an offset tests move forward, so rate windows pass without sleeping. */
export class OffsetClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

export interface EngineOptions {
  /** How many times a 429 is waited out (default 3; 0 shows the 429 to the caller). */
  rateLimitRetries?: number;
  /** Hosted only: receives the client's debug trace. */
  debug?: (line: string) => void;
}

export interface HarnessOptions {
  rateLimit?: { limit: number; windowMs: number };
}

/**
 * The local engine cannot leave out the Authorization header (it always sends `Bearer <key>`), so
 * requests without a key go straight to the same dispatch the server and LocalEngine use.
 */
class RawDispatchEngine extends BaseEngine {
  readonly target = "local" as const;
  private rate: RateLimitInfo | undefined;
  constructor(
    private readonly instance: LocalInstance,
    private readonly authorization: string | undefined,
  ) {
    super();
  }
  async call<K extends OpName>(op: K, input: OpRequest<K>, opts: CallOptions = {}): Promise<OpResponse<K>> {
    const res = await this.instance.service.dispatch(this.authorization, op, JSON.parse(JSON.stringify(input ?? {})), {
      ...(opts.simulate ? { simulate: opts.simulate } : {}),
      urls: this.instance.fileUrls(),
    });
    if (res.rateLimit) this.rate = res.rateLimit;
    if (res.status >= 400) throw new ApiError(res.status, res.body, rateLimitHeaders(res.rateLimit));
    return res.body as OpResponse<K>;
  }
  override lastRateLimit() {
    return this.rate;
  }
}

/** A response that does not match its operation's schema: the handler and the contract disagree. */
export class ContractDriftError extends Error {
  override readonly name = "ContractDriftError";
}

/**
 * Passes every call through and parses each successful response with its operation's schema, or
 * (`strict`) with the spec's full record of it (test/helpers/strict-responses.ts).
 */
export class ContractCheckedEngine extends BaseEngine {
  constructor(
    private readonly inner: Engine,
    private readonly opts: { strict?: boolean } = {},
  ) {
    super();
  }
  get target() {
    return this.inner.target;
  }
  async call<K extends OpName>(op: K, input: OpRequest<K>, opts?: CallOptions): Promise<OpResponse<K>> {
    const res = await this.inner.call(op, input, opts);
    const problems = this.opts.strict ? strictProblems(op, res) : responseProblems(operations[op].response, res);
    if (problems.length) {
      const list = problems.map((p) => `${p.path} ${p.problem}`).join("; ");
      const what = this.opts.strict ? "the spec's record of it" : "its response schema";
      throw new ContractDriftError(`${op} answered a body ${what} refuses: ${list}\nbody: ${JSON.stringify(res)}`);
    }
    return res;
  }
  override lastRateLimit() {
    return this.inner.lastRateLimit();
  }
  override close() {
    return this.inner.close();
  }
}

export class TargetHarness {
  readonly clock = new OffsetClock();
  private home: string | undefined;
  private inst: LocalInstance | undefined;
  private server: RunningServer | undefined;
  private readonly engines: Engine[] = [];

  constructor(
    readonly target: TargetName,
    private readonly options: HarnessOptions = {},
  ) {}

  get instance(): LocalInstance {
    if (!this.inst) throw new Error("the harness is set up in beforeAll: use t.instance inside tests");
    return this.inst;
  }

  /** Hosted only: the served base URL (…/api/public/v1). */
  get baseUrl(): string {
    if (!this.server) throw new Error("baseUrl exists for the hosted target only");
    return this.server.baseUrl;
  }

  async setup(): Promise<void> {
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    this.inst = openLocalInstance({
      home: this.home,
      worker: "inline",
      clock: this.clock,
      ...(this.options.rateLimit ? { rateLimit: this.options.rateLimit } : {}),
    });
    seedCatalog(this.home);
    // The suite's media servers listen on 127.0.0.1: the served instance is told that network is ours
    // (`serve --allow-private-urls`); test/http/fetch-policy.test.ts covers the default refusal.
    if (this.target === "hosted") this.server = await startServer({ instance: this.inst, host: "127.0.0.1", port: 0, allowPrivateNetwork: true });
  }

  async teardown(): Promise<void> {
    for (const e of this.engines.splice(0)) await e.close().catch(() => undefined);
    await this.server?.close(1_000);
    if (this.inst) {
      await this.inst.stopWorker(1_000);
      keepCatalog(this.inst.mediaDir);
      await this.inst.close();
    }
    if (this.home) fs.rmSync(this.home, { recursive: true, force: true });
  }

  /** A new space with its key (default: PRO with 1000 credits). */
  newKey(opts: { plan?: Plan | string; credits?: number } = {}): string {
    return this.instance.createSpace({ plan: opts.plan ?? "PRO", credits: opts.credits ?? 1000 }).api_key;
  }

  /** An engine of this target for a fresh PRO space with credits. */
  engine(opts: EngineOptions & { plan?: Plan | string; credits?: number } = {}): Engine {
    return this.engineFor(this.newKey(opts), opts);
  }

  /** An engine of this target sending exactly this key; `undefined` sends no Authorization header. */
  engineFor(key: string | undefined, opts: EngineOptions = {}): Engine {
    let engine: Engine;
    if (this.target === "local") {
      engine =
        key === undefined
          ? new RawDispatchEngine(this.instance, undefined)
          : this.instance.engine(key, undefined, {
              // Waits move the instance's clock (as `local clock advance` does: leases stay on the
              // base clock, so a 429's wait does not end a running job's lease), as the hosted client's do below.
              now: () => this.instance.clock.now(),
              sleep: async (ms) => void this.instance.clock.advance(ms),
              random: () => 0,
              ...(opts.rateLimitRetries !== undefined ? { rateLimitRetries: opts.rateLimitRetries } : {}),
            });
    } else {
      engine = new HostedEngine({
        baseUrl: this.baseUrl,
        apiKey: key,
        env: {},
        // The served instance answers every request here, the ones the client would refuse too.
        checkRequests: false,
        // The client waits on the same clock the instance counts windows with, without sleeping.
        now: () => this.instance.clock.now(),
        sleep: async (ms) => void this.instance.clock.advance(ms),
        random: () => 0,
        ...(opts.rateLimitRetries !== undefined ? { rateLimitRetries: opts.rateLimitRetries } : {}),
        ...(opts.debug ? { debug: opts.debug } : {}),
      });
    }
    this.engines.push(engine);
    return new ContractCheckedEngine(engine, { strict: this.target === "local" }) as unknown as Engine;
  }
}

/** Defines the suite once per target, each on its own instance (and server, for hosted). */
export function forBothTargets(name: string, fn: (t: TargetHarness) => void, options: HarnessOptions = {}): void {
  for (const target of TARGETS) {
    describe(`${name} [${target}]`, () => {
      const t = new TargetHarness(target, options);
      beforeAll(() => t.setup());
      afterAll(() => t.teardown());
      fn(t);
    });
  }
}

/** Runs `p` and returns the ApiError it rejects with (fails the test if it resolves or throws another error). */
export async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected the call to fail with an ApiError, but it succeeded");
}
