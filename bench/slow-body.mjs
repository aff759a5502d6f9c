#!/usr/bin/env node
/**
 * Slow request bodies against `mediagen serve` (issue 37): N connections from 127.0.0.1 send their
 * headers and then a byte of body every second, and are opened again whenever the server closes
 * them; meanwhile M legitimate requests (POST /folder/create, one at a time, spaced over the run)
 * must be answered.
 *
 *   npm run build && node bench/slow-body.mjs [--slow 140] [--legit 50] [--spacing-ms 600]
 *
 * The serve child listens on 127.0.0.1 only, with a temp MEDIAGEN_HOME; every loop is bounded (the
 * legitimate requests each within 10 s, the whole run within 3 minutes) and everything is stopped at
 * the end. Prints one JSON line: {slow, legit, answered, statuses, slow_cut, …}.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = path.join(root, "bin/mediagen.js");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SLOW = arg("slow", 140);
const LEGIT = arg("legit", 50);
const SPACING = arg("spacing-ms", 600);
const HARD_STOP = setTimeout(() => {
  console.error("slow-body: over 3 minutes, stopping");
  process.exit(1);
}, 180_000);

const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-slow-"));
const env = { ...process.env, MEDIAGEN_HOME: home, NO_COLOR: "1", MEDIAGEN_LOCAL_RATE_LIMIT: "1000000" };
for (const k of ["MEDIAGEN_TARGET", "MEDIAGEN_BASE_URL", "MEDIAGEN_API_KEY", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]) delete env[k];
const key = JSON.parse(
  execFileSync(process.execPath, [bin, "local", "keys", "create", "--plan", "PRO", "--credits", "100", "--json"], { env, encoding: "utf8" }),
).api_key;

const serve = spawn(process.execPath, [bin, "serve", "--host", "127.0.0.1", "--port", "0", "--json"], { env, stdio: ["ignore", "pipe", "inherit"] });
const baseUrl = await new Promise((resolve, reject) => {
  let out = "";
  serve.stdout.on("data", (d) => {
    out += d;
    const nl = out.indexOf("\n");
    if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)).base_url);
  });
  serve.once("exit", (c) => reject(new Error(`serve exited ${c}`)));
});
const port = Number(new URL(baseUrl).port);

let stop = false;
let slowCut = 0;
let slowOpened = 0;
const open = new Set();
function slowSender() {
  if (stop) return;
  slowOpened++;
  const s = net.connect(port, "127.0.0.1");
  open.add(s);
  s.on("error", () => undefined);
  s.on("data", () => undefined);
  const drip = setInterval(() => s.writable && s.write(" "), 1_000);
  s.on("close", () => {
    clearInterval(drip);
    open.delete(s);
    slowCut++;
    slowSender();
  });
  s.write(
    `POST /api/public/v1/folder/create HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`,
  );
}
for (let i = 0; i < SLOW; i++) slowSender();
await new Promise((r) => setTimeout(r, 1_000));

const statuses = {};
let answered = 0;
const t0 = performance.now();
for (let i = 0; i < LEGIT; i++) {
  let status = 0;
  try {
    const r = await fetch(`${baseUrl}/folder/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", connection: "close" },
      body: JSON.stringify({ name: `legit ${i}` }),
      signal: AbortSignal.timeout(10_000),
    });
    await r.arrayBuffer();
    status = r.status;
  } catch {
    status = 0;
  }
  statuses[status] = (statuses[status] ?? 0) + 1;
  if (status === 201) answered++;
  await new Promise((r) => setTimeout(r, SPACING));
}
const seconds = (performance.now() - t0) / 1000;
stop = true;
const stillOpen = open.size;
for (const s of open) s.destroy();
serve.kill("SIGTERM");
await new Promise((r) => serve.once("exit", r));
fs.rmSync(home, { recursive: true, force: true });
clearTimeout(HARD_STOP);
console.log(
  JSON.stringify({
    slow: SLOW,
    legit: LEGIT,
    answered,
    statuses,
    seconds: Number(seconds.toFixed(1)),
    slow_opened: slowOpened,
    slow_closed_by_server: slowCut,
    slow_open_at_end: stillOpen,
  }),
);
