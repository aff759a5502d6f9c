// Start-up time of everyday commands against a bare `node -e 0`: each case alternates one run of
// `node -e 0` with one run of the command, `BENCH_RUNS` times (default 21, at least 15), and reports
// the medians and their ratio. Prints one JSON line per case:
//   {"case", "node_ms", "cmd_ms", "ratio", "runs"}
// Cases: --help, --version, and on the local target (a temporary MEDIAGEN_HOME prepared once with one
// finished asset) folder list, asset status <id>, voice list, asset models (all --json); and
// asset status against a stub hosted server (a node http server on 127.0.0.1:0 answering the status
// JSON; --target hosted --base-url, the key in MEDIAGEN_API_KEY). For reference, `floor-sqlite-read`
// is not mediagen: node loading better-sqlite3 and reading the same database, the floor of a local read.
// `node bench/startup.mjs [filter]` runs only the cases whose name contains the filter.
import { spawnSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, "bin", "mediagen.js");
const runs = Math.max(15, Number(process.env.BENCH_RUNS ?? 21));
const filter = process.argv[2];

const home = fs.mkdtempSync(path.join(os.tmpdir(), "mediagen-startup-"));
const baseEnv = { ...process.env, CI: "1", NO_COLOR: "1", MEDIAGEN_HOME: home };
delete baseEnv.MEDIAGEN_TARGET;
delete baseEnv.MEDIAGEN_BASE_URL;
delete baseEnv.MEDIAGEN_API_KEY;
delete baseEnv.MEDIAGEN_PROFILE;

/** Runs one command asynchronously (the stub server lives in this process) and times it. */
function time(args, env = baseEnv, cwd = undefined) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env, ...(cwd ? { cwd } : {}) });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${err}`));
      else resolve(ms);
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Prepare the home once: one finished asset (the local instance generates a placeholder image).
// Its detached worker is told to retire soon after, and is waited out: the runs measure the command,
// not its contention with a worker polling the same database.
const made = spawnSync(process.execPath, [bin, "asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "bench", "--watch", "--json", "-y"], {
  env: { ...baseEnv, MEDIAGEN_WORKER_IDLE_MS: "200" },
  encoding: "utf8",
});
if (made.status !== 0) throw new Error(`preparing the asset failed (${made.status}): ${made.stderr}`);
const asset = JSON.parse(made.stdout);
if (asset.status !== "completed") throw new Error(`the bench asset is ${asset.status}`);
const assetId = asset.asset_id;
await new Promise((resolve) => setTimeout(resolve, 1500));

// The stub hosted server: answers every GET /asset/status/<id> with the finished asset's JSON.
const statusBody = JSON.stringify({ ...asset, url: "https://cdn.example.test/a.png" });
const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url?.startsWith("/api/public/v1/asset/status/")) {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(statusBody) });
    res.end(statusBody);
  } else {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: "not_found", message: "no such route" } }));
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;
const hostedEnv = { ...baseEnv, MEDIAGEN_API_KEY: "sk_bench_0000000000000000" };

const cases = [
  { name: "help", args: ["--help"] },
  { name: "version", args: ["--version"] },
  { name: "folder-list", args: ["folder", "list", "--json"] },
  { name: "asset-status", args: ["asset", "status", assetId, "--json"] },
  { name: "voice-list", args: ["voice", "list", "--json"] },
  { name: "asset-models", args: ["asset", "models", "--json"] },
  // Not mediagen: what opening SQLite alone costs (node, better-sqlite3, open the same database, read
  // one table, close), the floor under any local read.
  {
    name: "floor-sqlite-read",
    args: [
      "--input-type=module",
      "-e",
      `import Database from "better-sqlite3";
       const db = new Database(${JSON.stringify(path.join(home, "local", "instance.db"))});
       db.pragma("journal_mode = WAL");
       process.stdout.write(JSON.stringify(db.prepare("SELECT * FROM folders").all()));
       db.close();`,
    ],
    cwd: root,
  },
  {
    name: "asset-status-hosted",
    args: ["asset", "status", assetId, "--json", "--target", "hosted", "--base-url", baseUrl],
    env: hostedEnv,
  },
].filter((c) => !filter || c.name.includes(filter));

try {
  // Warm the file cache once so the first measured run is not an outlier.
  await time(["-e", "0"]);
  for (const c of cases) {
    const argv = c.cwd ? c.args : [bin, ...c.args];
    await time(argv, c.env, c.cwd);
    const node = [];
    const cmd = [];
    for (let i = 0; i < runs; i++) {
      node.push(await time(["-e", "0"]));
      cmd.push(await time(argv, c.env, c.cwd));
    }
    const nodeMs = median(node);
    const cmdMs = median(cmd);
    console.log(JSON.stringify({ case: c.name, node_ms: +nodeMs.toFixed(1), cmd_ms: +cmdMs.toFixed(1), ratio: +(cmdMs / nodeMs).toFixed(2), runs }));
  }
} finally {
  server.close();
  fs.rmSync(home, { recursive: true, force: true });
}
