/**
 * The wizard's draft: its work in progress, kept beside the plan it will save (`plan.json` →
 * `plan.json.draft`) after every answer that changes the plan, so a Ctrl-C, a closed terminal or a
 * crash loses at most the answer being typed. Written atomically (temp file + rename), like the plan.
 * The next `plan new`/`plan edit` with the same output offers to resume it; saving the plan or
 * choosing to discard removes it.
 */
import fs from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "./plan-io.js";

/** What a draft holds: the wizard's state as it was, plus where and when. */
export interface Draft<S> {
  mediagen_plan_draft: 1;
  /** The plan file the wizard was going to save. */
  output: string;
  saved_at: string;
  state: S;
}

/** Where the draft of the plan `output` lives. */
export function draftPath(output: string): string {
  return `${path.resolve(output)}.draft`;
}

export function writeDraft<S>(output: string, state: S, now = new Date()): void {
  const d: Draft<S> = { mediagen_plan_draft: 1, output: path.resolve(output), saved_at: now.toISOString(), state };
  writeFileAtomic(draftPath(output), JSON.stringify(d, null, 2) + "\n");
}

/** The draft kept for `output`, when there is one that reads back (a broken one is ignored, and left alone). */
export function readDraft<S>(output: string, isState: (s: unknown) => s is S): Draft<S> | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(draftPath(output), "utf8"));
  } catch {
    return undefined;
  }
  const d = raw as Partial<Draft<unknown>> | null;
  if (d?.mediagen_plan_draft !== 1 || typeof d.saved_at !== "string" || !isState(d.state)) return undefined;
  return d as Draft<S>;
}

export function removeDraft(output: string): void {
  fs.rmSync(draftPath(output), { force: true });
}
