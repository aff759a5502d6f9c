/**
 * The local instance's detached workers a test file leaves running. A command that starts a paid job
 * without waiting (`asset start`, `generate`) leaves the render to a detached worker, which keeps
 * rendering after the test has checked what it wanted (the price, the debit, the history) and takes
 * the CPU from the files that run next. When a file ends, test/setup/file-isolation.ts stops the
 * workers it started: those that are children of this process (commands run in process) and those
 * serving a home made for it (commands run as processes, whose worker outlives them). SIGTERM: the
 * worker aborts its jobs, which stops their ffmpeg, and exits.
 */
import fs from "node:fs";
import { procStatFields } from "../../src/local/worker-registry.js";

const homes = new Set<string>();

/** A home whose detached worker is this file's to stop. */
export function trackHome(home: string): void {
  homes.add(home);
}

/** The home a detached worker process serves (`worker-main … --home <home>`); undefined for any other process. */
export function workerHome(pid: number | string): string | undefined {
  let args: string[];
  try {
    args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return undefined;
  }
  if (!args.some((a) => /worker-main\.[cm]?js$/.test(a))) return undefined;
  return args[args.indexOf("--home") + 1];
}

/** pid of each detached worker process this file started. */
function leftoverWorkers(): number[] {
  if (process.platform !== "linux") return [];
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const home = workerHome(entry);
    if (home === undefined) continue;
    const ppid = Number(procStatFields(entry)?.[1]);
    if (ppid === process.pid || homes.has(home)) pids.push(Number(entry));
  }
  return pids;
}

/** Stops the detached workers this file started, and forgets its homes. */
export function stopLeftoverWorkers(): void {
  for (const pid of leftoverWorkers()) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // gone already
    }
  }
  homes.clear();
}
