/**
 * The fast entry of the real process for the root help and the version (bin/mediagen.js starts it
 * for `mediagen`, `--help`, `-h`, `--version`, `-V`): bundled alone as dist/bundle/root-help.cjs,
 * without the CLI's common chunk, so these words load one file (commander, the program's options,
 * the registry's table) instead of the frame. It prints what the full CLI prints (src/cli/root-help.ts
 * runs for both). Any other argv goes to the full CLI (src/cli/main.ts), so a wider check in
 * bin/mediagen.js only costs time, never changes what is printed.
 */
import { guardOutputStreams } from "./process-signals.js";
import { readVersion, rootRequest, runRoot } from "./root-help.js";

const request = rootRequest(process.argv.slice(2));
if (request === undefined) {
  // The bundle maps this to its full CLI entry (dist/bundle/mediagen.js; scripts/bundle.mjs).
  void import("./main.js");
} else {
  guardOutputStreams();
  void runRoot(request, { stdout: process.stdout, stderr: process.stderr }, process.env, readVersion()).then((code) => {
    process.exitCode = code;
  });
}
