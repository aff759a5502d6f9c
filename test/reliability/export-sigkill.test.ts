/**
 * An export whose worker is SIGKILLed mid-render: its ffmpeg children outlive it (ffmpeg ignores the
 * broken progress pipe), so the job's next attempt — or its give-up — kills them first. The export is
 * then finished, or failed and refunded, exactly once; no ffmpeg is left running in the job's folder,
 * and only verified files are published. Real processes over the built dist/ and the real export job.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { processesUnder } from "../../src/features/export/emulator/reap.js";
import { exportDir, readExport } from "../../src/features/export/emulator/record.js";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";
import { requireBuilt, startFixture } from "./fixtures/processes.js";
import { probeOutput } from "../helpers/fixture-ffmpeg.js";

// The lease the workers hold, renewed every third of it. The attempt that takes over renders for
// seconds on a machine the rest of the suite keeps busy: with 800 ms, a worker starved of the CPU for
// that long once lost its lease mid-render (then the job, out of attempts, was given up; CI, pass 1).
const LEASE_MS = "2000";
// About 4 s of speech at 1922×1080: a render of a second or more (at full size, so it stays that long
// on a fast machine), and the kill lands early in it (at 15 % of the render step, ~6 % of the frames).
const SCRIPT = "This export is rendered by a worker that will not live to see the end of it.";

// A video and two renders of it (one killed): longer than the default on a loaded machine with the
// npm ffmpeg 4.1 of a fresh machine.
const RENDERS_TIMEOUT_MS = 150_000;

const open: TestInstance[] = [];
beforeAll(requireBuilt);
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/** Every process (any program) whose working directory is inside `dir`: what must not survive. */
function anythingUnder(dir: string): number[] {
  if (process.platform !== "linux") return [];
  const root = fs.realpathSync(dir);
  return fs
    .readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const cwd = fs.readlinkSync(`/proc/${n}/cwd`).replace(/ \(deleted\)$/, "");
        return cwd === root || cwd.startsWith(root + path.sep);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function killMidRender(maxAttempts: number) {
  const t = openTestInstance({ worker: "none", rateLimit: { limit: 100_000, windowMs: 60_000 } });
  open.push(t);
  const spaceId = t.spaceForKey(t.key)!.id;
  // The video is made by a worker in this process, which is then stopped: the export is left to the fixtures.
  await t.startWorker();
  const gen = await t.api.generationStart({ script: SCRIPT, voice_id: "vc_emma", avatar_id: "lk_zoe_podcast" });
  const video = await waitFor(
    async () => {
      const s = await t.api.generationStatus({ job_id: gen.job_id });
      if (s.status === "failed") throw new Error(JSON.stringify(s.error));
      return s.status === "completed" ? s.result!.video_id : undefined;
    },
    30_000,
    50,
  );
  await t.stopWorker(1_000);

  const before = t.ledger.balance(spaceId);
  // A charged export (custom wider than 1920: 2.5 credits), so the refund is visible.
  const started = await t.api.exportStart({ video_id: video, format: "custom", width: 1922, height: 1080, webhook_url: "http://127.0.0.1:9/hook" });
  expect(started.estimated_credits).toBe(2.5);
  const job = t.jobs.list({ kind: "export" })[0]!;
  t.db.prepare("UPDATE jobs SET max_attempts = ? WHERE id = ?").run(maxAttempts, job.id);
  const marker = path.join(t.home, "marker.log");
  const lines = () =>
    fs.existsSync(marker)
      ? fs
          .readFileSync(marker, "utf8")
          .split("\n")
          .filter((l) => l.length > 0)
      : [];
  const dir = path.join(t.mediaDir, exportDir(started.job_id));

  const doomed = startFixture("export-worker.mjs", [t.home, job.id, LEASE_MS, marker]);
  await waitFor(
    () => {
      const row = readExport(t, started.job_id)!;
      return row.current_step === "render" && row.progress >= 15;
    },
    30_000,
    20,
  );
  doomed.child.kill("SIGKILL");
  expect((await doomed.exited).signal).toBe("SIGKILL");
  const tools = JSON.parse(readExport(t, started.job_id)!.tool_paths!) as string[];
  // The render's tools die with their worker (the watchdog of src/media/run.ts kills the group when
  // the worker's pipe closes); any still running when another attempt takes the job over is killed by
  // it (reap.ts). Either way nothing of the dead attempt keeps running.
  const orphans = processesUnder(dir, tools); // for the caller: what ran when the worker died
  const survivors = [0, 1].map(() => startFixture("export-worker.mjs", [t.home, job.id, LEASE_MS, marker], { MEDIAGEN_DEBUG: "1" }));
  const exits = await Promise.all(survivors.map((s) => s.exited));
  for (const [i, e] of exits.entries()) expect(e.code, survivors[i]!.stderr()).toBe(0);
  await waitFor(() => anythingUnder(dir).length === 0, 5_000, 50);
  const ledger = t.ledger
    .rows(spaceId)
    .filter((r) => r.ref === started.job_id)
    .map((r) => [r.kind, r.amount_milli]);
  const hooks = t.webhookDeliveries(spaceId).filter((d) => d.task === "video_export");
  return { t, started, job: t.jobs.get(job.id)!, lines: lines(), ledger, hooks, spaceId, dir, before, orphans };
}

describe("an export worker SIGKILLed mid-render", () => {
  test(
    "no ffmpeg outlives the killed attempt; the next renders again and completes exactly once: charged once, verified file published",
    async () => {
      const r = await killMidRender(2);
      expect(r.job).toMatchObject({ status: "done", attempts: 2 });
      expect(r.lines.filter((l) => l.startsWith("run"))).toHaveLength(2);
      expect(r.lines.some((l) => l.startsWith("giveUp"))).toBe(false);
      const s = await r.t.api.exportStatus({ job_id: r.started.job_id });
      expect(s).toMatchObject({ status: "completed", progress: 100, current_step: "render", result: { cost: 2.5 } });
      expect(r.ledger).toEqual([["debit", -2500]]);
      expect(r.t.ledger.balance(r.spaceId)).toBe(r.before - 2500);
      expect(r.hooks.map((h) => (h.payload as { status: string }).status)).toEqual(["completed"]);
      // Only the published files remain: no attempt folder, no temp file.
      expect(fs.readdirSync(r.dir).sort()).toEqual(["thumbnail.jpg", "video.mp4"]);
      const p = await probeOutput(path.join(r.dir, "video.mp4"));
      expect([p.width, p.height, p.videoCodec, p.audioCodec]).toEqual([1922, 1080, "h264", "aac"]);
    },
    RENDERS_TIMEOUT_MS,
  );

  test(
    "with no attempts left it is given up exactly once: orphans killed, failed, refunded once, one failure webhook",
    async () => {
      const r = await killMidRender(1);
      expect(r.job).toMatchObject({ status: "failed", attempts: 1 });
      expect(r.lines.filter((l) => l.startsWith("run"))).toHaveLength(1);
      expect(r.lines.filter((l) => l.startsWith("giveUp"))).toHaveLength(1);
      const s = await r.t.api.exportStatus({ job_id: r.started.job_id });
      expect(s).toMatchObject({ status: "failed", current_step: "render", error: { code: "EXPORT_FAILED", message: expect.stringMatching(/lease expired/) } });
      expect(s.result).toBeUndefined();
      expect(r.ledger).toEqual([
        ["debit", -2500],
        ["refund", 2500],
      ]);
      expect(r.t.ledger.balance(r.spaceId)).toBe(r.before);
      expect(r.hooks).toHaveLength(1);
      expect(r.hooks[0]!.payload).toMatchObject({ task: "video_export", job_id: r.started.job_id, status: "failed", error: { code: "EXPORT_FAILED" } });
      // Nothing of the dead attempt is left, and nothing was published.
      expect(fs.existsSync(r.dir) ? fs.readdirSync(r.dir) : []).toEqual([]);
    },
    RENDERS_TIMEOUT_MS,
  );
});
