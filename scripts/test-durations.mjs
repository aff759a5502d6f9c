#!/usr/bin/env node
// Writes test/durations.json (each test file's duration in a run, ms) from vitest's JSON report, for
// test/setup/sequencer.ts: `npx vitest run --reporter=json --outputFile=report.json`, then
// `node scripts/test-durations.mjs report.json`.
import fs from "node:fs";
import path from "node:path";

const report = process.argv[2];
if (!report) {
  process.stderr.write("usage: node scripts/test-durations.mjs <vitest-json-report>\n");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const { testResults } = JSON.parse(fs.readFileSync(report, "utf8"));
const entries = testResults.map((r) => [path.relative(root, r.name).split(path.sep).join("/"), Math.round(r.endTime - r.startTime)]).sort((a, b) => b[1] - a[1]);
fs.writeFileSync(path.join(root, "test", "durations.json"), `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
process.stdout.write(`test/durations.json: ${entries.length} files\n`);
