/**
 * Where the WASM TTS child script is. Built installs run `dist/…/tts-wasm-child.js` beside this
 * module. When mediagen runs from its TypeScript sources (tests), the sibling is a `.ts` file node 20
 * cannot run, so the child alone (it imports only node built-ins) is transpiled with the dev
 * dependency `typescript` into a temp file keyed by its source hash: always current, never stale.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const CHILD = "tts-wasm-child";

/** The `file://` URL of the espeak-ng WASM module, handed to the child (never imported here). */
export function espeakModuleUrl(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return pathToFileURL(require.resolve("espeak-ng")).href;
  } catch {
    return undefined;
  }
}

export function wasmChildPath(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const sibling = path.join(here, `${CHILD}.js`);
  if (fs.existsSync(sibling)) return sibling;
  const tsSource = path.join(here, `${CHILD}.ts`);
  if (!fs.existsSync(tsSource)) return undefined;
  return transpiledChild(tsSource);
}

/**
 * A temp dir only this user can write, so nobody else can plant the script we are about to run.
 * Returns undefined when that cannot be guaranteed (then we transpile into a fresh private dir).
 */
function privateCacheDir(): string | undefined {
  if (typeof process.getuid !== "function") return undefined;
  const dir = path.join(os.tmpdir(), `mediagen-${process.getuid()}`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    if (st.isDirectory() && st.uid === process.getuid() && (st.mode & 0o077) === 0) return dir;
  } catch {
    // fall through
  }
  return undefined;
}

function transpiledChild(tsSource: string): string | undefined {
  const source = fs.readFileSync(tsSource, "utf8");
  const hash = crypto.createHash("sha256").update(source).digest("hex").slice(0, 16);
  const dir = privateCacheDir() ?? fs.mkdtempSync(path.join(os.tmpdir(), "mediagen-"));
  const out = path.join(dir, `${CHILD}-${hash}.mjs`);
  if (fs.existsSync(out)) return out;
  let ts: typeof import("typescript");
  try {
    const require = createRequire(import.meta.url);
    ts = require("typescript") as typeof import("typescript");
  } catch {
    return undefined;
  }
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, js);
  fs.renameSync(tmp, out);
  return out;
}
