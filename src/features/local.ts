/**
 * The local target composed: the local core (src/local/) with every feature's handlers, job kinds and
 * migrations, and the operation table. Callers open the instance through here; the core never
 * imports a feature.
 */
import { core } from "../local/db/core-schema.js";
import { webhookKinds } from "../local/webhook-kind.js";
import { openLocalInstance as openCore, type LocalInstance, type OpenOptions } from "../local/instance.js";
import type { HandlerTable, JobKind, LocalParts } from "../local/types.js";
import { FEATURES } from "./index.js";
import { operations, type Operations } from "./operations.js";
import type { LocalPart, Migration } from "./types.js";
import { workerEntry } from "./worker-entry.js";

export * from "../local/instance.js";
export { DEFAULT_RATE_LIMIT, rateLimitFromEnv, type RateLimitConfig } from "../local/rate-limit.js";

/** Joins the core's parts and the features'; migrations must number 2, 3, … without gaps or repeats. */
export function composeParts(parts: readonly LocalPart[], table: { operations: Operations; workerEntry: string }): LocalParts {
  const handlers: HandlerTable = {};
  const jobKinds: Record<string, JobKind> = { ...webhookKinds };
  const migrations: Migration[] = [{ version: 1, sql: core }];
  for (const p of parts) {
    for (const [op, h] of Object.entries(p.handlers ?? {})) {
      if (op in handlers) throw new Error(`two features handle ${op}`);
      (handlers as Record<string, unknown>)[op] = h;
    }
    for (const [kind, k] of Object.entries(p.jobKinds ?? {})) {
      if (kind in jobKinds) throw new Error(`two features define the job kind ${kind}`);
      jobKinds[kind] = k;
    }
    migrations.push(...(p.migrations ?? []));
  }
  migrations.sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration versions must run 1..${migrations.length} without gaps; found ${m.version} at ${i + 1}`);
  });
  return { operations: table.operations, handlers, jobKinds, migrations: migrations.map((m) => m.sql), workerEntry: table.workerEntry };
}

export const localParts: LocalParts = composeParts(
  (await Promise.all(FEATURES.map((f) => ("local" in f ? f.local() : undefined)))).filter((p): p is LocalPart => p !== undefined),
  { operations, workerEntry: workerEntry() },
);

/** Opens the local instance under `opts.home` with every feature. */
export function openLocalInstance(opts: Omit<OpenOptions, "parts"> & { parts?: LocalParts }): LocalInstance {
  return openCore({ ...opts, parts: opts.parts ?? localParts });
}

/** `mediagen batch`: whether a start announced before a crash landed (see started-jobs.ts). */
export { findStartedJob, type StartedQuery, type StartedJob } from "./started-jobs.js";
