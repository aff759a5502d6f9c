/**
 * The script a detached worker process runs. A build has it beside this module
 * (dist/features/worker-main.js). A host that loads these modules from elsewhere (a bundle, or the
 * TypeScript sources as the test set-up does) names a runnable copy before it opens the local target.
 */
import { fileURLToPath } from "node:url";

let entry = fileURLToPath(new URL("./worker-main.js", import.meta.url));

export function workerEntry(): string {
  return entry;
}

/** Takes effect for the local target composed after it (src/features/local.ts reads it once). */
export function setWorkerEntry(file: string): void {
  entry = file;
}
