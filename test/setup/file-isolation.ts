/**
 * Test files share their worker process and its module cache (`isolate: false` in vitest.config.ts:
 * no new process and no re-import of the CLI per file). What one file changes in the process is
 * undone when it ends, so the next file starts as it would in a process of its own: the environment
 * (some files switch to the bundled tools with MEDIAGEN_MEDIA_FALLBACK, or set MEDIAGEN_HOME), the
 * working directory, and the tools found on first use (cached per process).
 */
import { afterAll } from "vitest";
import { clearToolsCache } from "../../src/media/tools.js";

const env = { ...process.env };
const cwd = process.cwd();
clearToolsCache();

// Registered before the file's own hooks: with vitest's stacked hooks it runs after them.
afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
  clearToolsCache();
});
