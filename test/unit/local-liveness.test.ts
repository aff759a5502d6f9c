/**
 * What counts as a live worker: a row whose lease is current and whose process runs. "The pid
 * exists" is not enough: a zombie (killed, not reaped) and a stopped process (SIGSTOP) answer
 * kill(pid, 0) but will never renew a lease. Jobs held by such a worker are released at once, and
 * the check that every request makes is throttled and writes nothing while all is well.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { releaseDeadLeases, isLive, leaseOwnerPid, liveWorkers, pidAlive, processState, pruneDeadWorkers, type WorkerRow } from "../../src/local/worker-registry.js";
import { SUPERVISE_INTERVAL_MS } from "../../src/local/background.js";
import { loadLocalParts } from "../../src/features/local.js";
import type { JobKind } from "../../src/local/types.js";
import { openTestInstance, waitFor } from "../helpers/local.js";

// Every feature loaded, so entries can be inspected and replaced (they otherwise load on first use).
const localParts = await loadLocalParts();

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) {
    try {
      process.kill(c.pid!, "SIGCONT");
      c.kill("SIGKILL");
    } catch {
      // gone
    }
  }
});

function sleeper(): ChildProcess {
  const c = spawn("sleep", ["30"], { stdio: "ignore" });
  children.push(c);
  return c;
}

/** A child of a process that never reaps it: `sh` becomes `sleep` (exec) and its background child dies unreaped. */
async function zombie(): Promise<number> {
  const c = spawn("sh", ["-c", "sleep 0.05 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
  children.push(c);
  const pid = await new Promise<number>((resolve) => c.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
  await waitFor(() => processState(pid) === "zombie", 3000);
  return pid;
}

const linux = process.platform === "linux";

describe("processState", () => {
  it("tells running, stopped, zombie and gone apart", async () => {
    const c = sleeper();
    expect(processState(c.pid!)).toBe("running");
    process.kill(c.pid!, "SIGSTOP");
    if (linux) await waitFor(() => processState(c.pid!) === "stopped", 2000);
    expect(pidAlive(c.pid!)).toBe(true); // it exists: reset still signals it
    c.kill("SIGKILL");
    await waitFor(() => processState(c.pid!) === "gone", 2000);
    expect(processState(2 ** 22 + 12345)).toBe("gone");
  });

  it.skipIf(!linux)("a zombie exists for kill(pid, 0) but is not alive", async () => {
    const pid = await zombie();
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(pidAlive(pid)).toBe(false);
  });
});

describe("worker rows", () => {
  // Leases are set against the `now` the check is given, not a later clock reading: a row made
  // a millisecond after `now` with a lease of -1 ms would otherwise still be current.
  const row = (pid: number | null, leaseMs = 10_000, now = Date.now()): WorkerRow => ({
    id: `w_test_${pid}`,
    pid,
    mode: "detached",
    lease_expires: now + leaseMs,
    started_at: now,
  });

  it.skipIf(!linux)("a current lease is not enough: stopped and zombie workers are not live", async () => {
    const running = sleeper();
    const stopped = sleeper();
    process.kill(stopped.pid!, "SIGSTOP");
    await waitFor(() => processState(stopped.pid!) === "stopped", 2000);
    const z = await zombie();
    const now = Date.now();
    expect(isLive(row(running.pid!, 10_000, now), now)).toBe(true);
    expect(isLive(row(stopped.pid!, 10_000, now), now)).toBe(false);
    expect(isLive(row(z, 10_000, now), now)).toBe(false);
    expect(isLive(row(running.pid!, -1, now), now)).toBe(false); // silent: missed its heartbeats
    expect(isLive(row(running.pid!, 0, now), now)).toBe(false); // expires this very millisecond
    expect(isLive(row(null, 10_000, now), now)).toBe(true); // being spawned
  });

  it("the pid behind a lease token: the worker's row, else the pid in a w_<pid>_ id", () => {
    const rows = [row(4242)];
    expect(leaseOwnerPid("w_test_4242#7", rows)).toBe(4242);
    expect(leaseOwnerPid("w_1234_abcdef01#2", rows)).toBe(1234);
    expect(leaseOwnerPid("w_detached_abc#1", rows)).toBeUndefined();
    expect(leaseOwnerPid("dead-worker#1", rows)).toBeUndefined();
  });
});

const slowKind: JobKind = {
  run: () => new Promise(() => {}),
  giveUp: () => {},
};

describe("leases of dead workers end at once", () => {
  it("releaseDeadLeases ends a lease whose holder is gone or stopped, and leaves live and unknown holders alone", async () => {
    const t = openTestInstance({ worker: "none" });
    const stopped = sleeper();
    process.kill(stopped.pid!, "SIGSTOP");
    const gone = spawn("true");
    await new Promise((r) => gone.once("exit", r));
    const owners = [`w_${gone.pid}_aa#1`, `w_${stopped.pid}_bb#1`, `w_${process.pid}_cc#1`, "someone#1"];
    const ids = owners.map((owner) => {
      const id = t.jobs.enqueue({ kind: "webhook", payload: null });
      t.db.prepare("UPDATE jobs SET status = 'running', attempts = 1, lease_owner = ?, lease_expires = ? WHERE id = ?").run(owner, Date.now() + 60_000, id);
      return id;
    });
    if (linux) await waitFor(() => processState(stopped.pid!) === "stopped", 2000);
    expect(releaseDeadLeases(t.db, t.jobs)).toBe(linux ? 2 : 1);
    const expired = ids.map((id) => t.jobs.get(id)!.lease_expires! <= Date.now());
    expect(expired).toEqual([true, linux, false, false]);
    expect(t.jobs.get(ids[0]!)).toMatchObject({ status: "running", lease_owner: owners[0] }); // the next claim counts the attempt
  });

  it("pruning a dead worker's row ends its leases (the row is what ties the token to a process)", async () => {
    const t = openTestInstance({ worker: "none" });
    const gone = spawn("true");
    await new Promise((r) => gone.once("exit", r));
    t.db
      .prepare("INSERT INTO workers (id, pid, mode, lease_expires, started_at) VALUES ('w_detached_x', ?, 'detached', ?, ?)")
      .run(gone.pid, Date.now() + 60_000, Date.now());
    const id = t.jobs.enqueue({ kind: "webhook", payload: null });
    t.db.prepare("UPDATE jobs SET status = 'running', lease_owner = 'w_detached_x#3', lease_expires = ? WHERE id = ?").run(Date.now() + 60_000, id);
    t.tx(() => pruneDeadWorkers(t.db, t.clock));
    expect(liveWorkers(t.db, t.clock)).toEqual([]);
    expect(t.jobs.get(id)!.lease_expires).toBeLessThanOrEqual(Date.now());
  });
});

describe("supervise (called by every request)", () => {
  it("is throttled to once a second and writes nothing while the worker holding the job is well", async () => {
    const t = openTestInstance({ worker: "detached", parts: { ...localParts, jobKinds: { ...localParts.jobKinds, slow: slowKind } } });
    t.db
      .prepare("INSERT INTO workers (id, pid, mode, lease_expires, started_at) VALUES ('w_detached_me', ?, 'detached', ?, ?)")
      .run(process.pid, Date.now() + 60_000, Date.now());
    const id = t.jobs.enqueue({ kind: "slow", payload: null });
    t.db.prepare("UPDATE jobs SET status = 'running', attempts = 1, lease_owner = 'w_detached_me#1', lease_expires = ? WHERE id = ?").run(Date.now() + 60_000, id);
    const changes = () => (t.db.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
    const spy = vi.spyOn(t.db, "prepare");
    const before = changes();
    await new Promise((r) => setTimeout(r, SUPERVISE_INTERVAL_MS));
    t.supervise();
    const reads = spy.mock.calls.length;
    expect(reads).toBeGreaterThan(0);
    t.supervise();
    t.supervise();
    expect(spy.mock.calls.length).toBe(reads); // throttled: nothing at all
    spy.mockRestore();
    expect(changes()).toBe(before);
    expect(t.jobs.get(id)).toMatchObject({ status: "running", lease_owner: "w_detached_me#1" });
  });
});
