// Runs every bench/*.bench.mjs and bench/startup.mjs, one at a time (they measure time, so never in
// parallel), and prints one JSON object: {"<name>": <the bench's last JSON line>, …}.
// A bench is a script that prints a JSON line as its last line of output. `node bench/run.mjs [filter]`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = ["startup.mjs", ...fs.readdirSync(dir).filter((f) => f.endsWith(".bench.mjs")).sort()].filter(
  (f) => !filter || f.includes(filter),
);

const results = {};
let failed = false;
for (const file of files) {
  const name = file.replace(/(\.bench)?\.mjs$/, "");
  process.stderr.write(`bench ${name} …\n`);
  const r = spawnSync(process.execPath, [path.join(dir, file)], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const last = r.stdout.trim().split("\n").at(-1) ?? "";
  if (r.status !== 0) {
    failed = true;
    results[name] = { error: `exited ${r.status}` };
    continue;
  }
  try {
    results[name] = JSON.parse(last);
  } catch {
    results[name] = { output: last };
  }
}
console.log(JSON.stringify(results, null, 2));
process.exitCode = failed ? 1 : 0;
