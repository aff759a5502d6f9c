/**
 * The WASM espeak-ng child (tts-wasm-child.ts), kept for the next sentence. With a child per sentence,
 * starting node and reading and compiling the 18 MB module cost about 0.3 s of CPU each time, three
 * quarters of every sentence on a machine without a native espeak-ng. Now one child per process
 * speaks one request after another, each in a fresh instance of the module, so a WAV is still the one
 * a child of its own would write.
 *
 * - The child runs in its own process group under run.ts's watchdog: it dies with this process, even
 *   a SIGKILLed one, and never writes a WAV nobody waits for.
 * - One request at a time. Aborting a queued request drops it; aborting the one being spoken kills
 *   the child (its WAV is never written), and the next request starts a new one.
 * - While nothing is asked of it, it holds nothing open in this process's event loop (a CLI exits
 *   as it did), and it ends by itself after IDLE_MS.
 */
import type { ChildProcess } from "node:child_process";
import os from "node:os";
import readline from "node:readline";
import { readEnv } from "../config/env.js";
import { RenderError } from "./errors.js";
import { abortedError, killWatched, lastLines, spawnWatched, type Lifeline } from "./run.js";

/** How long an idle child waits for the next sentence before it ends. */
const IDLE_MS = 20_000;
const STDERR_KEEP = 16 * 1024;

export interface SpeakRequest {
  args: string[];
  text: string;
  out: string;
}

interface Pending extends SpeakRequest {
  id: number;
  /** When it was asked (MEDIAGEN_MEDIA_TRACE reports each answer's time, as run.ts does a tool's). */
  asked: number;
  /** What runs it: node, the child script, the espeak-ng module. */
  runner: { node: string; script: string; moduleUrl: string };
  /** The child speaking it, once sent. */
  child?: Child;
  retried?: boolean;
  signal?: AbortSignal;
  resolve(): void;
  reject(e: Error): void;
  onAbort?: () => void;
}

interface Child {
  proc: ChildProcess;
  lifeline: Lifeline | null;
  key: string;
  stderr: string;
  /** Set once it has exited or was killed: no request goes to it after that. */
  gone: boolean;
}

let child: Child | undefined;
let current: Pending | undefined;
const queue: Pending[] = [];
let nextId = 1;

/** Streams kept open to the child count towards this process staying alive only while it works. */
function holdLoop(c: Child, busy: boolean): void {
  const streams = [c.proc.stdin, c.proc.stdout, c.proc.stderr, c.lifeline] as Array<{ ref?(): void; unref?(): void } | null>;
  for (const s of streams) (busy ? s?.ref : s?.unref)?.call(s);
  if (busy) c.proc.ref();
  else c.proc.unref();
}

function start(node: string, script: string, moduleUrl: string): Child {
  const { child: proc, lifeline } = spawnWatched(node, [script, moduleUrl, String(IDLE_MS)], { cwd: os.tmpdir(), stdin: "pipe" });
  const c: Child = { proc, lifeline, key: `${node}\0${script}\0${moduleUrl}`, stderr: "", gone: false };
  proc.stdin!.on("error", () => {
    // The child died; its exit says what happened.
  });
  proc.stderr!.setEncoding("utf8");
  proc.stderr!.on("data", (chunk: string) => {
    c.stderr = (c.stderr + chunk).slice(-STDERR_KEEP);
  });
  readline.createInterface({ input: proc.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => answered(c, line));
  proc.on("error", (e: NodeJS.ErrnoException) => ended(c, new RenderError(`could not start the espeak-ng WASM child: ${e.code ?? e.message}`, { tool: "espeak-ng" })));
  proc.on("exit", (code, sig) => {
    const how = code === null ? `was killed by ${sig}` : `exited with code ${code}`;
    ended(c, new RenderError(`the espeak-ng WASM child ${how}`, { tool: "espeak-ng", exitCode: code, stderrTail: lastLines(c.stderr) }));
  });
  return c;
}

/** The child's answer to the request being spoken. */
function answered(c: Child, line: string): void {
  const p = current;
  if (!p || p.child !== c) return;
  let a: { id?: number; status?: number; error?: string };
  try {
    a = JSON.parse(line) as typeof a;
  } catch {
    return;
  }
  if (a.id !== p.id) return;
  current = undefined;
  settle(
    p,
    a.status === 0
      ? undefined
      : new RenderError(`espeak-ng exited with code ${a.status}`, { tool: "espeak-ng", exitCode: a.status ?? 1, stderrTail: lastLines(a.error ?? "") }),
  );
  pump();
}

/** The child is gone: the request it was speaking fails with why; queued ones go to a new child. */
function ended(c: Child, e: RenderError): void {
  if (c.gone) return;
  c.gone = true;
  if (child === c) child = undefined;
  const p = current;
  if (p && p.child === c) {
    current = undefined;
    // A child that ended while a request was on its way (it had just timed out idle) gets one
    // retry on a new child; a request that kills its child twice fails.
    if (p.retried) settle(p, e);
    else {
      p.retried = true;
      queue.unshift(p);
    }
  }
  pump();
}

function settle(p: Pending, e: Error | undefined): void {
  if (p.onAbort) p.signal?.removeEventListener("abort", p.onAbort);
  if (readEnv("MEDIAGEN_MEDIA_TRACE")) process.stderr.write(`[media] espeak-ng (WASM child) ${e ? "failed" : "ok"} in ${Date.now() - p.asked} ms\n`);
  if (e) p.reject(e);
  else p.resolve();
}

/** Sends the next queued request once the child is free; lets go of the event loop when nothing is left. */
function pump(): void {
  if (current) return;
  const p = queue.shift();
  if (!p) {
    if (child && !child.gone) holdLoop(child, false);
    return;
  }
  const { node, script, moduleUrl } = p.runner;
  if (child && child.key !== `${node}\0${script}\0${moduleUrl}`) stop(child);
  child ??= start(node, script, moduleUrl);
  holdLoop(child, true);
  current = p;
  p.child = child;
  child.proc.stdin!.write(`${JSON.stringify({ id: p.id, args: p.args, text: p.text, out: p.out })}\n`);
}

function stop(c: Child): void {
  c.gone = true;
  if (child === c) child = undefined;
  killWatched(c.proc);
}

/**
 * Speaks `req.text` to the WAV file `req.out` with the child script `script` (run by `node`) and
 * the espeak-ng module at `moduleUrl`. Rejects with a RenderError (espeak's messages in its
 * stderrTail) when espeak fails, or with the cancellation when `signal` aborts.
 */
export function speakWithChild(node: string, script: string, moduleUrl: string, req: SpeakRequest, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError("espeak-ng"));
  return new Promise<void>((resolve, reject) => {
    const p: Pending = { ...req, id: nextId++, asked: Date.now(), runner: { node, script, moduleUrl }, signal, resolve, reject };
    p.onAbort = () => {
      const i = queue.indexOf(p);
      if (i >= 0) queue.splice(i, 1);
      else if (current === p) {
        current = undefined;
        if (p.child) stop(p.child);
      }
      settle(p, abortedError("espeak-ng"));
      pump();
    };
    signal?.addEventListener("abort", p.onAbort, { once: true });
    queue.push(p);
    pump();
  });
}
