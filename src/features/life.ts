/**
 * What an operation's life is, described once per feature (`src/features/<resource>/life.ts`) and
 * read by every surface: the cost guard (`--dry-run`, `--max-credits`, the confirmation), waits,
 * `history`, `download`, completion, batch and the MCP tools. An operation says its effect (a read,
 * a paid start, a free start), the job its answer names, its price before sending and what the
 * history records; a job kind says how its id looks, how it is polled (the spec's schedule), which
 * states end it, and what its result is (the URL field, the file type, a name a person would choose).
 *
 * Light on purpose (no zod, no contract module): commands that read it keep starting fast
 * (test/cli/startup-modules.test.ts). The table is gathered from the feature list in
 * `src/features/lives.ts`.
 */
import type { PollSchedule } from "../contract/poll.js";

export type Effect = "read" | "paid start" | "free start";

/** The kinds of job the history knows: one per thing a start makes. */
export type JobKindName = "asset" | "look" | "generation" | "export" | "video" | "script";

/** A start's price before it is sent. */
export interface Price {
  /** Credits the start would debit; null when it cannot be known before it starts. */
  credits: number | null;
  /** True when the target computes exactly this figure. */
  exact: boolean;
  /** How the figure was reached (or why there is none). */
  basis: string;
}

/** What a price rule may ask: the target, and the service's free dry-run pricing of assets. */
export interface PriceTools {
  target: "local" | "hosted";
  assetPricing(body: Record<string, unknown>): Promise<{ total_cost: number; generation_count?: number | null; model?: string | null }>;
  /** The format of a video this machine made (from the history), when it is known. */
  videoFormat?(videoId: string): VideoFormatRecord | undefined;
}

/** A video's own format, as its generation asked for it. */
export interface VideoFormatRecord {
  format: string;
  width?: number;
  height?: number;
}

/** One job a start's answer names. */
export interface StartedJob {
  kind: JobKindName;
  id: string;
  /** A look is read through its avatar. */
  avatar_id?: string;
  /** A job that is a video (a duplicate) or that makes one. */
  video_id?: string;
}

/** What the history keeps of a start (the CLI adds target, base URL, profile and time). */
export interface StartRecord extends StartedJob {
  model: string | null;
  cost: number | null;
  status: string;
  prompt?: string;
  /** A result the start's answer carries itself (a script's text), saved as a file at once. */
  text?: string;
  /** The video a duplicate copies (its format is the copy's). */
  source_video_id?: string;
  /** The format of the video a generation makes (an export without `format` uses it). */
  video_format?: VideoFormatRecord;
}

export type Body = Record<string, unknown>;

export interface OperationLife {
  effect: Effect;
  /** Who a person reads when the start was made: "2 generations of vidA-3", "an export of 65f…". */
  what?(input: Body): string;
  /** A start's price before sending (a read costs nothing and has none). */
  price?(input: Body, tools: PriceTools): Price | Promise<Price>;
  /** What the start's answer says it debited (the service's own figure). */
  debited?(res: Body): number | undefined;
  /** The jobs a start's answer names, with what the history records of each. */
  started?(input: Body, res: Body): StartRecord[];
  /** Where a person sees whether a start whose answer was lost happened. */
  check?(input: Body): string | undefined;
  /** The job kind whose status this read returns (a status operation). */
  statusOf?: JobKindName;
  /** The job kind a start's answer names (what `started` records): how `mediagen batch` follows it. */
  makes?: JobKindName;
  /**
   * The kind of \`mediagen batch\` line that makes this start (its command's name), and, where lines of
   * that kind make more than one start, which lines make this one.
   */
  batch?: { kind: string; when?(body: Body): boolean };
}

/** A job's state as the waits see it. */
export type LifeState = "done" | "failed" | "pending";

export interface ResultFile {
  url: string;
  /** The extension, without the dot (png, mp4, jpg, txt). */
  ext: string;
  /** What the file is, for people: "image", "video", "thumbnail". */
  type: string;
  /** Added to the default name `<id>` when the file is not the job's product itself (`-thumbnail`). */
  suffix?: string;
}

export interface JobLife {
  kind: JobKindName;
  /** How people call it: "asset", "look", "video generation", "export", "video", "script". */
  noun: string;
  /** The id's shape, when it has one of its own (an asset's and a video's 24 hex look alike). */
  idShape?: RegExp;
  /** The status operation and the spec's poll schedule; absent when the job has no status of its own. */
  status?: {
    /** The status operation's name. */
    op: string;
    request(ref: StartedJob): Body;
    schedule: PollSchedule;
    /** The field of the answer that names the job (`job_id`, `asset_id`, `look_id`). */
    idField: string;
  };
  /** The status values that end it (read from the `status` field of its status answer). */
  terminal?: { done: readonly string[]; failed: readonly string[] };
  /** The file a completed job saves as, and what the history keeps of its last status. */
  result?(status: Body): ResultFile | undefined;
  /** What the history keeps of a status answer (default: its `status`). */
  history?(status: Body): { status?: string; video_id?: string };
  /** Whether a failed job's credits come back: on every target (the spec says so for assets), or on the local instance for sure. */
  refund?: "always" | "local";
  /** A job with no file of its own: what to run to get one (a video is exported). */
  nextStep?(id: string): string;
  /**
   * A job whose product is the video it makes (named by `history`'s `video_id`): done means that
   * video is named; its result file (a thumbnail) is a by-product, saved when there is one.
   */
  makesVideo?: boolean;
  /** The service names no id for it (the history makes one up in `started`; a batch names it by its line or its start). */
  idMadeUp?: boolean;
  /** Its result is the text the start's answer carries (`StartRecord.text`): nothing to poll, nothing to fetch. */
  answerText?: boolean;
}

/** The terminal states the spec gives assets, generation jobs and export jobs alike. */
export const COMPLETED_OR_FAILED = { done: ["completed"], failed: ["failed"] } as const;

/** A status read addressed by the job's `job_id` (generation and export jobs). */
export function statusByJobId(op: string, schedule: PollSchedule): NonNullable<JobLife["status"]> {
  return { op, request: (ref) => ({ job_id: ref.id }), schedule, idField: "job_id" };
}

/** The state of a job's status answer, by its life's terminal states. */
export function lifeState(job: JobLife, status: Body): LifeState {
  const s = typeof status.status === "string" ? status.status : "";
  if (job.terminal?.done.includes(s)) return "done";
  if (job.terminal?.failed.includes(s)) return "failed";
  return "pending";
}

/** What the history keeps of a status answer. */
export function historyFields(job: JobLife, status: Body): { status?: string; video_id?: string } {
  if (job.history) return job.history(status);
  return typeof status.status === "string" ? { status: status.status } : {};
}

/** The extension of a URL's path, or `fallback`. */
export function extOf(url: string, fallback: string): string {
  try {
    const m = /\.([a-z0-9]{1,5})$/i.exec(new URL(url, "file:///").pathname);
    if (m) return m[1]!.toLowerCase();
  } catch {
    // not a URL: the fallback
  }
  return fallback;
}

/** "CODE: message" of a job's `error`, either part possibly absent or null in the answer. */
export function jobErrorText(e: { code?: unknown; message?: unknown } | null | undefined): string {
  if (!e) return "no reason given";
  const code = typeof e.code === "string" && e.code ? e.code : "failed";
  return typeof e.message === "string" && e.message ? `${code}: ${e.message}` : code;
}

/** The `result` object of a status answer (generation and export jobs), or an empty one. */
export const resultOf = (s: Body): Body => (s.result && typeof s.result === "object" ? (s.result as Body) : {});

export const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** A feature's slice of the table. */
export interface FeatureLife {
  /** Each operation of the feature by name (test/unit/lives.test.ts: exactly the route table's). */
  operations: Readonly<Record<string, OperationLife>>;
  jobs?: Partial<Record<JobKindName, JobLife>>;
}
