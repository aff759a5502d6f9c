// Runs every bench/*.bench.mjs and bench/startup.mjs, one at a time (they measure time, so never in
// parallel), and prints one JSON object: {"<name>": <its case, or the list of its cases>, …}.
// A bench is a script that prints one JSON line per case on stdout. `node bench/run.mjs [filter]`.
// The export cases: export.bench.mjs (the renderer alone) and export-e2e.bench.mjs (the same plan
// through mediagen: looks, generation and the export job on a local instance); `node bench/run.mjs export`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = [
  "startup.mjs",
  ...fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".bench.mjs"))
    .sort(),
].filter((f) => !filter || f.includes(filter));

const results = {};
let failed = false;
for (const file of files) {
  const name = file.replace(/(\.bench)?\.mjs$/, "");
  process.stderr.write(`bench ${name} …\n`);
  const r = spawnSync(process.execPath, [path.join(dir, file)], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (r.status !== 0) {
    failed = true;
    results[name] = { error: `exited ${r.status}` };
    continue;
  }
  // A bench prints one JSON line per case; keep them all (one object when there is one case).
  const cases = r.stdout
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("{"))
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
  results[name] = cases.length === 1 ? cases[0] : cases;
}
console.log(JSON.stringify(results, null, 2));
process.exitCode = failed ? 1 : 0;
