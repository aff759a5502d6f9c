/**
 * A wait on any job, read from its life (src/features/life.ts): the status operation, the spec's
 * poll schedule, the terminal states, the result file and what the history keeps. `download` and the
 * MCP tools (`wait_for`, `download`) follow every kind of job through it, with no switch on kinds.
 */
import type { Engine, OpName, Target } from "../engine/engine.js";
import { refundNote } from "./credits-note.js";
import { historyFields, lifeState, type Body, type JobLife, type StartedJob } from "../features/life.js";
import type { WaitJob } from "./wait.js";
import type { WatchKind } from "./watch.js";

const bodyOf = (v: unknown): Body => (v && typeof v === "object" ? (v as Body) : {});

/** "processing 40%", "generating", "completed". */
function describe(v: unknown): string {
  const s = bodyOf(v);
  const status = typeof s.status === "string" ? s.status : "unknown";
  const pct = typeof s.progress === "number" ? s.progress : typeof s.progress_step === "number" ? s.progress_step : undefined;
  const step = typeof s.current_step === "string" ? s.current_step : undefined;
  if (status === "processing" && (pct !== undefined || step)) return `${status}${step ? ` ${step}` : ""}${pct !== undefined ? ` ${pct}%` : ""}`;
  return status;
}

function failure(life: JobLife, cost: number | undefined) {
  return (v: unknown, target: Target): string => {
    const e = bodyOf(bodyOf(v).error);
    const why = typeof e.code === "string" ? `${e.code}: ${typeof e.message === "string" ? e.message : "no message"}` : "no reason given";
    return `${why}; ${refundNote(cost, life.refund === "always" || (life.refund === "local" && target === "local"))}`;
  };
}

/** Builds a file name for a completed job's result; default `<id>.<ext>`. */
export type ResultNamer = (job: StartedJob, ext: string) => string | undefined;

export function lifeWatch(
  engine: Engine,
  life: JobLife,
  ref: StartedJob,
  opts: { namer?: ResultNamer; cost?: number } = {},
): { job: WaitJob<unknown>; kind: WatchKind<unknown> } {
  const status = life.status;
  if (!status) throw new Error(`a ${life.noun} has no status to wait on`);
  const label = `${life.noun} ${ref.id}`;
  const job: WaitJob<unknown> = { id: ref.id, label, poll: (signal) => engine.call(status.op as OpName, status.request(ref) as never, { signal }) };
  const kind: WatchKind<unknown> = {
    journal: life.kind,
    state: (v) => lifeState(life, bodyOf(v)),
    describe,
    failure: failure(life, opts.cost),
    schedule: status.schedule,
    unknown: (j) => ({ [status.idField]: j.id, status: "unknown" }),
    human: (v) => [`${ref.id}  ${describe(v)}`],
    file: (v) => {
      const r = life.result?.(bodyOf(v));
      return r ? { url: r.url, name: opts.namer?.(ref, r.ext) ?? `${ref.id}${r.suffix ?? ""}.${r.ext}` } : undefined;
    },
    journalFields: (v) => historyFields(life, bodyOf(v)),
    resumeArgs: (js) => ["download", ...js.map((j) => j.id), "--watch"],
  };
  return { job, kind };
}
