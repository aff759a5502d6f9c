/**
 * `reset` never deletes files under a live process: it refuses while another process serves the
 * instance, stops detached workers first, and lets this process's own jobs settle before the new
 * database exists. Other processes are real children; their worker rows are written as they would be.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LocalAdminError } from "../../src/local/instance.js";
import { localParts } from "../../src/features/local.js";
const { jobKinds } = localParts;
import { pidAlive } from "../../src/local/worker-registry.js";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";

const children: ChildProcess[] = [];
const opened: TestInstance[] = [];
const kinds: string[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const t of opened.splice(0)) await t.close();
  for (const k of kinds.splice(0)) delete jobKinds[k];
});

/**
 * A live process that is not this one; `ignoreTerm` makes it survive SIGTERM; `workerId` makes it
 * look like a detached worker (`…/worker-main.js --home … --worker-id <id>`). Resolves once it runs.
 */
async function otherProcess(ignoreTerm = false, workerId?: string): Promise<ChildProcess> {
  const code = `${ignoreTerm ? "process.on('SIGTERM', () => {});" : ""} setInterval(() => {}, 1e9); console.log('ready');`;
  let args = ["-e", code];
  if (workerId) {
    const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mg-fake-worker-")), "worker-main.js");
    fs.writeFileSync(script, code);
    args = [script, "--home", "/nowhere", "--worker-id", workerId];
  }
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "ignore"] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (c) => reject(new Error(`child exited ${c}`)));
  });
  return child;
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode ?? child.exitCode);
  return new Promise((r) => child.once("exit", (code, signal) => r(signal ?? code)));
}

function registerRow(t: TestInstance, pid: number, mode: "inline" | "detached", id = `w_${mode}_${pid}`): void {
  const now = t.clock.now();
  t.db.prepare("INSERT INTO workers (id, pid, mode, lease_expires, started_at) VALUES (?, ?, ?, ?, ?)").run(id, pid, mode, now + 60_000, now);
}

function setup(): TestInstance {
  const t = openTestInstance({ worker: "none" });
  opened.push(t);
  fs.writeFileSync(path.join(t.mediaDir, "keep.png"), "x");
  return t;
}

/** The instance still holds what it held before a refused reset. */
function expectIntact(t: TestInstance, key: string): void {
  expect(t.spaceForKey(key)).toBeDefined();
  expect(fs.existsSync(path.join(t.mediaDir, "keep.png"))).toBe(true);
}

describe("local reset with other processes", () => {
  it("refuses while another process serves the instance, and deletes nothing", async () => {
    const t = setup();
    const serve = await otherProcess();
    registerRow(t, serve.pid!, "inline");
    const err = await t.reset({ waitMs: 500 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalAdminError);
    expect(err).toMatchObject({ kind: "invalid" });
    expect((err as Error).message).toMatch(new RegExp(`in use by another process \\(pid ${serve.pid}, e\\.g\\. \`mediagen serve\`\\)`));
    expectIntact(t, t.key);
    // A refusal never signals a server.
    expect(pidAlive(serve.pid!)).toBe(true);
  });

  it("ignores the row of a process that has died", async () => {
    const t = setup();
    const gone = await otherProcess();
    gone.kill("SIGKILL");
    await exited(gone);
    registerRow(t, gone.pid!, "inline");
    await t.reset();
    expect(t.spaceForKey(t.key)).toBeUndefined();
    expect(fs.readdirSync(t.mediaDir)).toEqual([]);
  });

  it("stops a detached worker with SIGTERM and waits until it is gone", async () => {
    const t = setup();
    const worker = await otherProcess(false, "w_detached_a");
    registerRow(t, worker.pid!, "detached", "w_detached_a");
    await t.reset({ pollMs: 10 });
    const stillRunning = new Promise<string>((r) => setTimeout(() => r("still running"), 5_000).unref());
    expect(await Promise.race([exited(worker), stillRunning])).toBe("SIGTERM");
    expect(t.spaceForKey(t.key)).toBeUndefined();
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM workers").get()).toEqual({ n: 0 });
  });

  it("refuses when a detached worker does not stop in time, and deletes nothing", async () => {
    const t = setup();
    const stubborn = await otherProcess(true, "w_detached_b");
    registerRow(t, stubborn.pid!, "detached", "w_detached_b");
    const err = await t.reset({ waitMs: 200, pollMs: 10 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalAdminError);
    expect((err as Error).message).toMatch(new RegExp(`pid ${stubborn.pid}\\) did not stop within 0.2 s; nothing was reset`));
    expectIntact(t, t.key);
  });
});

describe("local reset and pids that name another process now", () => {
  it("never signals a process a dead worker's row still names: not a worker, or another worker", async () => {
    const t = setup();
    // The system gave the dead workers' pids to these (the rows' leases have not ended yet).
    const stranger = await otherProcess();
    const otherWorker = await otherProcess(false, "w_detached_someone_else");
    registerRow(t, stranger.pid!, "detached", "w_detached_dead_1");
    registerRow(t, otherWorker.pid!, "detached", "w_detached_dead_2");
    await t.reset({ waitMs: 2_000, pollMs: 10 });
    expect(t.spaceForKey(t.key)).toBeUndefined();
    expect([pidAlive(stranger.pid!), pidAlive(otherWorker.pid!)]).toEqual([true, true]);
  });
});

describe("local reset with jobs running in this process", () => {
  it("waits for a running job to settle, so nothing it writes lands in the new database", async () => {
    const t = openTestInstance({ worker: "inline" });
    opened.push(t);
    let started = false;
    jobKinds["t-reset-straggler"] = {
      async run(_job, ctx) {
        started = true;
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        // Winding down after the abort takes a moment, then touches the database once more.
        await new Promise((r) => setTimeout(r, 30));
        ctx.instance.db.prepare("INSERT INTO settings (key, value) VALUES ('straggler', 'late')").run();
        return { commit: () => undefined };
      },
      giveUp: () => undefined,
    };
    kinds.push("t-reset-straggler");
    t.jobs.enqueue({ kind: "t-reset-straggler" });
    t.kick();
    await waitFor(() => started);
    await t.reset();
    // Give a straggler every chance to write before looking.
    await new Promise((r) => setTimeout(r, 60));
    expect(t.getSetting("straggler")).toBeUndefined();
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM jobs").get()).toEqual({ n: 0 });
  });
});
