#!/usr/bin/env node
// CommonJS (bin/package.json): the root help and the version (no words, or one of these) are served by
// a small CommonJS entry of their own that prints the same as the CLI (src/cli/root-help.ts), without
// starting node's ES module loader; everything else by the bundled CLI (scripts/bundle.mjs).
"use strict";
const args = process.argv.slice(2);
if (args.length === 0 || (args.length === 1 && ["--help", "-h", "--version", "-V"].includes(args[0]))) {
  require("../dist/bundle/root-help.cjs");
} else {
  // Source maps cost start-up time, so they are read only when a stack trace may be shown: with
  // --debug or MEDIAGEN_DEBUG, traces then point at src/.
  if (args.includes("--debug") || process.env.MEDIAGEN_DEBUG) process.setSourceMapsEnabled(true);
  // The CLI reports its own errors and sets the exit code; only a missing build could reject here,
  // and node's unhandled-rejection report (exit 1, the path) says what is wrong.
  void import("../dist/bundle/mediagen.js");
}
