#!/usr/bin/env node
/**
 * Bundles the CLI for start-up time (bench/startup.mjs): one small entry per process mediagen starts
 * (the CLI; then, in a second build, the detached worker and the WASM TTS child) and lazily loaded
 * chunks, one per command group and per layer reached by a dynamic import(), all in dist/bundle/
 * (chunks beside the entries, so `new URL("./worker-main.js", import.meta.url)` finds its sibling
 * from any chunk, and `../../package.json` is the package's from there as from dist/<layer>/).
 * scripts/bundle-common.ts gathers the frame modules nearly every command loads into one common
 * chunk (esbuild would otherwise cut them into a small chunk per combination of importers, and a
 * short command read ~40 files; now 2 for --help, 7 for `folder list`).
 *
 * Packages stay external (resolved in node_modules at run time, as with tsc's output) and load only
 * where they are imported: the ffmpeg/ffprobe/espeak/font helper packages (found on disk through
 * require.resolve), undici and the rest. Four are bundled instead, because loading them file by file
 * is most of a short command's start-up: commander (every command, 8 CommonJS files), chalk (every
 * command's output), zod (95 files; only in the chunks of the contracts, which the hosted target's
 * response check and a few commands load) and better-sqlite3's JavaScript (12 CommonJS files; about
 * 10 ms of every local command on Node 20, the only Node that loads it: newer ones use node:sqlite,
 * src/local/db/driver.ts). better-sqlite3's native addon is never copied: src/local/db/better-sqlite3.ts
 * loads it by path from node_modules (`nativeBinding`), where `npm install` built it. better-sqlite3
 * is an optional dependency: where npm left it out, it stays external (and unused).
 * undici (111 files, hosted target only) stays external: bundled, its streamed downloads stalled.
 * Source maps are written beside each file; bin/mediagen.js turns them on for --debug (and
 * MEDIAGEN_DEBUG), so stack traces then point at src/. dist/bundle/meta.json maps every output to
 * its inputs (test/cli/startup-modules.test.ts reads it).
 *
 * The root help and the version have a third build: one small CommonJS file,
 * dist/bundle/root-help-body.cjs (src/cli/root-help-main.ts), without the common chunk, that
 * bin/mediagen.js starts for them through dist/bundle/root-help.cjs, with a V8 code cache made here.
 *
 * `npm run build` runs tsc (the type check; its dist/ is what tests and fixtures import), then this.
 */
import * as esbuild from "esbuild";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import vm from "node:vm";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Whether `name` is installed (an optional dependency may not be). */
function installed(name) {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** Everything in package.json's dependencies but these is external. */
const BUNDLED = new Set(["commander", "chalk", "zod", ...(installed("better-sqlite3") ? ["better-sqlite3"] : [])]);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "dist", "bundle");

/**
 * commander requires node:child_process at load time for executable subcommands, which mediagen has
 * none of; loading it (and net, dgram… behind it) costs every command a few milliseconds. Here the
 * module is required on first use instead.
 */
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, "utf8");
      const eager = "const childProcess = require('node:child_process');";
      if (!text.includes(eager)) return undefined;
      const lazy = "const childProcess = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });";
      return { contents: text.replace(eager, lazy), loader: "js" };
    });
  },
};

const BANNER = 'import { createRequire as __mediagenRequire } from "node:module"; const require = __mediagenRequire(import.meta.url);';

const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const EXTERNAL = [
  ...Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.devDependencies }).filter((name) => !BUNDLED.has(name)),
  // better-sqlite3's addon finder, used only when no `nativeBinding` path is given (ours always is).
  "bindings",
].flatMap((name) => [name, `${name}/*`]);

fs.rmSync(outdir, { recursive: true, force: true });
const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  sourcemap: "linked",
  sourcesContent: false,
  // Error classes and debug output name functions and classes: keep the names the sources give them.
  keepNames: true,
  metafile: true,
  chunkNames: "chunk-[hash]",
  // commander is CommonJS: its require() of node built-ins needs a real require in an ES module.
  banner: { js: BANNER },
  logLevel: "warning",
  plugins: [lazyChildProcess],
};
// The CLI, with its common modules gathered in one chunk (scripts/bundle-common.ts).
const cli = await esbuild.build({ ...common, entryPoints: { mediagen: "src/cli/main.ts" }, inject: ["scripts/bundle-common.ts"] });
// The processes it starts: their own build (a process shares no module with the CLI's).
const children = await esbuild.build({
  ...common,
  entryPoints: { "worker-main": "src/features/worker-main.ts", "tts-wasm-child": "src/media/tts-wasm-child.ts" },
});
// The root help and the version (bin/mediagen.js; src/cli/root-help-main.ts): one file, without the
// common chunk and without splitting, and CommonJS (root-help-body.cjs, run by the loader
// root-help.cjs below, which bin/mediagen.js, CommonJS too through bin/package.json, require()s): node's ES module loader is then never started for these words
// (a few milliseconds). The registry's lazy group loaders are never called there, so their import()s
// are left as they are (not bundled in).
const rootOnly = {
  name: "root-help-only",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      return { path: args.path, external: true };
    });
  },
};
const rootHelp = await esbuild.build({
  ...common,
  splitting: false,
  format: "cjs",
  outExtension: { ".js": ".cjs" },
  // Less text to compile (names are kept: keepNames); the source map still points at src/.
  minifyWhitespace: true,
  minifySyntax: true,
  entryPoints: { "root-help-body": "src/cli/root-help-main.ts" },
  // import.meta (package.json's place, for the version) as in an ES module.
  define: { "import.meta.url": "__mediagenUrl" },
  banner: { js: 'const __mediagenUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [...common.plugins, rootOnly],
});
// Compiling root-help-body.cjs is a good part of what these words cost: it is run through a V8 code
// cache made here, after one run of the help (so the functions the help calls are in it too).
// root-help.cjs (what bin/mediagen.js requires) compiles the body with it. A node whose V8 differs
// rejects the cache and compiles the source as usual; the cache's name carries the body's hash, so a
// cache never meets another body.
const body = fs.readFileSync(path.join(outdir, "root-help-body.cjs"), "utf8");
const hash = crypto.createHash("sha256").update(body).digest("hex").slice(0, 16);
const cacheName = `root-help-body.${hash}.cache`;
const WRAP = ["(function (exports, require, module, __filename, __dirname) { ", "\n})"];
{
  const file = path.join(outdir, "root-help-body.cjs");
  const script = new vm.Script(WRAP[0] + body + WRAP[1], { filename: file });
  // One run of the help in a throw-away module whose output goes nowhere.
  const run = script.runInThisContext();
  const argv = process.argv;
  const write = process.stdout.write;
  process.argv = [argv[0], file, "--help"];
  process.stdout.write = () => true;
  try {
    run({}, createRequire(file), { exports: {} }, file, outdir);
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    process.argv = argv;
    process.stdout.write = write;
    process.exitCode = 0;
  }
  fs.writeFileSync(path.join(outdir, cacheName), script.createCachedData());
}
fs.writeFileSync(
  path.join(outdir, "root-help.cjs"),
  `"use strict";
// Written by scripts/bundle.mjs: runs root-help-body.cjs (src/cli/root-help-main.ts) compiled with the
// V8 code cache made at build time; without the cache, or with one this node rejects, from source.
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const file = path.join(__dirname, "root-help-body.cjs");
let cachedData;
try {
  cachedData = fs.readFileSync(path.join(__dirname, ${JSON.stringify(cacheName)}));
} catch {}
const script = new vm.Script(${JSON.stringify(WRAP[0])} + fs.readFileSync(file, "utf8") + ${JSON.stringify(WRAP[1])}, { filename: file, cachedData });
const body = { exports: {} };
script.runInThisContext()(body.exports, require("node:module").createRequire(file), body, file, __dirname);
// Not a root request after all: the full CLI.
if (body.exports.fullCli) import("./mediagen.js");
`,
);
// The loader runs what the body bundles (test/cli/startup-modules.test.ts maps files to sources).
rootHelp.metafile.outputs["dist/bundle/root-help.cjs"] = rootHelp.metafile.outputs["dist/bundle/root-help-body.cjs"];

const result = {
  metafile: {
    inputs: { ...children.metafile.inputs, ...rootHelp.metafile.inputs, ...cli.metafile.inputs },
    outputs: { ...children.metafile.outputs, ...rootHelp.metafile.outputs, ...cli.metafile.outputs },
  },
};
// The banner is only needed where bundled CommonJS code calls require(); elsewhere node:module is
// not worth loading. It is blanked, not removed, so the source maps' line numbers still hold.
for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith(".js"))) {
  const abs = path.join(root, file);
  const text = fs.readFileSync(abs, "utf8");
  if (text.startsWith(BANNER) && !/\brequire\b/.test(text.slice(BANNER.length))) fs.writeFileSync(abs, text.slice(BANNER.length));
}
fs.writeFileSync(path.join(outdir, "meta.json"), JSON.stringify(result.metafile));

// `mediagen/testing` (package.json "exports"; src/testing/index.ts, Node built-ins only): tsc wrote
// its ES module to dist/testing/index.js; here its CommonJS twin (for runners that require() it: jest
// by default) and its type declarations, for both (the project emits no declarations otherwise).
const testingDir = path.join(root, "dist", "testing");
await esbuild.build({
  absWorkingDir: root,
  entryPoints: ["src/testing/index.ts"],
  outfile: path.join(testingDir, "index.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  define: { "import.meta.url": "__mediagenTestingUrl" },
  banner: { js: 'const __mediagenTestingUrl = require("node:url").pathToFileURL(__filename).href;' },
});
{
  const { default: ts } = await import("typescript");
  const program = ts.createProgram([path.join(root, "src", "testing", "index.ts")], {
    declaration: true,
    emitDeclarationOnly: true,
    outDir: testingDir,
    rootDir: path.join(root, "src", "testing"),
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
    strict: true,
    skipLibCheck: true,
  });
  const emitted = program.emit();
  const problems = ts.getPreEmitDiagnostics(program).concat(emitted.diagnostics);
  if (problems.length)
    throw new Error(
      `dist/testing/index.d.ts: ${ts.formatDiagnostics(problems, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" })}`,
    );
  // The CommonJS entry's declarations (`require` condition): the same text, as .d.cts.
  fs.copyFileSync(path.join(testingDir, "index.d.ts"), path.join(testingDir, "index.d.cts"));
}
