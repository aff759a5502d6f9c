/**
 * The fast entry of the real process for the root help and the version (bin/mediagen.js starts it
 * for `mediagen`, `--help`, `-h`, `--version`, `-V`): bundled alone as dist/bundle/root-help-body.cjs
 * (run by dist/bundle/root-help.cjs; scripts/bundle.mjs), without the CLI's common chunk, so these words load one file (commander, the program's options,
 * the registry's table) instead of the frame. It prints what the full CLI prints (src/cli/root-help.ts
 * runs for both).
 */
import { guardOutputStreams } from "./process-signals.js";
import { readVersion, rootRequest, runRoot } from "./root-help.js";
import { EXIT } from "./types.js";

const request = rootRequest(process.argv.slice(2));
/**
 * Another argv: the full CLI runs instead, started by whoever loaded this (dist/bundle/root-help.cjs,
 * which imports dist/bundle/mediagen.js; scripts/bundle.mjs), so a wider check in bin/mediagen.js
 * only costs time. (The bundle runs this module compiled from a code cache, where import() is not
 * available.)
 */
export const fullCli = request === undefined;
if (request !== undefined) {
  guardOutputStreams();
  runRoot(request, { stdout: process.stdout, stderr: process.stderr }, process.env, readVersion()).then(
    (code) => {
      process.exitCode = code;
    },
    // Not expected (commander prints the help and nothing else), but never a stack trace.
    (err: unknown) => {
      process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = EXIT.error;
    },
  );
}
