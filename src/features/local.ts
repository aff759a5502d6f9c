/**
 * The local target composed: the local core (src/local/) with every feature's handlers, job kinds and
 * migrations. Callers open the instance through here; the core never imports a feature.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { core } from "../local/db/core-schema.js";
import { webhookKinds } from "../local/webhook-kind.js";
import { openLocalInstance as openCore, type LocalInstance, type OpenOptions } from "../local/instance.js";
import type { HandlerTable, JobKind, LocalParts } from "../local/types.js";
import { FEATURES } from "./index.js";
import type { LocalPart, Migration } from "./types.js";

export * from "../local/instance.js";

/** Joins the core's parts and the features'; migrations must number 2, 3, … without gaps or repeats. */
export function composeParts(parts: readonly LocalPart[], workerEntry: string): LocalParts {
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
  return { handlers, jobKinds, migrations: migrations.map((m) => m.sql), workerEntry };
}

/**
 * The detached worker's entry point. From dist it sits beside this module; when this module runs
 * from the TypeScript sources (tests), the built copy under dist/ is used.
 */
function workerEntry(): string {
  const beside = fileURLToPath(new URL("./worker-main.js", import.meta.url));
  if (fs.existsSync(beside)) return beside;
  const built = beside.replace(/([\\/])src([\\/]features[\\/]worker-main\.js)$/, "$1dist$2");
  return built !== beside && fs.existsSync(built) ? built : beside;
}

export const localParts: LocalParts = composeParts(
  (await Promise.all(FEATURES.map((f) => ("local" in f ? f.local() : undefined)))).filter((p): p is LocalPart => p !== undefined),
  workerEntry(),
);

/** Opens the local instance under `opts.home` with every feature. */
export function openLocalInstance(opts: Omit<OpenOptions, "parts"> & { parts?: LocalParts }): LocalInstance {
  return openCore({ ...opts, parts: opts.parts ?? localParts });
}
