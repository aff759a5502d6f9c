/**
 * The detached worker process (entry point: src/features/worker-main.ts, which composes the instance):
 * `node worker-main.js --home <home> [--worker-id <id>]`.
 * Runs the instance's jobs and exits once the queue has had nothing for MEDIAGEN_WORKER_IDLE_MS.
 * Its stdio is ignored, so failures go to `<home>/local/worker.log`.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { readEnv } from "../config/env.js";
import type { LocalInstance, OpenOptions } from "./instance.js";
import { instancePaths } from "./storage.js";
import { sweepStaleTemps } from "./sweep.js";
import { Worker } from "./worker.js";

export const DEFAULT_IDLE_MS = 15_000;

export function log(home: string, text: string): void {
  try {
    fs.appendFileSync(path.join(instancePaths(home).localDir, "worker.log"), `${new Date().toISOString()} [${process.pid}] ${text}\n`);
  } catch {
    // nowhere left to report to
  }
}

/** True when this worker may leave: nothing queued or running, checked and acted on under the write lock. */
function retire(instance: LocalInstance, workerId: string): boolean {
  return instance.tx(() => {
    if (instance.jobs.hasUnfinished()) return false;
    instance.db.prepare("DELETE FROM workers WHERE id = ?").run(workerId);
    return true;
  });
}

export async function runDetachedWorker(argv: string[], open: (opts: Omit<OpenOptions, "parts">) => LocalInstance): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { home: { type: "string" }, "worker-id": { type: "string" } },
    strict: true,
  });
  const home = values.home;
  if (!home) {
    process.stderr.write("usage: worker-main --home <home> [--worker-id <id>]\n");
    return 2;
  }
  const idleMs = readEnv("MEDIAGEN_WORKER_IDLE_MS") ?? DEFAULT_IDLE_MS;
  const instance = open({ home, worker: "none", log: (line) => log(home, line) });
  let fatal: (() => void) | undefined;
  const worker = new Worker(instance, instance.jobs, instance.jobKinds, {
    ...(values["worker-id"] ? { id: values["worker-id"] } : {}),
    mode: "detached",
    leaseMs: instance.leaseMs,
    concurrency: instance.concurrency,
    keepAlive: true,
    register: true,
    ...(instance.parts.load ? { prepare: () => instance.parts.load!() } : {}),
    // A module that failed to load stays failed in this process: a fresh one (the next command
    // starts it) can run the jobs, this one never will.
    onPrepareFailed: (e) => {
      log(home, `loading the job kinds failed (${(e as Error).message}); this worker exits, the next command starts a new one`);
      fatal?.();
    },
  });
  if (!worker.start(true)) {
    // Another live worker already serves this instance.
    await instance.close();
    return 0;
  }
  // What a killed predecessor left half-written (temp outputs, render work dirs) goes now.
  void sweepStaleTemps(instance.localDir).then(
    (removed) => removed.length && log(home, `removed ${removed.length} temp file(s) left by processes that died: ${removed.join(", ")}`),
    (e: unknown) => log(home, `sweeping temp files failed: ${(e as Error).message}`),
  );

  return await new Promise<number>((resolve) => {
    let idleSince = Date.now();
    let stopping = false;
    const finish = async (code: number) => {
      if (stopping) return;
      stopping = true;
      clearInterval(check);
      await worker.stop(0);
      await instance.close();
      resolve(code);
    };
    fatal = () => void finish(1);
    const check = setInterval(
      () => {
        try {
          // The database was deleted or replaced: this worker can do nothing more for anyone.
          const gone = instance.storeProblem();
          if (gone) {
            instance.reportStoreFault(gone);
            void finish(1);
            return;
          }
          if (worker.activeCount > 0 || instance.jobs.hasUnfinished()) {
            idleSince = Date.now();
            return;
          }
          if (Date.now() - idleSince >= idleMs && retire(instance, worker.id)) void finish(0);
        } catch (e) {
          log(home, `idle check failed: ${(e as Error).message}`);
        }
      },
      Math.max(20, Math.min(1000, Math.floor(idleMs / 4))),
    );
    for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(sig, () => void finish(0));
  });
}
