#!/usr/bin/env node
// The bundled CLI (scripts/bundle.mjs). Source maps cost start-up time, so they are read only when a
// stack trace may be shown: with --debug or MEDIAGEN_DEBUG, traces then point at src/.
if (process.argv.includes("--debug") || process.env.MEDIAGEN_DEBUG) process.setSourceMapsEnabled(true);
await import("../dist/bundle/mediagen.js");
