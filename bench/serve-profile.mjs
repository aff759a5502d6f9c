#!/usr/bin/env node
/**
 * Where `mediagen serve` spends its time on status reads: runs the built server in this process
 * (start it with `node --cpu-prof --cpu-prof-dir=DIR bench/serve-profile.mjs`) under the load
 * generator of serve.bench.mjs (a child without profiling) for `--duration` seconds (default 5) on
 * GET /asset/status/{id} (`--bare`: against a bare node:http server answering the same bytes, for
 * comparison), then prints the top self-time functions of the newest profile in DIR
 * (`node bench/serve-profile.mjs --top DIR`).
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argi = (n) => process.argv.indexOf(`--${n}`);

if (argi("top") >= 0) {
  const dir = process.argv[argi("top") + 1];
  const file = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  const prof = JSON.parse(fs.readFileSync(file, "utf8"));
  const dt = new Map();
  for (let i = 0; i < prof.samples.length; i++) dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
  const self = new Map();
  let total = 0;
  for (const n of prof.nodes) {
    const t = dt.get(n.id) ?? 0;
    total += t;
    const cf = n.callFrame;
    const key = `${cf.functionName || "(anonymous)"} ${cf.url.replace(/^.*\/(node_modules|dist|src)\//, "$1/")}:${cf.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + t);
  }
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[argi("top") + 2] ?? 30));
  for (const [k, t] of rows) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
  process.exit(0);
}

const duration = argi("duration") >= 0 ? Number(process.argv[argi("duration") + 1]) : 5;
const { openLocalInstance } = await import(path.join(root, "dist/features/local.js"));
const { startServer } = await import(path.join(root, "dist/server/server.js"));
const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-prof-"));
const instance = openLocalInstance({ home, worker: "inline", rateLimit: { limit: 1_000_000_000, windowMs: 60_000 } });
const served = await startServer({ instance, host: "127.0.0.1", port: 0 });
const { api_key: key } = instance.createSpace({ plan: "PRO", credits: 100_000 });
const headers = { authorization: `Bearer ${key}` };
const started = await (
  await fetch(served.baseUrl + "/asset/start", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ type: "image", model: "imgA-4", prompt: "profile" }),
  })
).json();
const id = started.asset_ids[0];
for (let i = 0; i < 100; i++) {
  const s = await (await fetch(`${served.baseUrl}/asset/status/${id}`, { headers })).json();
  if (s.status !== "generating") break;
  await new Promise((r) => setTimeout(r, 100));
}
// --bare: the same load on a bare node:http server answering the same bytes, for comparison.
let target = `${served.baseUrl}/asset/status/${id}`;
let bare;
if (argi("bare") >= 0) {
  const sample = await fetch(target, { headers });
  const text = await sample.text();
  const keep = {};
  for (const [k, v] of sample.headers) if (k === "content-type" || k.startsWith("x-ratelimit-") || k === "x-request-id") keep[k] = v;
  const http = await import("node:http");
  bare = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, keep);
      res.end(text);
    });
  });
  await new Promise((r) => bare.listen(0, "127.0.0.1", r));
  target = `http://127.0.0.1:${bare.address().port}/api/public/v1/asset/status/${id}`;
}
const result = await new Promise((resolve, reject) => {
  const spec = { url: target, method: "GET", headers, expect: 200, connections: 16, durationMs: duration * 1000, warmupMs: 1000 };
  const child = fork(path.join(root, "bench/serve.bench.mjs"), ["--load", JSON.stringify(spec)], { stdio: "inherit", execArgv: [] });
  child.once("message", resolve);
  child.once("exit", (code) => (code === 0 ? undefined : reject(new Error(`load generator exited ${code}`))));
});
console.log(JSON.stringify({ case: `GET /asset/status/{id}${bare ? " (bare node:http)" : ""}`, rps: Math.round(result.rps), load_average: os.loadavg()[0] }));
bare?.closeAllConnections();
bare?.close();
await served.close(1000);
await instance.stopWorker(1000);
await instance.close();
fs.rmSync(home, { recursive: true, force: true });
