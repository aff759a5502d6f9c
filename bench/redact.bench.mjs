// Time of redact() (src/engine/redact.ts) on hostile text for people: 1 MB of one alphanumeric
// run (what made the old `([A-Za-z0-9]+)_(live|test)_…` pattern quadratic: hours at 1 MB), repeated
// key prefixes, repeated Bearer. Prints one JSON line per case: {"case", "bytes", "ms", "work"}.
// Run after `npm run build`: `node bench/redact.bench.mjs [bytes]` (default 1 MiB).
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { redact, lastRedactWork } = await import(path.join(root, "dist", "engine", "redact.js"));
const n = Number(process.argv[2] ?? 1024 * 1024);
const cases = {
  "alphanumeric-run": "a".repeat(n),
  "run-then-short-key": "a".repeat(n - 10) + "_live_abc",
  "repeated-prefixes": "a_live_".repeat(Math.ceil(n / 7)).slice(0, n),
  "repeated-bearer": "Bearer ".repeat(Math.ceil(n / 7)).slice(0, n),
  "keys-in-noise": ("x".repeat(100) + " sk_live_" + "0123456789abcdef".repeat(4) + " ").repeat(Math.ceil(n / 174)).slice(0, n),
};
for (const [name, text] of Object.entries(cases)) {
  const t0 = process.hrtime.bigint();
  redact(text);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(JSON.stringify({ case: name, bytes: text.length, ms: Math.round(ms * 10) / 10, work: lastRedactWork() }));
}
