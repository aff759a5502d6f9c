// Startup time of `mediagen --help` against a bare `node -e 0`: median of alternating runs.
// Prints one JSON line: {"node_ms", "help_ms", "ratio", "runs"}.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, "bin", "mediagen.js");
const runs = Math.max(15, Number(process.env.BENCH_RUNS ?? 21));

function time(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, CI: "1" } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Warm the file cache once so the first measured run is not an outlier.
time(["-e", "0"]);
time([bin, "--help"]);
const node = [];
const help = [];
for (let i = 0; i < runs; i++) {
  node.push(time(["-e", "0"]));
  help.push(time([bin, "--help"]));
}
const nodeMs = median(node);
const helpMs = median(help);
console.log(JSON.stringify({ node_ms: +nodeMs.toFixed(1), help_ms: +helpMs.toFixed(1), ratio: +(helpMs / nodeMs).toFixed(2), runs }));
