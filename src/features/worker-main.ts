/** Entry point of the detached worker process: the local core's worker over the composed instance. */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { log, runDetachedWorker } from "../local/worker-main.js";
import { openLocalInstance } from "./local.js";

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const home = process.argv[process.argv.indexOf("--home") + 1] ?? ".";
  process.on("uncaughtException", (e) => {
    log(home, `uncaught: ${e.stack ?? e.message}`);
    process.exit(1);
  });
  process.on("unhandledRejection", (e) => log(home, `unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
  runDetachedWorker(process.argv.slice(2), openLocalInstance).then(
    (code) => process.exit(code),
    (e: unknown) => {
      log(home, `failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      process.exit(1);
    },
  );
}
