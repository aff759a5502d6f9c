import { afterEach, describe, expect, test } from "vitest";
import { ManualClock } from "../../src/local/clock.js";
import { defaultDriver } from "../../src/local/db/open.js";
import { loadLocalParts } from "../../src/features/local.js";
import type { JobKind, JobRow, JobRunContext } from "../../src/local/types.js";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";

// Every feature loaded, so entries can be inspected and replaced (they otherwise load on first use).
const localParts = await loadLocalParts();
const { jobKinds } = localParts;

const open: TestInstance[] = [];
const registered: string[] = [];
const saved: Record<string, JobKind | undefined> = {};

afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
  for (const k of registered.splice(0)) delete jobKinds[k];
  for (const [k, v] of Object.entries(saved)) {
    if (v) jobKinds[k] = v;
    delete saved[k];
  }
});

function setup(opts: { leaseMs?: number; concurrency?: number } = {}) {
  const clock = new ManualClock();
  const t = openTestInstance({ worker: "none", clock, leaseMs: opts.leaseMs ?? 30_000, concurrency: opts.concurrency ?? 2 });
  open.push(t);
  return { t, clock };
}

interface Probe {
  runs: JobRow[];
  commits: string[];
  giveUps: { id: string; error: string }[];
  signals: AbortSignal[];
  contexts: JobRunContext[];
}

function register(name: string, behave: (job: JobRow, ctx: JobRunContext, probe: Probe) => Promise<void> | void): Probe {
  const probe: Probe = { runs: [], commits: [], giveUps: [], signals: [], contexts: [] };
  jobKinds[name] = {
    async run(job, ctx) {
      probe.runs.push(job);
      probe.signals.push(ctx.signal);
      probe.contexts.push(ctx);
      await behave(job, ctx, probe);
      return { commit: () => void probe.commits.push(job.id) };
    },
    giveUp(_instance, job, error) {
      probe.giveUps.push({ id: job.id, error });
    },
  };
  registered.push(name);
  return probe;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const enqueue = (t: TestInstance, kind: string, maxAttempts = 3) => t.tx(() => t.jobs.enqueue({ kind, maxAttempts, payload: { n: 1 } }));

describe("job lifecycle", () => {
  test("a job runs once, commits inside the lease and ends done", async () => {
    const { t } = setup();
    const probe = register("t-ok", () => {});
    const id = enqueue(t, "t-ok");
    expect(t.jobs.get(id)).toMatchObject({ status: "queued", attempts: 0, payload: '{"n":1}' });
    await t.runUntilIdle();
    expect(probe.runs.map((j) => j.id)).toEqual([id]);
    expect(probe.runs[0]).toMatchObject({ status: "running", attempts: 1 });
    expect(probe.commits).toEqual([id]);
    expect(t.jobs.get(id)).toMatchObject({ status: "done", attempts: 1, lease_owner: null, lease_expires: null });
  });

  test("a throwing run is retried with backoff, then given up exactly once", async () => {
    const { t, clock } = setup();
    const probe = register("t-boom", () => {
      throw new Error("render crashed");
    });
    const id = enqueue(t, "t-boom", 3);
    const start = clock.now();
    await t.runUntilIdle();
    expect(t.jobs.get(id)).toMatchObject({ status: "queued", attempts: 1, run_after: start + 1000, last_error: "render crashed" });
    await t.runUntilIdle(); // not due yet: nothing happens
    expect(probe.runs).toHaveLength(1);
    clock.advance(1000);
    await t.runUntilIdle();
    expect(t.jobs.get(id)).toMatchObject({ status: "queued", attempts: 2, run_after: start + 1000 + 2000 });
    clock.advance(2000);
    await t.runUntilIdle();
    expect(t.jobs.get(id)).toMatchObject({ status: "failed", attempts: 3, last_error: "render crashed" });
    expect(probe.giveUps).toEqual([{ id, error: "render crashed" }]);
    clock.advance(60_000);
    await t.runUntilIdle();
    expect(probe.runs).toHaveLength(3);
    expect(probe.giveUps).toHaveLength(1);
    expect(probe.commits).toHaveLength(0);
  });

  test("an unknown kind fails with a clear error", async () => {
    const { t } = setup();
    const id = enqueue(t, "t-nobody-registered-this");
    await t.runUntilIdle();
    expect(t.jobs.get(id)).toMatchObject({ status: "failed", attempts: 0 });
    expect(t.jobs.get(id)?.last_error).toMatch(/unknown job kind "t-nobody-registered-this"/);
  });

  test("terminal states never change", async () => {
    const { t } = setup();
    register("t-ok2", () => {});
    const id = enqueue(t, "t-ok2");
    await t.runUntilIdle();
    expect(() => t.db.prepare("UPDATE jobs SET status = 'queued' WHERE id = ?").run(id)).toThrow(/never changes/);
  });

  test("a commit that throws is undone and the job retried", async () => {
    const { t } = setup();
    let commits = 0;
    jobKinds["t-badcommit"] = {
      async run() {
        return {
          commit: () => {
            commits++;
            t.db.prepare("INSERT INTO settings (key, value) VALUES ('half-written', 'x')").run();
            throw new Error("constraint failed");
          },
        };
      },
      giveUp() {},
    };
    registered.push("t-badcommit");
    const id = enqueue(t, "t-badcommit");
    await t.runUntilIdle();
    expect(commits).toBe(1);
    expect(t.getSetting("half-written")).toBeUndefined();
    expect(t.jobs.get(id)).toMatchObject({ status: "queued", attempts: 1, last_error: "constraint failed" });
  });

  test("a giveUp that throws still leaves the job failed, with both errors", async () => {
    const { t } = setup();
    jobKinds["t-badgiveup"] = {
      async run() {
        throw new Error("boom");
      },
      giveUp(instance) {
        instance.db.prepare("INSERT INTO settings (key, value) VALUES ('partial', 'x')").run();
        throw new Error("refund failed");
      },
    };
    registered.push("t-badgiveup");
    const id = enqueue(t, "t-badgiveup", 1);
    await t.runUntilIdle();
    expect(t.jobs.get(id)).toMatchObject({ status: "failed", last_error: "boom; giving up also failed: refund failed" });
    expect(t.getSetting("partial")).toBeUndefined();
  });
});

describe("leases", () => {
  test("a job whose worker died is picked up again after its lease expires", async () => {
    const { t, clock } = setup({ leaseMs: 5_000 });
    const probe = register("t-recover", () => {});
    const id = enqueue(t, "t-recover", 2);
    // a worker claims it and then vanishes without a word
    expect(t.jobs.claim("dead-worker#1", "work", 5_000)?.id).toBe(id);
    await t.runUntilIdle();
    expect(probe.runs).toHaveLength(0);
    clock.advance(5_000);
    await t.runUntilIdle();
    expect(probe.runs).toHaveLength(1);
    expect(t.jobs.get(id)).toMatchObject({ status: "done", attempts: 2 });
    expect(t.jobs.get(id)?.last_error).toMatch(/lost its worker/);
  });

  test("moving the instance's clock (`local clock advance`, `freeze`) does not end a lease; only its own time does", async () => {
    const { t, clock } = setup({ leaseMs: 5_000 });
    register("t-time-travel", () => {});
    const id = enqueue(t, "t-time-travel", 2);
    expect(t.jobs.claim("busy-worker#1", "work", 5_000)?.id).toBe(id);
    t.advanceClock("2h");
    expect(t.jobs.claim("other#1", "work", 5_000)).toBeUndefined();
    expect(t.jobs.runningCount("work")).toBe(1);
    t.freezeClock();
    expect(t.jobs.claim("other#2", "work", 5_000)).toBeUndefined();
    // The holder renews on its lease's own time, and keeps the job through both moves.
    clock.advance(4_000);
    expect(t.jobs.renew(id, "busy-worker#1", 5_000)).toBe(true);
    clock.advance(4_000);
    expect(t.jobs.claim("other#3", "work", 5_000)).toBeUndefined();
    clock.advance(1_001);
    expect(t.jobs.claim("other#4", "work", 5_000)?.id).toBe(id);
  });

  test("polling an idle queue takes no write lock: another process holding it (a stopped worker) does not block the poll", async () => {
    const { t } = setup();
    register("t-idle", () => {});
    const other = defaultDriver.connect(t.dbPath);
    other.exec(`PRAGMA busy_timeout = 0`);
    other.exec("BEGIN IMMEDIATE");
    try {
      const t0 = Date.now();
      expect(t.jobs.claim("idle#1", "work", 5_000)).toBeUndefined();
      expect(t.jobs.claim("idle#2", "webhook", 5_000)).toBeUndefined();
      // Before, each poll waited out the busy timeout (10 s) and then failed.
      expect(Date.now() - t0).toBeLessThan(2_000);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    // With the lock free again, a due job is claimed as before.
    const id = enqueue(t, "t-idle", 1);
    expect(t.jobs.claim("idle#3", "work", 5_000)?.id).toBe(id);
  });

  test("with no attempts left, a lost job is given up once and never run", async () => {
    const { t, clock } = setup({ leaseMs: 5_000 });
    const probe = register("t-lost", () => {});
    const id = enqueue(t, "t-lost", 1);
    t.jobs.claim("dead-worker#1", "work", 5_000);
    clock.advance(5_001);
    await t.runUntilIdle();
    await t.runUntilIdle();
    expect(probe.runs).toHaveLength(0);
    expect(probe.giveUps).toHaveLength(1);
    expect(probe.giveUps[0]!.error).toMatch(/lease expired/);
    expect(t.jobs.get(id)).toMatchObject({ status: "failed", attempts: 1 });
  });

  test("a run that outlived its lease does not commit over the new holder", async () => {
    const { t, clock } = setup({ leaseMs: 5_000 });
    const gate = deferred();
    const probe = register("t-slow", () => gate.promise);
    const id = enqueue(t, "t-slow");
    await t.startWorker();
    await waitFor(() => probe.runs.length === 1);
    clock.advance(5_000);
    // someone else takes the expired job
    expect(t.jobs.claim("other#1", "work", 5_000)?.id).toBe(id);
    gate.resolve();
    await new Promise((r) => setTimeout(r, 50));
    expect(probe.commits).toHaveLength(0);
    expect(t.jobs.get(id)).toMatchObject({ status: "running", lease_owner: "other#1", attempts: 2 });
  });

  test("the heartbeat renews the lease, and aborts the run once the lease is lost", async () => {
    const { t, clock } = setup({ leaseMs: 5_000 });
    const probe = register("t-hb", (_job, ctx) => new Promise<void>((_r, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))));
    const id = enqueue(t, "t-hb");
    await t.startWorker();
    await waitFor(() => probe.runs.length === 1);
    clock.advance(4_000);
    probe.contexts[0]!.heartbeat();
    expect(t.jobs.get(id)?.lease_expires).toBe(clock.now() + 5_000);
    t.db.prepare("UPDATE jobs SET lease_owner = 'thief#1' WHERE id = ?").run(id);
    probe.contexts[0]!.heartbeat();
    expect(probe.signals[0]!.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(t.jobs.get(id)).toMatchObject({ status: "running", lease_owner: "thief#1" });
  });

  test("stopping the worker aborts running jobs and hands them back without spending an attempt", async () => {
    const { t } = setup();
    const probe = register("t-hang", (_job, ctx) => new Promise<void>((_r, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")))));
    const id = enqueue(t, "t-hang");
    await t.startWorker();
    await waitFor(() => probe.runs.length === 1);
    await t.stopWorker(0);
    expect(probe.signals[0]!.aborted).toBe(true);
    expect(t.jobs.get(id)).toMatchObject({ status: "queued", attempts: 0, lease_owner: null });
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM workers").get()).toEqual({ n: 0 });
  });

  test("stopping with a grace period lets a short job finish", async () => {
    const { t } = setup();
    const gate = deferred();
    const probe = register("t-short", () => gate.promise);
    const id = enqueue(t, "t-short");
    await t.startWorker();
    await waitFor(() => probe.runs.length === 1);
    setTimeout(gate.resolve, 30);
    await t.stopWorker(2_000);
    expect(t.jobs.get(id)?.status).toBe("done");
  });
});

describe("concurrency", () => {
  test("renders run two at a time and webhook deliveries do not wait behind them", async () => {
    const { t } = setup({ concurrency: 2 });
    const gate = deferred();
    let running = 0;
    let peak = 0;
    const probe = register("t-render", async () => {
      running++;
      peak = Math.max(peak, running);
      await gate.promise;
      running--;
    });
    saved.webhook = jobKinds.webhook;
    const hooks = register("webhook", () => {});
    const renders = [1, 2, 3, 4].map(() => enqueue(t, "t-render"));
    await t.startWorker();
    await waitFor(() => probe.runs.length === 2);
    const hook = enqueue(t, "webhook");
    t.kick();
    await waitFor(() => t.jobs.get(hook)?.status === "done", 2_000);
    expect(hooks.commits).toEqual([hook]);
    expect(probe.runs).toHaveLength(2);
    gate.resolve();
    await waitFor(() => renders.every((r) => t.jobs.get(r)?.status === "done"), 5_000);
    expect(peak).toBe(2);
  });

  test("the render cap counts live leases of every process, not just this one", async () => {
    const { t, clock } = setup({ concurrency: 2, leaseMs: 5_000 });
    const probe = register("t-capped", () => {});
    const ids = [1, 2, 3].map(() => enqueue(t, "t-capped"));
    // another process holds two renders
    expect(t.jobs.claim("other#1", "work", 5_000, 2)?.id).toBe(ids[0]);
    expect(t.jobs.claim("other#2", "work", 5_000, 2)?.id).toBe(ids[1]);
    expect(t.jobs.claim("other#3", "work", 5_000, 2)).toBeUndefined();
    expect(t.jobs.runningCount("work")).toBe(2);
    await t.runUntilIdle();
    expect(probe.runs).toHaveLength(0);
    expect(t.jobs.get(ids[2]!)?.status).toBe("queued");
    // once those leases lapse, the slots are free again
    clock.advance(5_000);
    await t.runUntilIdle();
    expect(probe.runs.map((j) => j.id).sort()).toEqual([...ids].sort());
  });

  test("an inline worker registers itself in workers while it runs", async () => {
    const { t } = setup();
    await t.startWorker();
    const rows = t.db.prepare("SELECT pid, mode FROM workers").all();
    expect(rows).toEqual([{ pid: process.pid, mode: "inline" }]);
    await t.stopWorker();
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM workers").get()).toEqual({ n: 0 });
  });
});
