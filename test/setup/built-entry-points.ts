/**
 * Tests import the TypeScript sources, but the scripts mediagen runs as child processes (the detached
 * worker, the WASM TTS child) must be JavaScript node can run. Beside the sources there is only
 * TypeScript, so every test file runs against the copies `npm test` builds into dist/ first.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setWorkerEntry } from "../../src/features/worker-entry.js";
import { setWasmChildPath } from "../../src/media/tts-child-path.js";

const dist = fileURLToPath(new URL("../../dist/", import.meta.url));

// The bundle's copies: what bin/mediagen.js runs, and quicker to load than dist/'s module tree.
setWorkerEntry(path.join(dist, "bundle", "worker-main.js"));
setWasmChildPath(path.join(dist, "bundle", "tts-wasm-child.js"));
