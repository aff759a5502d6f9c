/**
 * The local target composed: the local core (src/local/) with every feature's handlers, job kinds and
 * migrations, and the route table. Callers open the instance through here; the core never imports a
 * feature.
 *
 * Loading is lazy (start-up time, bench/startup.mjs): this module holds the route table and the
 * migrations (SQL text), which is all that opening the instance needs. A feature's handlers (and what
 * they import: a catalog, say) are loaded when one of its operations is first dispatched; the job
 * kinds (which reach the media layer), with every handler, before a worker claims a job
 * (`LocalParts.load`).
 */
import { webhookKinds } from "../local/webhook-kind.js";
import { localDebug } from "../local/debug.js";
import { openLocalInstance as openCore, type LocalInstance, type OpenOptions } from "../local/instance.js";
import type { HandlerTable, JobKind, LocalParts } from "../local/types.js";
import { FEATURE_EMULATORS, type FeatureEmulator } from "./emulators.js";
import { MIGRATIONS } from "./migrations.js";
import type { OpName } from "./operations.js";
import { FEATURE_LIST, ROUTES, carriesInput, featureOf, type RouteTable } from "./routes.js";
import type { LocalPart, Migration } from "./emulators.js";
import { workerEntry } from "./worker-entry.js";
import { startsPart } from "./started-jobs.js";

export * from "../local/instance.js";
export { DEFAULT_RATE_LIMIT, rateLimitFromEnv, type RateLimitConfig } from "../local/rate-limit.js";
export { showLocalDebug } from "../local/debug.js";

/** Checks that migrations number 1, 2, … without gaps or repeats, and returns their SQL in order. */
function orderedMigrations(migrations: readonly Migration[]): string[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration versions must run 1..${sorted.length} without gaps; found ${m.version} at ${i + 1}`);
  });
  return sorted.map((m) => m.sql);
}

/** Adds one feature's part to the tables; two features may not claim the same operation or job kind. */
function mergePart(handlers: HandlerTable, jobKinds: Record<string, JobKind>, p: LocalPart): void {
  for (const op of Object.keys(p.handlers ?? {})) {
    if (op in handlers) throw new Error(`two features handle ${op}`);
  }
  for (const kind of Object.keys(p.jobKinds ?? {})) {
    if (kind in jobKinds) throw new Error(`two features define the job kind ${kind}`);
  }
  Object.assign(handlers, p.handlers ?? {});
  Object.assign(jobKinds, p.jobKinds ?? {});
}

/**
 * Joins the core's parts and already loaded feature parts (tests compose their own); migrations
 * default to src/features/migrations.ts and must number 1, 2, … without gaps or repeats.
 */
export function composeParts(parts: readonly LocalPart[], table: { operations: RouteTable; workerEntry: string; migrations?: readonly Migration[] }): LocalParts {
  const handlers: HandlerTable = {};
  const jobKinds: Record<string, JobKind> = { ...webhookKinds };
  for (const p of parts) mergePart(handlers, jobKinds, p);
  return {
    operations: table.operations,
    handlers,
    jobKinds,
    migrations: orderedMigrations(table.migrations ?? MIGRATIONS),
    workerEntry: table.workerEntry,
    // Every start the dispatch answers is kept (src/local/starts.ts): which operations start, by their lives.
    starts: startsPart,
    // The contract's rules, loaded with the first request that needs them.
    check: async (op, input) =>
      carriesInput(op, input)
        ? (await import("./request-check.js")).refuseRequest(op, input, (keys) =>
            localDebug(`${op}: ignored query parameter(s) ${keys.join(", ")} (not named by the spec)`),
          )
        : undefined,
  };
}

/**
 * Every feature's part, each loaded once, on demand, into the shared tables of `localParts`: a
 * feature's handlers when one of its operations is dispatched, and every feature's handlers and job
 * kinds before a worker claims a job.
 */
function lazyParts(): LocalParts {
  const parts = composeParts([], { operations: ROUTES, workerEntry: workerEntry() });
  const loading = new Map<string, Promise<void>>();
  const once = (key: string, load: () => Promise<LocalPart>): Promise<void> => {
    let p = loading.get(key);
    if (!p) {
      p = load().then((part) => mergePart(parts.handlers, parts.jobKinds, part));
      // A failed load is tried again by the next request rather than remembered.
      p.catch(() => loading.delete(key));
      loading.set(key, p);
    }
    return p;
  };
  const emulator = (name: string): FeatureEmulator => FEATURE_EMULATORS[name as keyof typeof FEATURE_EMULATORS];
  const handlersOf = (name: string) => once(`${name}:handlers`, async () => (await emulator(name).local?.()) ?? {});
  const jobsOf = (name: string) => once(`${name}:jobs`, async () => ({ jobKinds: (await emulator(name).jobs?.()) ?? {} }));
  // One import at a time: concurrent import() of modules that share dependencies can fail in Node 20's
  // loader ("request for 'node:fs' is not in cache"), and a module that failed to link stays failed
  // for the life of the process. Seen in a detached worker that then never ran a job.
  const loadAll = async (): Promise<void> => {
    for (const { name } of FEATURE_LIST) {
      await handlersOf(name);
      await jobsOf(name);
    }
  };
  parts.load = async (op?: OpName): Promise<void> => {
    if (op === undefined) return loadAll();
    // The feature that declares the operation; one no feature declares (or not found there) loads every feature.
    const owner = featureOf(op);
    if (owner) await handlersOf(owner.name);
    if (!(op in parts.handlers)) for (const { name } of FEATURE_LIST) await handlersOf(name);
  };
  return parts;
}

/**
 * The parts every instance opened here shares. `handlers` and `jobKinds` fill as features load
 * (`loadLocalParts()` loads them all); tests may replace entries once loaded.
 */
export const localParts: LocalParts = lazyParts();

/** `localParts` with every feature loaded (what a test that inspects or replaces entries needs). */
export async function loadLocalParts(): Promise<LocalParts> {
  await localParts.load?.();
  return localParts;
}

/** Opens the local instance under `opts.home` with every feature. */
export function openLocalInstance(opts: Omit<OpenOptions, "parts"> & { parts?: LocalParts }): LocalInstance {
  return openCore({ ...opts, parts: opts.parts ?? localParts });
}

/** `mediagen batch`: whether a start announced before a crash landed (see started-jobs.ts). */
export { findStartedJob, type StartedQuery, type StartedJob } from "./started-jobs.js";

/** `mediagen plan preview`: a plan rendered here, whatever the target, free (generation/preview.ts). */
export async function previewPlan(
  instance: LocalInstance,
  input: import("./generation/preview-types.js").PreviewInput,
): Promise<import("./generation/preview-types.js").PreviewResult> {
  const { previewPlan: run } = await import("./generation/emulator/preview.js");
  return run(instance, input);
}
