/**
 * Runs one external tool (ffmpeg, ffprobe, espeak-ng, the WASM TTS child) in its own process group,
 * so cancelling kills everything it spawned, and keeps only the tail of stderr for error messages.
 *
 * The group also dies with this process, however it ends. An exit hook covers a normal exit, but a
 * SIGKILLed worker runs no code, and its renders would go on at full CPU writing files nobody will
 * keep. So each tool starts under a small shell watchdog in its group: it waits on a pipe whose other
 * end only this process holds, and when that pipe closes (this process ended, or the tool finished
 * and we closed it) it kills the group. Nothing polls; the kernel closes the pipe.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readEnv } from "../config/env.js";
import { RenderError } from "./errors.js";

/** ffmpeg's first arguments for a quiet run: no banner, no stdin, overwrite, errors only. */
export const QUIET = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

const STDERR_KEEP = 16 * 1024;
const STDOUT_KEEP = 4 * 1024 * 1024;
const TAIL_LINES = 12;

export interface RunOptions {
  signal?: AbortSignal;
  cwd?: string;
  input?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with each complete stdout line (used for `-progress pipe:1`). */
  onLine?: (line: string) => void;
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

const live = new Set<number>();
let exitHookInstalled = false;

/** Groups are detached from our terminal's group, so they would outlive us without this. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of live) killGroup(pid);
  });
}

function killGroup(pid: number): void {
  try {
    if (process.platform === "win32") process.kill(pid, "SIGKILL");
    else process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

export function lastLines(text: string, n = TAIL_LINES): string {
  return text
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.length > 0)
    .slice(-n)
    .join("\n");
}

export function abortedError(tool: string): RenderError {
  return new RenderError(`${tool} was cancelled`, { tool, aborted: true });
}

/**
 * `sh -c WATCHDOG sh <command> <args…>`: a background subshell blocks reading fd 3 (the pipe to us)
 * and kills the whole group (`kill -9 0`) once it reads end-of-file; the tool replaces the shell
 * (same pid, so the group is still ours to kill) without fd 3.
 */
const WATCHDOG = '(read x <&3; kill -9 0) </dev/null >/dev/null 2>&1 &\nexec "$@" 3<&-';
const WATCHED = process.platform !== "win32";

/** What a failed tool's stderr says about the machine rather than the input (a full disk…), if anything. */
export function systemCause(stderr: string): string | undefined {
  if (/no space left on device|ENOSPC/i.test(stderr)) return "no space left on device";
  if (/disk quota exceeded|EDQUOT/i.test(stderr)) return "disk quota exceeded";
  if (/read-only file system|EROFS/i.test(stderr)) return "read-only file system";
  return undefined;
}

/** A lifeline's stream, unref-able like any pipe socket. */
export type Lifeline = NodeJS.ReadWriteStream & { destroy(): void; ref?(): void; unref?(): void };

/**
 * Starts `command` in a process group of its own under the watchdog (see the header), with stdout
 * and stderr piped. The group is killed when this process ends, whether runTool or a caller that
 * keeps the tool running (the WASM TTS child) started it.
 */
export function spawnWatched(
  command: string,
  args: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv; stdin: "ignore" | "pipe" },
): { child: ChildProcess; lifeline: Lifeline | null } {
  installExitHook();
  const child = spawn(WATCHED ? "/bin/sh" : command, WATCHED ? ["-c", WATCHDOG, "sh", command, ...args] : args, {
    cwd: o.cwd,
    // Unset, the child inherits this process's environment.
    env: o.env,
    stdio: WATCHED ? [o.stdin, "pipe", "pipe", "pipe"] : [o.stdin, "pipe", "pipe"],
    detached: WATCHED,
    windowsHide: true,
  });
  // The watchdog's pipe: closed once the tool has exited (the watchdog then ends, taking any
  // straggler of the group with it), or by the kernel if this process dies first.
  const lifeline = WATCHED ? (child.stdio[3] as Lifeline | null) : null;
  lifeline?.on("error", () => {
    // The watchdog is gone already (killed with its group).
  });
  child.on("exit", () => lifeline?.destroy());
  if (child.pid !== undefined) {
    const pid = child.pid;
    live.add(pid);
    child.on("exit", () => live.delete(pid));
  }
  return { child, lifeline };
}

/** Kills a tool started by spawnWatched, with everything in its group. */
export function killWatched(child: ChildProcess): void {
  if (child.pid !== undefined) killGroup(child.pid);
}

export function runTool(command: string, args: string[], o: RunOptions = {}): Promise<RunResult> {
  const tool = command.split(/[\\/]/).pop() ?? command;
  if (o.signal?.aborted) return Promise.reject(abortedError(tool));
  const started = Date.now();
  // MEDIAGEN_MEDIA_TRACE=1 prints each tool's run time to stderr; =args also its arguments (paths
  // and graph files only: nothing secret goes to these tools).
  const traceMode = readEnv("MEDIAGEN_MEDIA_TRACE");
  if (traceMode === "args") process.stderr.write(`[media] ${JSON.stringify([command, ...args])}\n`);
  const trace = traceMode ? (ok: boolean) => process.stderr.write(`[media] ${tool} ${ok ? "ok" : "failed"} in ${Date.now() - started} ms\n`) : undefined;
  return new Promise<RunResult>((resolve, reject) => {
    const { child } = spawnWatched(command, args, { cwd: o.cwd, env: o.env, stdin: o.input === undefined ? "ignore" : "pipe" });
    let stdout = "";
    let stderr = "";
    let pending = "";
    let aborted = false;
    const onAbort = (): void => {
      aborted = true;
      if (child.pid !== undefined) killGroup(child.pid);
    };
    o.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      if (stdout.length < STDOUT_KEEP) stdout += chunk;
      if (o.onLine) {
        pending += chunk;
        for (let i = pending.indexOf("\n"); i >= 0; i = pending.indexOf("\n")) {
          o.onLine(pending.slice(0, i).trimEnd());
          pending = pending.slice(i + 1);
        }
      }
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.length > STDERR_KEEP * 2) stderr = stderr.slice(-STDERR_KEEP);
    });
    if (o.input !== undefined) {
      child.stdin!.on("error", () => {
        // The tool may exit before reading all input; its exit code tells what happened.
      });
      child.stdin!.end(o.input);
    }

    const finish = (err: Error | null, result?: RunResult): void => {
      o.signal?.removeEventListener("abort", onAbort);
      trace?.(!err);
      if (err) reject(err);
      else resolve(result!);
    };
    child.on("error", (e: NodeJS.ErrnoException) => {
      finish(new RenderError(`could not start ${tool}: ${e.code ?? e.message}`, { tool }));
    });
    child.on("close", (code, sig) => {
      if (aborted) return finish(abortedError(tool));
      if (code === 0) return finish(null, { stdout, stderr });
      // The shell's own exit codes when it could not run the tool: as if spawn itself had failed.
      if (WATCHED && (code === 127 || code === 126) && /not found|No such file|Permission denied|cannot execute/i.test(stderr)) {
        return finish(new RenderError(`could not start ${tool}: ${code === 127 ? "ENOENT" : "EACCES"}`, { tool }));
      }
      const how = code === null ? `was killed by ${sig}` : `exited with code ${code}`;
      // A cause outside the render (the disk is full) is what the user must act on: say it first.
      const cause = systemCause(stderr);
      const text = cause ? `${tool} failed: ${cause} (${how})` : `${tool} ${how}`;
      finish(new RenderError(text, { tool, exitCode: code, stderrTail: lastLines(stderr) }));
    });
  });
}
