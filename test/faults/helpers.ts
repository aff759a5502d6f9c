/**
 * Shared pieces of the fault-injection suite (`npm run test:faults`, also part of `npm test`): a
 * stand-in ffmpeg that hangs on its first render, the workers of an instance, and cleanup of every
 * process a test froze or started. Build first (`npx tsc -p .`): detached workers run from dist/.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { SqliteError } from "../../src/local/db/driver.js";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import type { DB } from "../../src/local/types.js";
import { procStatFields, processState, type WorkerRow } from "../../src/local/worker-registry.js";
import { workerHome } from "../helpers/leftover-workers.js";

/**
 * The real ffmpeg the stand-in hands every call but the first render to: the one mediagen itself
 * would pick (an override, the system ffmpeg on PATH, else the npm copy a fresh machine has).
 */
export function realFfmpeg(): string {
  if (process.env.MEDIAGEN_FFMPEG) return process.env.MEDIAGEN_FFMPEG;
  try {
    return execFileSync("sh", ["-c", "command -v ffmpeg"], { encoding: "utf8" }).trim();
  } catch {
    return npmFfmpeg();
  }
}

function npmFfmpeg(): string {
  try {
    const { path: binary } = createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg") as { path?: string };
    return binary && fs.existsSync(binary) ? binary : "";
  } catch {
    return ""; // package missing or platform unsupported
  }
}

export interface HangingFfmpeg {
  /** The script to set as MEDIAGEN_FFMPEG. */
  path: string;
  /** Written by the hanging call: its pid (the `sleep` it became). */
  pidFile: string;
}

/**
 * An ffmpeg whose first render writes a partial output to the file it was asked for (its last
 * argument: the render's temp file), records its pid and then hangs (`exec sleep`), as a long
 * render would; version/filter probes and every later call run the real ffmpeg.
 */
export function hangingFfmpeg(dir: string): HangingFfmpeg {
  const real = realFfmpeg();
  if (!real) throw new Error("ffmpeg is needed for the fault suite");
  const script = path.join(dir, "ffmpeg-hangs-once");
  const pidFile = path.join(dir, "hanging.pid");
  fs.writeFileSync(
    script,
    `#!/bin/sh
for a; do last=$a; done
case " $* " in *" -version "*|*" -filters "*) exec "${real}" "$@";; esac
if mkdir "${dir}/hung.lock" 2>/dev/null; then
  printf partial > "$last"
  echo $$ > "${pidFile}.part" && mv "${pidFile}.part" "${pidFile}"
  exec sleep 60
fi
exec "${real}" "$@"
`,
    { mode: 0o755 },
  );
  return { path: script, pidFile };
}

export function workerRows(instance: LocalInstance): WorkerRow[] {
  return instance.db.prepare("SELECT * FROM workers ORDER BY started_at").all() as WorkerRow[];
}

/**
 * When the process with this pid started (clock ticks since boot, /proc/<pid>/stat field 22): with
 * the pid, it names one process, where a pid alone may name another once the first has ended.
 * "" where there is no /proc.
 */
function startedAt(pid: number): string | undefined {
  if (process.platform !== "linux") return "";
  return procStatFields(pid)?.[19];
}

/**
 * Processes a test froze or started: continued and killed afterwards, whatever happened. Each is
 * signalled only while its pid still names the process tracked: a pid freed and taken by another
 * process (a test's `sleep` in another file, after the pids wrapped) is left alone.
 */
const tracked = new Map<number, string>();
export function track(pid: number): number {
  const started = startedAt(pid);
  if (started !== undefined) tracked.set(pid, started);
  return pid;
}
export function killTracked(): void {
  for (const [pid, started] of tracked) {
    for (const sig of ["SIGCONT", "SIGKILL"] as const) {
      if (startedAt(pid) !== started) break;
      try {
        process.kill(pid, sig);
      } catch {
        // gone already
      }
    }
  }
  tracked.clear();
}

/** The detached worker of `home` runs as `pid` (a row's pid may since name another process). */
export function isWorkerOf(pid: number, home: string): boolean {
  return process.platform !== "linux" || workerHome(pid) === home;
}

/** The process exited (gone, or a zombie nobody reaped yet): it runs no more. */
export function ended(pid: number): boolean {
  const s = processState(pid);
  return s === "gone" || s === "zombie";
}

/** An instance that runs nothing itself, to look at the files (rows, ledger) others write. */
export function observer(home: string, open: LocalInstance[]): LocalInstance {
  const i = openLocalInstance({ home, worker: "none" });
  open.push(i);
  return i;
}

/** Every file under `dir` whose name looks like a temp file (`….tmp`, `….tmp.ext`). */
export function tempFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.tmp(\.[a-z0-9]+)?$/i.test(f));
}

/**
 * A disk that fills up on demand, injected through the instance's `wrapDatabase` option: while
 * `full` is true every statement that writes fails as SQLite fails on a full disk (SQLITE_FULL,
 * "database or disk is full"); reads work, as they do on a real full disk.
 */
export function fillableDisk(): { wrapDatabase: (db: DB) => DB; full: boolean } {
  const state = { full: false, wrapDatabase: (db: DB) => db };
  const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b/i;
  const failing = (): never => {
    throw new SqliteError("database or disk is full", "SQLITE_FULL");
  };
  state.wrapDatabase = (db: DB) =>
    new Proxy(db, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop === "prepare") {
          return (sql: string) => {
            const stmt = target.prepare(sql);
            if (!WRITE.test(sql)) return stmt;
            return new Proxy(stmt, {
              get(s, p) {
                const v = Reflect.get(s, p, s) as unknown;
                if (typeof v !== "function") return v;
                if (state.full && (p === "run" || p === "get" || p === "all")) return failing;
                return (v as (...a: unknown[]) => unknown).bind(s);
              },
            });
          };
        }
        if (prop === "exec") return (sql: string) => (state.full && WRITE.test(sql) ? failing() : target.exec(sql));
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return state;
}
