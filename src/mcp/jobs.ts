/**
 * The jobs `wait_for` and `download` take, by id. The kind comes from the call, else from the jobs
 * this session started, else from this machine's history (`mediagen history`), else from the id's
 * shape as the job lives give it (src/features/lives.ts). Each kind is read the way its life says
 * (src/cli/life-watch.ts: status operation, schedule, terminal states, result file).
 */
import type { Engine } from "../engine/engine.js";
import type { JobKindName } from "../features/life.js";
import { isJobKind, jobKinds, jobLife, kindsByShape, startedBy } from "../features/lives.js";
import type { WatchKind } from "../cli/watch.js";
import type { WaitJob } from "../cli/wait.js";
import { lifeWatch } from "../cli/life-watch.js";

/** The kinds that can be waited on and downloaded: those with a status of their own. */
export const KINDS: readonly JobKindName[] = jobKinds().filter((k) => jobLife(k).status !== undefined);

export interface JobRef {
  kind: JobKindName;
  id: string;
  /** A look is read through its avatar. */
  avatar_id?: string;
  /** What the start cost, for the refund note of a failure. */
  cost?: number;
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

/** An id by its shape, for ids this session and the history do not know (the most specific shape). */
export function kindByShape(id: string): JobKindName | undefined {
  return kindsByShape(id).find((k) => jobLife(k).status !== undefined);
}

/** Which job `args` names: its kind and, for a look, its avatar. */
export function jobRef(args: Record<string, unknown>, known: Partial<JobRef> | undefined): JobRef {
  const id = args.id;
  if (typeof id !== "string" || id.trim() === "") throw new JobRefError(`id is required: the job's id (${KINDS.join(", ")})`, "missing_field", "id");
  let kind = args.kind;
  if (kind !== undefined && !(typeof kind === "string" && (KINDS as readonly string[]).includes(kind))) {
    throw new JobRefError(`kind must be one of ${KINDS.join(", ")}`, "invalid_value", "kind");
  }
  const k = known;
  kind ??= k?.kind ?? kindByShape(id);
  if (kind === undefined || !isJobKind(kind)) {
    throw new JobRefError(`the kind of ${id} is not known here; give kind (${KINDS.join(", ")})`, "missing_field", "kind");
  }
  const next = jobLife(kind).nextStep;
  if (!jobLife(kind).status) {
    throw new JobRefError(`${id} is a ${jobLife(kind).noun}: nothing to wait for or download${next ? `; ${next(id)} makes its file` : ""}`, "no_status", "id");
  }
  const avatar = typeof args.avatar_id === "string" && args.avatar_id !== "" ? args.avatar_id : k?.avatar_id;
  if (kind === "look" && !avatar) throw new JobRefError(`look ${id}: give avatar_id (a look is read through its avatar)`, "missing_field", "avatar_id");
  return { kind, id, ...(kind === "look" ? { avatar_id: avatar! } : {}), ...(k?.cost !== undefined ? { cost: k.cost } : {}) };
}

export interface Watch {
  job: WaitJob<unknown>;
  kind: WatchKind<unknown>;
}

/** How to poll the job and read what it answers. */
export async function watchOf(engine: Engine, ref: JobRef): Promise<Watch> {
  return lifeWatch(engine, jobLife(ref.kind), ref, ref.cost !== undefined ? { cost: ref.cost } : {});
}

/** The jobs a start's answer names, to remember their kind (and a look's avatar). */
export function jobsStarted(op: string, args: Record<string, unknown>, res: unknown): JobRef[] {
  return startedBy(op, args, res).map((j) => ({
    kind: j.kind,
    id: j.id,
    ...(j.avatar_id ? { avatar_id: j.avatar_id } : {}),
    ...(j.cost !== null ? { cost: j.cost } : {}),
  }));
}
