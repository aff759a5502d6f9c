/**
 * What a start made, read through its operation's life (./life.ts): the ids of the jobs its answer
 * names (`started`), what it debited (`debited`, else the sum of the jobs' own costs), the look's
 * avatar, the video a job is, and a text the answer carries. One reading for both sides of
 * `mediagen batch`: the runner reads a start's answer with it, and the local instance a start it
 * kept in its starts table (./started-jobs.ts), so a start sent and a start adopted look alike.
 */
import { fromMilli, toMilli } from "../contract/credits.js";
import { jobLife, lifeOf } from "./lives.js";

export interface StartFacts {
  /** The ids of the jobs the start made, in the answer's order. */
  ids: string[];
  /** Credits debited, as the answer says (null: it does not say). */
  cost: number | null;
  /** A look's own id and its avatar (a look is read through its avatar). */
  look_id?: string;
  avatar_id?: string;
  /** The video the job is (a duplicate's copy), when the job is one. */
  video_id?: string;
  /** The text the answer carries (a script). */
  script?: string;
}

/**
 * The facts of one start's answer. `madeUpId(kind)` names a job the service names no id for (its job
 * life's `idMadeUp`): the history's made-up id would differ at each reading.
 */
export function startFacts(op: string, input: Record<string, unknown>, answer: unknown, madeUpId: (kind: string) => string): StartFacts {
  const life = lifeOf(op);
  const res = answer && typeof answer === "object" ? (answer as Record<string, unknown>) : {};
  const records = life.started?.(input, res) ?? [];
  const ids = records.map((r) => (jobLife(r.kind).idMadeUp ? madeUpId(r.kind) : r.id));
  const own = records.every((r) => typeof r.cost === "number") && records.length ? fromMilli(records.reduce((n, r) => n + toMilli(r.cost ?? 0), 0)) : null;
  const facts: StartFacts = { ids, cost: life.debited?.(res) ?? own };
  const first = records[0];
  if (first?.avatar_id) Object.assign(facts, { look_id: first.id, avatar_id: first.avatar_id });
  // A job that is a video names itself as the video (an export names the video it exports: not it).
  if (first?.video_id !== undefined && first.video_id === first.id) facts.video_id = first.video_id;
  const text = records.find((r) => r.text !== undefined)?.text;
  if (text !== undefined) facts.script = text;
  return facts;
}
