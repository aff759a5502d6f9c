/**
 * What fault rules ask of the jobs a request queues (a stall before the job starts), carried from
 * the dispatch to `JobQueue.enqueue` through the request's async context: the job's row and its
 * stall are written in the same transaction, so no worker can take the job before it is marked.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface JobFaults {
  stallMs?: number;
}

const scope = new AsyncLocalStorage<JobFaults>();

export function withJobFaults<T>(faults: JobFaults, fn: () => T): T {
  return scope.run(faults, fn);
}

/** The job faults of the request being handled, if any. */
export function currentJobFaults(): JobFaults | undefined {
  return scope.getStore();
}
