/**
 * What a killed export leaves running. The renderer starts every ffmpeg in its own process group and
 * kills that group when its job is cancelled, but a worker killed outright (SIGKILL, OOM) cannot: its
 * ffmpeg children are reparented and keep rendering into the dead attempt's folder (ffmpeg ignores
 * SIGPIPE, so losing its progress pipe does not stop it).
 *
 * Every tool of an export runs with its working directory inside `exports/<job_id>/`, so the next
 * attempt of the job, or its give-up, finds them by that directory on Linux (`/proc/<pid>/cwd`) and
 * kills their process groups before anything else happens. Only processes running this instance's
 * ffmpeg or ffprobe binary are touched. Elsewhere (no /proc) nothing is found: an orphan then ends
 * with its render, and its files are removed with the attempt's folder.
 */
import fs from "node:fs";
import path from "node:path";

export interface Reaped {
  pid: number;
  command: string;
}

function realpath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/** The process group of a pid (field 5 of /proc/<pid>/stat, after the parenthesised command). */
function processGroup(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pgrp = Number(fields[2]);
    return Number.isInteger(pgrp) ? pgrp : undefined;
  } catch {
    return undefined;
  }
}

/** Processes of `binaries` whose working directory is `dir` or below it (Linux; [] elsewhere). */
export function processesUnder(dir: string, binaries: readonly string[]): Reaped[] {
  if (process.platform !== "linux" || !fs.existsSync("/proc/self/cwd")) return [];
  const root = realpath(dir) ?? path.resolve(dir);
  const exes = new Set(binaries.map((b) => realpath(b)).filter((b): b is string => b !== undefined));
  if (exes.size === 0) return [];
  const found: Reaped[] = [];
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let cwd: string;
    let exe: string;
    try {
      // A folder removed under a process reads "<path> (deleted)".
      cwd = fs.readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, "");
      exe = fs.readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, "");
    } catch {
      continue; // gone, or not ours to read
    }
    if (cwd !== root && !cwd.startsWith(root + path.sep)) continue;
    if (!exes.has(exe)) continue;
    found.push({ pid, command: path.basename(exe) });
  }
  return found;
}

/**
 * Kills (SIGKILL) every process of `binaries` working under `dir`, with its process group when it
 * leads one (the renderer's tools do). Returns what was killed.
 */
export function reapProcessesUnder(dir: string, binaries: readonly string[]): Reaped[] {
  const found = processesUnder(dir, binaries);
  for (const p of found) {
    try {
      if (processGroup(p.pid) === p.pid) process.kill(-p.pid, "SIGKILL");
      else process.kill(p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return found;
}
