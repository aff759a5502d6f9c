#!/usr/bin/env node
// The bundled CLI (scripts/bundle.mjs). The root help and the version (no words, or one of these) are
// served by a small entry of their own that prints the same (src/cli/root-help.ts); all else by the CLI.
const args = process.argv.slice(2);
if (args.length === 0 || (args.length === 1 && ["--help", "-h", "--version", "-V"].includes(args[0]))) {
  await import("../dist/bundle/root-help.js");
} else {
  // Source maps cost start-up time, so they are read only when a stack trace may be shown: with
  // --debug or MEDIAGEN_DEBUG, traces then point at src/.
  if (args.includes("--debug") || process.env.MEDIAGEN_DEBUG) process.setSourceMapsEnabled(true);
  await import("../dist/bundle/mediagen.js");
}
