import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";
import { requireBuilt, startFixture } from "./fixtures/processes.js";

const LEASE_MS = "800";
const open: TestInstance[] = [];
beforeAll(requireBuilt);
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

async function killMidRun(maxAttempts: number) {
  const t = openTestInstance({ worker: "none" });
  open.push(t);
  const jobId = t.tx(() => t.jobs.enqueue({ kind: "fixture-slow", maxAttempts }));
  const marker = path.join(t.home, "marker.log");
  // Only whole lines count: the test may read the marker between the fixture's open() and write().
  const lines = () =>
    fs.existsSync(marker)
      ? fs
          .readFileSync(marker, "utf8")
          .split("\n")
          .filter((l) => l.length > 0)
      : [];

  const doomed = startFixture("job-worker.mjs", [t.home, jobId, LEASE_MS, marker, "hang"]);
  await waitFor(() => lines().some((l) => l.startsWith("run ")), 10_000);
  expect(t.jobs.get(jobId)).toMatchObject({ status: "running", attempts: 1 });
  doomed.child.kill("SIGKILL");
  expect((await doomed.exited).signal).toBe("SIGKILL");

  // Two survivors race for the orphaned job once its lease runs out.
  const survivors = [0, 1].map(() => startFixture("job-worker.mjs", [t.home, jobId, LEASE_MS, marker, "finish"]));
  const exits = await Promise.all(survivors.map((s) => s.exited));
  for (const [i, e] of exits.entries()) expect(e.code, survivors[i]!.stderr()).toBe(0);
  const count = (key: string) => Number(t.getSetting(key) ?? 0);
  return { t, jobId, lines: lines(), commits: count("fixture_commits"), giveUps: count("fixture_giveups"), doomedPid: doomed.child.pid };
}

describe("a worker SIGKILLed mid-run", () => {
  test("its job is picked up again once its lease expires, and completes exactly once", async () => {
    const r = await killMidRun(2);
    expect(r.t.jobs.get(r.jobId)).toMatchObject({ status: "done", attempts: 2, lease_owner: null });
    expect(r.commits).toBe(1);
    expect(r.giveUps).toBe(0);
    expect(r.lines).toHaveLength(2);
    expect(r.lines[0]).toBe(`run ${r.doomedPid} attempt=1`);
    expect(r.lines[1]).toMatch(/^run \d+ attempt=2$/);
  });

  test("with no attempts left it is given up exactly once, never run again", async () => {
    const r = await killMidRun(1);
    const job = r.t.jobs.get(r.jobId)!;
    expect(job).toMatchObject({ status: "failed", attempts: 1 });
    expect(job.last_error).toMatch(/lease expired/);
    expect(r.giveUps).toBe(1);
    expect(r.commits).toBe(0);
    expect(r.lines.filter((l) => l.startsWith("run"))).toHaveLength(1);
    expect(r.lines.filter((l) => l.startsWith("giveUp"))).toHaveLength(1);
  });
});
