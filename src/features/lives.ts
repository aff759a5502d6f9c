/**
 * The one table of operation lives (src/features/life.ts): what each operation is and how each job
 * kind lives. Every surface asks here (the cost guard, waits, history, download, completion, batch,
 * MCP) instead of switching on operation names or id prefixes.
 *
 * The lives come from the feature list (src/features/routes.ts), which names each feature's
 * `life.ts`; test/unit/lives.test.ts keeps them and the route table the same.
 */
import type { FeatureLife, JobKindName, JobLife, OperationLife, StartRecord } from "./life.js";
import { FEATURE_LIST, type OpName } from "./routes.js";

/** One life per feature, by the feature's name, in the feature list's order. */
export const FEATURE_LIVES: Readonly<Record<string, FeatureLife>> = Object.fromEntries(FEATURE_LIST.map((f) => [f.name, f.life]));

const OPS = new Map<string, OperationLife>();
const JOBS = new Map<JobKindName, JobLife>();
for (const f of Object.values(FEATURE_LIVES)) {
  for (const [op, life] of Object.entries(f.operations)) if (life) OPS.set(op, life);
  for (const [kind, life] of Object.entries(f.jobs ?? {})) if (life) JOBS.set(kind as JobKindName, life);
}

/** The life of an operation (every operation of the table has one: test/unit/lives.test.ts). */
export function lifeOf(op: OpName | string): OperationLife {
  const life = OPS.get(op);
  if (!life) throw new Error(`no life is described for the operation ${op}`);
  return life;
}

export function hasLife(op: string): boolean {
  return OPS.has(op);
}

/** Every operation with a life, in the feature list's order. */
export function lifeOps(): string[] {
  return [...OPS.keys()];
}

/** A read changes nothing: never priced, never recorded, nothing to check after it fails. */
export function isRead(op: OpName | string): boolean {
  return lifeOf(op).effect === "read";
}

export function isPaid(op: OpName | string): boolean {
  return lifeOf(op).effect === "paid start";
}

/** The job kinds the history knows, in the feature list's order. */
export function jobKinds(): JobKindName[] {
  return [...JOBS.keys()];
}

export function jobLife(kind: JobKindName | string): JobLife {
  const life = JOBS.get(kind as JobKindName);
  if (!life) throw new Error(`no life is described for the job kind ${kind}`);
  return life;
}

export function isJobKind(kind: unknown): kind is JobKindName {
  return typeof kind === "string" && JOBS.has(kind as JobKindName);
}

/** The kinds an id may be by its shape alone, most specific first (a prefix before 24 hex). */
export function kindsByShape(id: string): JobKindName[] {
  return [...JOBS.values()]
    .filter((j) => j.idShape?.test(id))
    .sort((a, b) => Number(/^\^\[/.test(a.idShape!.source)) - Number(/^\^\[/.test(b.idShape!.source)))
    .map((j) => j.kind);
}

/** The jobs a start's answer names, with what the history records of each. */
export function startedBy(op: OpName | string, input: Record<string, unknown>, res: unknown): StartRecord[] {
  const life = OPS.get(op);
  if (!life?.started || !res || typeof res !== "object") return [];
  return life.started(input ?? {}, res as Record<string, unknown>);
}
