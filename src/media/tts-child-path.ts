/**
 * Where the WASM TTS child script is: beside this module in a build (dist/media/tts-wasm-child.js).
 * A host that loads the media layer from elsewhere (a bundle, or the TypeScript sources as the test
 * set-up does, whose sibling is a .ts file node cannot run) names a runnable copy.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

let childPath = fileURLToPath(new URL("./tts-wasm-child.js", import.meta.url));

/** The `file://` URL of the espeak-ng WASM module, handed to the child (never imported here). */
export function espeakModuleUrl(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return pathToFileURL(require.resolve("espeak-ng")).href;
  } catch {
    return undefined;
  }
}

/** The child script, or undefined when it is not there (the WASM fallback is then unavailable). */
export function wasmChildPath(): string | undefined {
  return fs.existsSync(childPath) ? childPath : undefined;
}

/** Runs the TTS child from `file` from now on (tools detected before keep theirs: see clearToolsCache). */
export function setWasmChildPath(file: string): void {
  childPath = file;
}
