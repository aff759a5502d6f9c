/**
 * Workers that stop working: frozen (SIGSTOP) idle or mid-render, and killed (SIGKILL) mid-render.
 * Jobs must not stall behind them (every status poll notices and starts another worker, and leases
 * of a dead or frozen worker end at once), a killed render's ffmpeg must not run on, and its
 * half-written files must go when the next worker starts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import type { LocalInstance } from "../../src/features/local.js";
import { DEFAULT_LEASE_MS } from "../../src/local/jobs.js";
import { newHome, run } from "../cli/helpers.js";
import { waitFor } from "../helpers/local.js";
import { ended, hangingFfmpeg, isWorkerOf, killTracked, observer, tempFiles, track, workerRows } from "./helpers.js";

const open: LocalInstance[] = [];
const homes: string[] = [];
const saved = { ...process.env };
const linux = process.platform === "linux";

/** A fresh home whose workers are killed after the test (they would idle for a minute). */
function homeDir(): string {
  const h = newHome();
  homes.push(h);
  return h;
}

beforeEach(() => {
  // A worker that stays around, as it does while a user keeps working.
  process.env.MEDIAGEN_WORKER_IDLE_MS = "60000";
  delete process.env.MEDIAGEN_FFMPEG;
});
afterEach(async () => {
  for (const h of homes.splice(0)) for (const r of workerRows(observer(h, open))) if (r.pid !== null && isWorkerOf(r.pid, h)) track(r.pid);
  killTracked();
  for (const i of open.splice(0)) await i.close();
  for (const k of ["MEDIAGEN_WORKER_IDLE_MS", "MEDIAGEN_FFMPEG"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

const IMAGE = ["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--json"];
/** Well inside the 30 s lease a frozen worker would otherwise hold its job for. */
const PROMPTLY = DEFAULT_LEASE_MS / 2;

/** Starts an image job whose render hangs in the detached worker; returns the job's asset, the worker and the hung ffmpeg. */
async function hungRender(home: string): Promise<{ id: string; worker: number; ffmpeg: number }> {
  const ff = hangingFfmpeg(fs.mkdtempSync(path.join(os.tmpdir(), "mg-ff-")));
  process.env.MEDIAGEN_FFMPEG = ff.path;
  const started = await run([...IMAGE, "--prompt", "hangs"], { home });
  expect(started.exitCode, started.stderr).toBe(0);
  const id = started.json<{ asset_ids: string[] }>().asset_ids[0]!;
  const ffmpeg = track(Number(await waitFor(() => fs.existsSync(ff.pidFile) && fs.readFileSync(ff.pidFile, "utf8").trim(), 20_000)));
  const rows = workerRows(observer(home, open)).filter((r) => r.pid !== null);
  expect(rows).toHaveLength(1);
  return { id, worker: track(rows[0]!.pid!), ffmpeg };
}

async function watch(home: string, id: string): Promise<{ ms: number; status: string; stderr: string }> {
  const t0 = Date.now();
  const r = await run(["asset", "status", id, "--watch", "--timeout", "25s", "--json"], { home, timeoutMs: 40_000 });
  const ms = Date.now() - t0;
  const status = r.exitCode === 0 ? ((r.json<{ status: string } | { status: string }[]>() as { status: string }).status ?? "?") : `exit ${r.exitCode}`;
  return { ms, status, stderr: r.stderr };
}

// Telling a frozen worker from a running one needs /proc; elsewhere it is noticed when its row's lease runs out (30 s).
test.skipIf(!linux)("a frozen idle worker does not stall the next job: the command starts another worker", async () => {
  const home = homeDir();
  const warm = await run([...IMAGE, "--prompt", "warm up", "--watch"], { home });
  expect(warm.exitCode, warm.stderr).toBe(0);
  const [w] = workerRows(observer(home, open));
  expect(w?.pid).toEqual(expect.any(Number));
  process.kill(track(w!.pid!), "SIGSTOP");

  const t0 = Date.now();
  const r = await run([...IMAGE, "--prompt", "after the freeze", "--watch", "--timeout", "25s"], { home, timeoutMs: 40_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(Date.now() - t0).toBeLessThan(PROMPTLY);
  expect(workerRows(observer(home, open)).some((row) => row.pid !== null && row.pid !== w!.pid)).toBe(true);
});

test.skipIf(!linux)("a worker frozen mid-render loses its job to a new worker on the next status poll", async () => {
  const home = homeDir();
  const { id, worker } = await hungRender(home);
  process.kill(worker, "SIGSTOP");
  const w = await watch(home, id);
  expect(w.status, w.stderr).toBe("completed");
  expect(w.ms).toBeLessThan(PROMPTLY);
});

test("a worker killed mid-render: its ffmpeg dies with it, the job completes, its temp files go", async () => {
  const home = homeDir();
  const local = path.join(home, "local");
  const { id, worker, ffmpeg } = await hungRender(home);
  expect(tempFiles(local)).toHaveLength(1); // the half-written output
  // The render's work dir (graph scripts) in the system temp dir, named after the worker's pid.
  const workDirs = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`mg-media-${worker}-`));

  process.kill(worker, "SIGKILL");
  const t0 = Date.now();
  await waitFor(() => ended(ffmpeg), 5_000);
  expect(Date.now() - t0).toBeLessThan(3_000);
  expect(workDirs()).not.toEqual([]); // left behind until the next worker starts

  const w = await watch(home, id);
  expect(w.status, w.stderr).toBe("completed");
  expect(w.ms).toBeLessThan(PROMPTLY);
  await waitFor(() => tempFiles(local).length === 0 && workDirs().length === 0, 5_000);
});
