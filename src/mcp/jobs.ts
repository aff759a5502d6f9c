/**
 * The jobs `wait_for` and `download` take: an asset, an avatar look, a video generation or an
 * export, by id. The kind comes from the call, else from the jobs this session started, else from
 * this machine's history (`mediagen history`), else from the id's shape. Each kind is read the way
 * the CLI reads it (the features' watch kinds: state, description, the file a result saves as).
 */
import type { Engine } from "../engine/engine.js";
import type { JobKind } from "../cli/journal.js";
import type { WatchKind } from "../cli/watch.js";
import type { WaitJob } from "../cli/wait.js";
import type { ExportJob } from "../features/export/contract.js";
import { exportSchedule } from "../contract/poll.js";

export const KINDS: readonly JobKind[] = ["asset", "look", "generation", "export"];

export interface JobRef {
  kind: JobKind;
  id: string;
  /** A look is read through its avatar. */
  avatar_id?: string;
}

export class JobRefError extends Error {
  override readonly name = "JobRefError";
  constructor(
    message: string,
    readonly code: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** An id by its shape, for ids this session and the history do not know. */
export function kindByShape(id: string): JobKind | undefined {
  if (/^[0-9a-f]{24}$/i.test(id)) return "asset";
  if (/^run_/.test(id)) return "generation";
  if (/^exp_/.test(id)) return "export";
  if (/^lk_/.test(id)) return "look";
  return undefined;
}

/** Which job `args` names: its kind and, for a look, its avatar. */
export function jobRef(args: Record<string, unknown>, known: Partial<JobRef> | undefined): JobRef {
  const id = args.id;
  if (typeof id !== "string" || id.trim() === "") throw new JobRefError("id is required: the job's id (asset, look, generation or export)", "missing_field", "id");
  let kind = args.kind;
  if (kind !== undefined && !(typeof kind === "string" && (KINDS as readonly string[]).includes(kind))) {
    throw new JobRefError(`kind must be one of ${KINDS.join(", ")}`, "invalid_value", "kind");
  }
  const k = known;
  kind ??= k?.kind ?? kindByShape(id);
  if (kind === undefined) {
    throw new JobRefError(`the kind of ${id} is not known here; give kind (${KINDS.join(", ")})`, "missing_field", "kind");
  }
  const avatar = typeof args.avatar_id === "string" && args.avatar_id !== "" ? args.avatar_id : k?.avatar_id;
  if (kind === "look" && !avatar) throw new JobRefError(`look ${id}: give avatar_id (a look is read through its avatar)`, "missing_field", "avatar_id");
  return { kind: kind as JobKind, id, ...(kind === "look" ? { avatar_id: avatar! } : {}) };
}

export interface Watch {
  job: WaitJob<unknown>;
  kind: WatchKind<unknown>;
}

function exportWatch(engine: Engine, id: string): Watch {
  const kind: WatchKind<ExportJob> = {
    journal: "export",
    state: (x) => (x.status === "completed" ? "done" : x.status === "failed" ? "failed" : "pending"),
    describe: (x) => (x.status === "processing" && typeof x.progress === "number" ? `processing ${x.progress}%` : x.status),
    failure: (x) => (x.error ? `${x.error.code}: ${x.error.message}` : "no reason given"),
    schedule: exportSchedule,
    unknown: (job) => ({ job_id: job.id, status: "unknown" }),
    human: (x) => [`${x.job_id}  ${x.status}`],
    file: (x) => (x.result?.video_url ? { url: x.result.video_url, name: `${x.job_id}.mp4` } : undefined),
    resumeArgs: (js) => ["export", "status", ...js.map((j) => j.id), "--watch"],
  };
  return {
    job: { id, label: `export ${id}`, poll: (signal) => engine.exportStatus({ job_id: id }, { signal }) },
    kind: kind as WatchKind<unknown>,
  };
}

/** How to poll the job and read what it answers. */
export async function watchOf(engine: Engine, ref: JobRef): Promise<Watch> {
  let w: { jobs: WaitJob<never>[]; kind: WatchKind<never> };
  switch (ref.kind) {
    case "asset":
      w = (await import("../features/asset/cli.js")).assetWatch(engine, [ref.id]) as never;
      break;
    case "look":
      w = (await import("../features/avatar/cli.js")).lookWatch(engine, { avatar_id: ref.avatar_id!, look_id: ref.id }) as never;
      break;
    case "generation":
      w = (await import("../features/generation/cli.js")).generationWatch(engine, ref.id) as never;
      break;
    case "export":
      return exportWatch(engine, ref.id);
  }
  return { job: w.jobs[0] as WaitJob<unknown>, kind: w.kind as WatchKind<unknown> };
}

/** The jobs a start's answer names, to remember their kind (and a look's avatar). */
export function jobsStarted(op: string, res: unknown): JobRef[] {
  const r = (res && typeof res === "object" ? res : {}) as Record<string, unknown>;
  switch (op) {
    case "assetStart":
      return Array.isArray(r.asset_ids) ? r.asset_ids.filter((x): x is string => typeof x === "string").map((id) => ({ kind: "asset", id })) : [];
    case "avatarCreate":
    case "avatarEdit":
      return typeof r.look_id === "string" && typeof r.avatar_id === "string" ? [{ kind: "look", id: r.look_id, avatar_id: r.avatar_id }] : [];
    case "generationStart":
      return typeof r.job_id === "string" ? [{ kind: "generation", id: r.job_id }] : [];
    case "exportStart":
      return typeof r.job_id === "string" ? [{ kind: "export", id: r.job_id }] : [];
    default:
      return [];
  }
}
