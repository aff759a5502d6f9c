/**
 * The manifest of a batch: what happened to each line, as it happened, so a re-run skips what is
 * done, resumes what was started and never starts a paid request twice. One JSON event per line of
 * a JSONL file, appended with one write() on a descriptor opened O_APPEND (the kernel places it at
 * the end as a whole) and fsync'ed before the request it announces is sent. A line cut by a crash
 * (the last one) does not parse and is ignored on read.
 *
 *   {"ev":"batch","v":1,"target":"local","input":"lines.jsonl","at":"…"}
 *   {"ev":"intent","line":3,"hash":"…","step":"start","at":"…"}          before POST …/start
 *   {"ev":"started","line":3,"hash":"…","step":"start","ids":["…"],"cost":0.1,"at":"…"}
 *   {"ev":"result","line":3,"hash":"…","step":"start","video_id":"…"}    what a later step needs
 *   {"ev":"saved","line":3,"hash":"…","path":"/…/3-asset-….png"}
 *   {"ev":"done","line":3,"hash":"…","cost":0.1}
 *   {"ev":"failed","line":3,"hash":"…","step":"start","phase":"job","code":"…","message":"…"}
 *   {"ev":"skipped_budget","line":3,"hash":"…","price":16}
 *   {"ev":"unknown","line":3,"hash":"…","step":"start","message":"…"}
 */
import fs from "node:fs";
import path from "node:path";

export type Step = "start" | "export";
/**
 * Where a line failed: `start` the request was refused (not paid), `job` the job failed (both: a
 * retry starts the step again); `watch` its status could not be read, `download` saving failed
 * (both: a retry goes on with the job already paid for).
 */
export type Phase = "start" | "job" | "watch" | "download";

export interface StepState {
  /** When the start request was announced (ISO); set before it is sent. */
  intentAt?: string;
  ids?: string[];
  cost?: number;
  adopted?: boolean;
  /** Extra facts a later step needs (the video of a generation). */
  videoId?: string;
  lookId?: string;
  avatarId?: string;
  script?: string;
}

export type LineStatus = "pending" | "running" | "done" | "failed" | "skipped_budget" | "unknown";

export interface LineState {
  line: number;
  hash: string;
  status: LineStatus;
  steps: Partial<Record<Step, StepState>>;
  paths: string[];
  failure?: { step: Step; phase: Phase; code: string; message: string };
  price?: number | null;
}

export interface ManifestHeader {
  target: string;
  base_url?: string | null;
  input: string;
}

export interface Manifest {
  header?: ManifestHeader;
  lines: Map<number, LineState>;
}

export function emptyLine(line: number, hash: string): LineState {
  return { line, hash, status: "pending", steps: {}, paths: [] };
}

/** Reads and folds the manifest; a missing file is an empty one, a torn or foreign line is skipped. */
export function readManifest(file: string): Manifest {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { lines: new Map() };
    throw e;
  }
  const m: Manifest = { lines: new Map() };
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    let ev: Record<string, unknown>;
    try {
      ev = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      continue; // a line cut by a crash
    }
    if (!ev || typeof ev !== "object") continue;
    if (ev.ev === "batch") {
      if (!m.header) m.header = { target: String(ev.target), base_url: (ev.base_url as string | null | undefined) ?? null, input: String(ev.input) };
      continue;
    }
    if (typeof ev.line !== "number" || typeof ev.hash !== "string") continue;
    apply(m, ev as unknown as Event);
  }
  return m;
}

export type Event =
  | { ev: "intent"; line: number; hash: string; step: Step; at: string }
  | { ev: "started"; line: number; hash: string; step: Step; ids: string[]; cost: number; adopted?: boolean; look_id?: string; avatar_id?: string; at: string }
  | { ev: "result"; line: number; hash: string; step: Step; video_id?: string; script?: string }
  | { ev: "saved"; line: number; hash: string; path: string }
  | { ev: "done"; line: number; hash: string; cost: number }
  | { ev: "failed"; line: number; hash: string; step: Step; phase: Phase; code: string; message: string }
  | { ev: "skipped_budget"; line: number; hash: string; price: number | null }
  | { ev: "unknown"; line: number; hash: string; step: Step; message: string }
  | { ev: "retry"; line: number; hash: string; step: Step };

/** Folds one event into the state (the same code on read and as events are appended). */
export function apply(m: Manifest, ev: Event): LineState {
  let s = m.lines.get(ev.line);
  if (!s || s.hash !== ev.hash) {
    s = emptyLine(ev.line, ev.hash);
    m.lines.set(ev.line, s);
  }
  const step = (name: Step): StepState => (s!.steps[name] ??= {});
  switch (ev.ev) {
    case "intent":
      step(ev.step).intentAt = ev.at;
      s.status = "running";
      delete s.failure;
      break;
    case "started": {
      const st = step(ev.step);
      st.ids = ev.ids;
      st.cost = ev.cost;
      if (ev.adopted) st.adopted = true;
      if (ev.look_id) st.lookId = ev.look_id;
      if (ev.avatar_id) st.avatarId = ev.avatar_id;
      s.status = "running";
      break;
    }
    case "result": {
      const st = step(ev.step);
      if (ev.video_id) st.videoId = ev.video_id;
      if (ev.script !== undefined) st.script = ev.script;
      break;
    }
    case "saved":
      if (!s.paths.includes(ev.path)) s.paths.push(ev.path);
      break;
    case "done":
      s.status = "done";
      delete s.failure;
      break;
    case "failed":
      s.status = "failed";
      s.failure = { step: ev.step, phase: ev.phase, code: ev.code, message: ev.message };
      break;
    case "skipped_budget":
      s.status = "skipped_budget";
      s.price = ev.price;
      break;
    case "unknown":
      s.status = "unknown";
      s.failure = { step: ev.step, phase: "start", code: "unknown_outcome", message: ev.message };
      break;
    case "retry":
      // A retried step starts over: its earlier intent and job no longer count for this line.
      delete s.steps[ev.step];
      if (ev.step === "start") delete s.steps.export;
      s.status = "pending";
      delete s.failure;
      break;
  }
  return s;
}

/** Appends events, each with one write() of a whole line, then fsync: on disk before the caller goes on. */
export class ManifestWriter {
  private fd: number;
  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o600);
    // A line torn by a crash is closed first, so the next event starts on a line of its own.
    const size = fs.fstatSync(this.fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      fs.readSync(this.fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) fs.writeSync(this.fd, "\n");
    }
  }

  append(ev: object): void {
    const buf = Buffer.from(JSON.stringify(ev) + "\n", "utf8");
    const n = fs.writeSync(this.fd, buf, 0, buf.length);
    if (n !== buf.length) throw new Error(`short write to ${this.file} (${n} of ${buf.length} bytes)`);
    fs.fsyncSync(this.fd);
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

/** Every job id the manifest holds, so a job found after a crash is adopted by one line only. */
export function claimedIds(m: Manifest): Set<string> {
  const ids = new Set<string>();
  for (const s of m.lines.values()) for (const st of Object.values(s.steps)) for (const id of st?.ids ?? []) ids.add(id);
  return ids;
}

/**
 * One batch per manifest at a time: two processes following the same lines could both start one.
 * The lock is a file beside the manifest holding the owner's pid, made with O_EXCL; a lock whose
 * process is gone (killed, even by SIGKILL) is taken over. Returns the release.
 */
export function lockManifest(file: string): (() => void) | { heldBy: number } {
  const lock = `${file}.lock`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lock, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => fs.rmSync(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const pid = Number(fs.readFileSync(lock, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return { heldBy: pid };
      // A lock left by a process that is gone.
      fs.rmSync(lock, { force: true });
    }
  }
  throw new Error(`could not lock ${file}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
