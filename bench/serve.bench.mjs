#!/usr/bin/env node
/**
 * Throughput of `mediagen serve` next to a bare node:http server answering the same bytes.
 *
 *   npx tsc -p . && node bench/serve.bench.mjs [--duration 5] [--connections 16] [--rounds 2]
 *   node bench/serve.bench.mjs --drivers [--rounds 3]   # status reads: node:sqlite next to better-sqlite3
 *
 * `--drivers` compares the two SQLite drivers (src/local/db/driver.ts) in one run: each round serves
 * the status read once with each driver (a process each, MEDIAGEN_SQLITE_DRIVER set, alternating so
 * other load on the machine penalises both alike) and keeps each driver's best; one JSON line with
 * both throughputs and node_vs_better (needs a Node with node:sqlite and better-sqlite3's addon
 * built for it). `--case status` alone measures only the status read (what each round runs).
 *
 * The server under test runs in this process (built dist/, inline worker, a rate limit too high to
 * matter); the load generator runs in a child process (undici Pool, N keep-alive connections, fixed
 * duration). Prints one JSON line per case: {case, ours_rps, bare_rps, ratio, …}; `load_average` shows
 * how busy the machine was (the numbers mean little when other work shares the two cores).
 * Everything stays on 127.0.0.1, and every loop is bounded in time.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), "..");

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

// ---- load generator (child) ------------------------------------------------------------------------
if (process.argv[2] === "--load") {
  const { Pool } = await import("undici");
  const spec = JSON.parse(process.argv[3]);
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });
  const run = async (ms) => {
    let done = 0;
    let bad = 0;
    const until = performance.now() + ms;
    const worker = async () => {
      while (performance.now() < until) {
        const res = await pool.request({ path: url.pathname + url.search, method: spec.method, headers: spec.headers, body: spec.body });
        await res.body.arrayBuffer();
        if (res.statusCode === spec.expect) done++;
        else bad++;
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: spec.connections }, worker));
    return { done, bad, seconds: (performance.now() - t0) / 1000 };
  };
  await run(spec.warmupMs); // warm connections and JIT
  const r = await run(spec.durationMs);
  await pool.close();
  process.send({ rps: r.done / r.seconds, requests: r.done, bad: r.bad });
  process.exit(0);
}

// ---- the two SQLite drivers, one process each per round ----------------------------------------------
if (process.argv.includes("--drivers")) {
  const { execFileSync } = await import("node:child_process");
  const passOn = ["duration", "connections"].flatMap((n) => (process.argv.includes(`--${n}`) ? [`--${n}`, String(arg(n))] : []));
  const best = { node: 0, better: 0 };
  let lastLine;
  for (let round = 0; round < arg("rounds", 3); round++) {
    for (const driver of ["node", "better"]) {
      const out = execFileSync(process.execPath, [here, "--case", "status", "--rounds", "1", ...passOn], {
        env: { ...process.env, MEDIAGEN_SQLITE_DRIVER: driver },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      });
      lastLine = JSON.parse(out.trim().split("\n").at(-1));
      best[driver] = Math.max(best[driver], lastLine.ours_rps);
    }
  }
  console.log(
    JSON.stringify({
      case: `${lastLine.case}: node:sqlite next to better-sqlite3`,
      node: process.version,
      node_sqlite_rps: best.node,
      better_sqlite3_rps: best.better,
      node_vs_better: Number((best.node / best.better).toFixed(3)),
      rounds: arg("rounds", 3),
      load_average: Number(os.loadavg()[0].toFixed(2)),
    }),
  );
  process.exit(0);
}

// ---- orchestration (parent) ------------------------------------------------------------------------
const durationMs = arg("duration", 5) * 1000;
const connections = arg("connections", 16);
const rounds = arg("rounds", 2);
const onlyStatus = process.argv.includes("--case");
if (!fs.existsSync(path.join(root, "dist/server/server.js"))) {
  console.error("dist/ is missing: run `npx tsc -p .` first");
  process.exit(1);
}
const { openLocalInstance } = await import(path.join(root, "dist/features/local.js"));
const { startServer } = await import(path.join(root, "dist/server/server.js"));

function load(spec) {
  return new Promise((resolve, reject) => {
    const child = fork(here, ["--load", JSON.stringify({ ...spec, connections, durationMs, warmupMs: 1000 })], { stdio: "inherit" });
    child.once("message", resolve);
    child.once("exit", (code) => (code === 0 ? undefined : reject(new Error(`load generator exited ${code}`))));
  });
}

/** A bare node:http server that answers every request with these exact bytes and headers. */
async function bareServer(status, body, headers) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(status, headers);
      res.end(body);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-"));
const instance = openLocalInstance({ home, worker: "inline", rateLimit: { limit: 1_000_000_000, windowMs: 60_000 } });
const served = await startServer({ instance, host: "127.0.0.1", port: 0 });
const { api_key: key } = instance.createSpace({ plan: "PRO", credits: 100_000 });
const auth = { authorization: `Bearer ${key}` };
const json = { ...auth, "content-type": "application/json" };
const base = served.baseUrl;
const notes = [];

async function call(method, p, body) {
  const res = await fetch(base + p, { method, headers: body ? json : auth, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  const headers = {};
  for (const [k, v] of res.headers) if (k === "content-type" || k.startsWith("x-ratelimit-") || k === "x-request-id") headers[k] = v;
  return { status: res.status, text, headers, json: text ? JSON.parse(text) : undefined };
}

// One asset to poll; fall back to folder listing when the asset endpoints are not there.
const cases = [];
const models = await call("GET", "/asset/models?type=image");
let model;
if (models.status === 200 && models.json.models?.length) {
  model = [...models.json.models].sort((a, b) => a.base_cost - b.base_cost)[0].name;
  const started = await call("POST", "/asset/start", { type: "image", model, prompt: "benchmark frame" });
  if (started.status === 201) {
    const id = started.json.asset_ids[0];
    const deadline = Date.now() + 30_000;
    let status;
    do {
      status = await call("GET", `/asset/status/${id}`);
      if (status.json?.status !== "generating") break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < deadline);
    notes.push(`asset ${id} is ${status.json?.status} while measured`);
    cases.push({ name: "GET /asset/status/{id}", method: "GET", path: `/asset/status/${id}` });
  } else {
    notes.push(`assetStart answered ${started.status}: measuring GET /folder/list instead of asset status`);
  }
  if (!onlyStatus) cases.push({ name: "POST /asset/pricing", method: "POST", path: "/asset/pricing", body: { model, generation_count: 2 } });
} else {
  notes.push(`assetModels answered ${models.status}: measuring folder listing only`);
}
if (!cases.some((c) => c.method === "GET")) {
  await call("POST", "/folder/create", { name: "bench" });
  cases.push({ name: "GET /folder/list", method: "GET", path: "/folder/list" });
}

/** Best-of-rounds throughput of the server at `oursOrigin` and of a bare server answering `sample`'s bytes. */
async function compare(oursOrigin, c, sample) {
  const expect = sample.status;
  const bodyText = c.body ? JSON.stringify(c.body) : undefined;
  const headers = c.body ? json : auth;
  const bare = await bareServer(sample.status, sample.text, sample.headers);
  // Alternate the two servers and keep each one's best round: other load on the machine then
  // penalises both alike instead of whichever happened to run during it.
  let ours = { rps: 0, bad: 0 };
  let bareResult = { rps: 0, bad: 0 };
  try {
    for (let round = 0; round < rounds; round++) {
      const o = await load({ url: oursOrigin + "/api/public/v1" + c.path, method: c.method, headers, body: bodyText, expect });
      const b = await load({ url: bare.origin + "/api/public/v1" + c.path, method: c.method, headers, body: bodyText, expect });
      ours = { rps: Math.max(ours.rps, o.rps), bad: ours.bad + o.bad };
      bareResult = { rps: Math.max(bareResult.rps, b.rps), bad: bareResult.bad + b.bad };
    }
  } finally {
    bare.server.closeAllConnections();
    await new Promise((r) => bare.server.close(r));
  }
  return {
    ours_rps: Math.round(ours.rps),
    bare_rps: Math.round(bareResult.rps),
    ratio: Number((ours.rps / bareResult.rps).toFixed(2)),
    status: sample.status,
    bytes: Buffer.byteLength(sample.text),
    connections,
    seconds: durationMs / 1000,
    rounds,
    load_average: Number(os.loadavg()[0].toFixed(2)),
    errors: ours.bad + bareResult.bad,
  };
}

try {
  let last;
  for (const c of cases) {
    const sample = await call(c.method, c.path, c.body);
    last = { c, sample };
    console.log(JSON.stringify({ case: c.name, ...(await compare(served.origin, c, sample)), ...(notes.length ? { notes } : {}) }));
  }
  // The HTTP adapter alone, over a service that answers at once: what routing, headers and JSON cost.
  if (!onlyStatus) await adapterAlone(last);
} finally {
  await served.close(1000);
  await instance.stopWorker(1000);
  await instance.close();
  fs.rmSync(home, { recursive: true, force: true });
}

async function adapterAlone(last) {
  const { createRequestHandler } = await import(path.join(root, "dist/server/routes.js"));
  const stubBody = JSON.parse(last.sample.text);
  const rateLimit = { limit: 100, remaining: 99, reset: Math.ceil(Date.now() / 1000) + 60 };
  const handle = createRequestHandler({
    service: { dispatch: async () => ({ status: last.sample.status, body: stubBody, rateLimit }) },
    urls: () => ({ media: (rel) => rel }),
  });
  const stub = http.createServer((req, res) => handle(req, res));
  await new Promise((r) => stub.listen(0, "127.0.0.1", r));
  try {
    const result = await compare(`http://127.0.0.1:${stub.address().port}`, last.c, last.sample);
    console.log(JSON.stringify({ case: `${last.c.name} (HTTP adapter over a stub service)`, ...result }));
  } finally {
    stub.closeAllConnections();
    await new Promise((r) => stub.close(r));
  }
}
