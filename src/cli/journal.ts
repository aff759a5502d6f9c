/**
 * The journal: what this machine started, on either target, like a shell's history (the service
 * has no list endpoint for jobs). One JSON line per event in `$MEDIAGEN_HOME/history.jsonl`:
 *
 *   {"v":1,"event":"start","at":"…","kind":"asset","id":"65f…","target":"local",…}
 *   {"v":1,"event":"update","at":"…","kind":"asset","id":"65f…","target":"local","status":"completed","saved":"/…/65f….png"}
 *
 * Appends only: each event is one `write()` on a file opened with O_APPEND, which the kernel places
 * at the end as a whole, so CLIs running at once never interleave or lose each other's lines. A line
 * that does not parse (a crash mid-write) is skipped when reading. The history is the fold of the
 * events per job: the start's fields, then each update's over them.
 */
import fs from "node:fs";
import path from "node:path";
import type { Target } from "../engine/engine.js";
import { redact } from "../engine/redact.js";
import { jobKinds } from "../features/lives.js";
import type { JobKindName, VideoFormatRecord } from "../features/life.js";

/** The kinds of job the history knows: those the operation lives name (src/features/lives.ts). */
export const JOB_KINDS: readonly JobKindName[] = jobKinds();
export type JobKind = JobKindName;

/** What a start records (the command knows it when the service accepts the job). */
export interface JobStart {
  kind: JobKind;
  id: string;
  target: Target;
  /** The hosted base URL (null on the local target). */
  base_url: string | null;
  profile: string;
  model: string | null;
  /** Credits debited (or estimated) at the start; null when unknown. */
  cost: number | null;
  /** The service's status when started (`generating`, `pending`…). */
  status: string;
  /** A look's avatar (a look is read through its avatar). */
  avatar_id?: string;
  prompt?: string;
  /** The video a duplicate is, or an export is made from. */
  video_id?: string;
  /** A result saved when the job started (a script's text). */
  saved?: string;
  /** The format of the video a generation makes. */
  video_format?: VideoFormatRecord;
  /** The video a duplicate copies. */
  source_video_id?: string;
}

/** What later commands learn about a job: its status, where its result was saved, what it made. */
export interface JobUpdate {
  kind: JobKind;
  id: string;
  target: Target;
  status?: string;
  saved?: string;
  /** A generation's video. */
  video_id?: string;
}

/** One job of the history: the start's fields with the latest of each update's. */
export interface HistoryEntry extends Omit<JobStart, "saved"> {
  started_at: string;
  updated_at: string;
  saved: string | null;
  video_id?: string;
}

export const historyFile = (home: string) => path.join(home, "history.jsonl");

/**
 * Saves a result a start's answer carries itself (a script's text) beside the history, so the row
 * has its file at once and `download <id>` can copy it; returns the path. Written to a temporary
 * file then renamed, so a reader never sees half of it.
 */
export function saveStartText(home: string, id: string, text: string): string {
  const dir = path.join(home, "results");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${id.replace(/[^A-Za-z0-9_-]/g, "_")}.txt`);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return file;
}

/** Keeps a line well under a page, so it is written by one write() whatever happens. */
const MAX_PROMPT = 200;

function line(event: "start" | "update", at: string, data: object): Buffer {
  return Buffer.from(JSON.stringify({ v: 1, event, at, ...data }) + "\n", "utf8");
}

/** Appends one event with one write() to the file opened O_APPEND; creates the home if needed. */
function append(home: string, buf: Buffer): void {
  fs.mkdirSync(home, { recursive: true });
  const fd = fs.openSync(historyFile(home), fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o600);
  try {
    const n = fs.writeSync(fd, buf, 0, buf.length);
    if (n !== buf.length) throw new Error(`short write to ${historyFile(home)} (${n} of ${buf.length} bytes)`);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A prompt is what a person typed, and a person pastes keys into prompts: the history keeps it
 * redacted (src/engine/redact.ts), as stderr shows it.
 */
export function recordStart(home: string, jobs: readonly JobStart[], now = new Date()): void {
  for (const j of jobs) {
    const clean = j.prompt !== undefined ? redact(j.prompt) : undefined;
    const prompt = clean !== undefined && clean.length > MAX_PROMPT ? `${clean.slice(0, MAX_PROMPT - 1)}…` : clean;
    append(home, line("start", now.toISOString(), { ...j, ...(prompt !== undefined ? { prompt } : {}) }));
  }
}

export function recordUpdate(home: string, updates: readonly JobUpdate[], now = new Date()): void {
  for (const u of updates) append(home, line("update", now.toISOString(), u));
}

const keyOf = (e: { kind: string; id: string; target: string }) => `${e.target}\u0000${e.kind}\u0000${e.id}`;

/** Every job of the journal, most recently started first. A missing file is an empty history. */
export function readHistory(home: string): HistoryEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(historyFile(home), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  const jobs = new Map<string, HistoryEntry>();
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    let ev: Record<string, unknown>;
    try {
      ev = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      continue; // a line cut by a crash: the others still count
    }
    if (!ev || typeof ev !== "object" || typeof ev.id !== "string" || typeof ev.kind !== "string" || typeof ev.target !== "string") continue;
    const at = typeof ev.at === "string" ? ev.at : "";
    const key = keyOf(ev as { kind: string; id: string; target: string });
    if (ev.event === "start") {
      const { v: _v, event: _e, at: _a, ...fields } = ev;
      const prev = jobs.get(key);
      jobs.delete(key); // a job started again (a retried id) counts from its latest start
      const start = fields as unknown as JobStart;
      jobs.set(key, { ...start, started_at: at, updated_at: at, saved: start.saved ?? prev?.saved ?? null });
    } else if (ev.event === "update") {
      const job = jobs.get(key);
      if (!job) continue; // not started from this machine
      if (typeof ev.status === "string") job.status = ev.status;
      if (typeof ev.saved === "string") job.saved = ev.saved;
      if (typeof ev.video_id === "string") job.video_id = ev.video_id;
      job.updated_at = at;
    }
  }
  return [...jobs.values()].reverse();
}

/** The latest job with this id (any kind), or undefined. */
export function findJob(home: string, id: string, target?: Target): HistoryEntry | undefined {
  return readHistory(home).find((j) => j.id === id && (target === undefined || j.target === target));
}

/** The format of a video this machine's history made (its generation's request), through the copies made of it. */
export function videoFormatOf(home: string, videoId: string, target?: Target): VideoFormatRecord | undefined {
  const rows = readHistory(home).filter((j) => target === undefined || j.target === target);
  let id: string | undefined = videoId;
  for (let hops = 0; id !== undefined && hops < 20; hops++) {
    const made = rows.find((j) => j.kind === "generation" && j.video_id === id && j.video_format);
    if (made) return made.video_format;
    id = rows.find((j) => j.kind === "video" && j.id === id)?.source_video_id;
  }
  return undefined;
}

/** The latest job that made or names this video (a generation's result, an export's source), or undefined. */
export function findVideo(home: string, videoId: string, target?: Target): HistoryEntry | undefined {
  return readHistory(home).find((j) => j.video_id === videoId && j.id !== videoId && (target === undefined || j.target === target));
}
