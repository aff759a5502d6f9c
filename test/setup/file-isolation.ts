/**
 * Test files share their worker process and its module cache (`isolate: false` in vitest.config.ts:
 * no new process and no re-import of the CLI per file). What one file changes in the process is
 * undone when it ends, so the next file starts as it would in a process of its own: the environment
 * (some files switch to the bundled tools with MEDIAGEN_MEDIA_FALLBACK, or set MEDIAGEN_HOME), the
 * working directory, the tools found on first use (cached per process), the keys registered for
 * redaction, the output colours a run in process set, the signal handlers left behind, and the local
 * instance's detached workers it started (test/helpers/leftover-workers.ts).
 */
import { afterAll } from "vitest";
import { resetStyles } from "../../src/cli/output.js";
import { forgetSecrets } from "../../src/engine/redact.js";
import { clearToolsCache } from "../../src/media/tools.js";
import { stopLeftoverWorkers } from "../helpers/leftover-workers.js";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const env = { ...process.env };
const cwd = process.cwd();
const listeners = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
clearToolsCache();

// Registered before the file's own hooks: with vitest's stacked hooks it runs after them.
afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
  clearToolsCache();
  // Keys registered for redaction, the output colours of the last run in process, and signal
  // handlers a command left behind, are this file's.
  forgetSecrets();
  resetStyles();
  for (const s of SIGNALS) for (const l of process.listeners(s)) if (!listeners.get(s)!.has(l)) process.off(s, l);
  // Renders nobody waits for any more (a test that checked a start's price or debit) stop here.
  stopLeftoverWorkers();
});
