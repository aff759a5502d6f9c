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

const homes = new Set<string>();

/** A home whose detached worker is this file's to stop. */
export function trackHome(home: string): void {
  homes.add(home);
}

/** pid of each detached worker process (`worker-main … --home <home>`) this file started. */
function leftoverWorkers(): number[] {
  if (process.platform !== "linux") return [];
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let args: string[];
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "latin1");
      args = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue; // exited meanwhile
    }
    if (!args.some((a) => /worker-main\.[cm]?js$/.test(a))) continue;
    // "pid (comm) S ppid …": comm may hold spaces and parentheses, so the fields follow the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const home = args[args.indexOf("--home") + 1];
    if (ppid === process.pid || (home !== undefined && homes.has(home))) pids.push(Number(entry));
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
