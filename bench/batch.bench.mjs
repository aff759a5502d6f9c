// `mediagen batch run` through the built binary on a fresh local instance: 26 image assets and 4
// generate+export lines, --parallel 8, under a rate limit of 20 requests per window. Measures the
// wall time, the requests the batch sent (starts and polls), how much of the allowance it used, and
// the 429s it met (should be 0). Cases: a 1 s window (the test's setting) and a 3 s one.
// Needs a build (`npx tsc -p .`). Prints one JSON line per case.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bin", "mediagen.js");

for (const windowMs of [1000, 3000]) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-batch-"));
  const lines = [];
  for (let i = 1; i <= 30; i++) {
    lines.push(
      i % 7 === 0 && i <= 28
        ? { kind: "generate", script: `Clip ${i}. Short and sweet.`, voice_id: "vc_emma", avatar_id: "lk_zoe_podcast", export: {} }
        : { kind: "asset", type: "image", model: "imgA-4-fast", prompt: `shot ${i}` },
    );
  }
  const file = path.join(home, "b.jsonl");
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const env = { ...process.env, MEDIAGEN_HOME: home, CI: "1", MEDIAGEN_LOCAL_RATE_LIMIT: "20", MEDIAGEN_LOCAL_RATE_WINDOW_MS: String(windowMs) };
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [bin, "batch", "run", file, "--out", path.join(home, "out"), "--parallel", "8", "--json"], { env, encoding: "utf8" });
  const seconds = (Date.now() - t0) / 1000;
  const summary = r.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))
    .find((e) => e.event === "summary");
  if (r.status !== 0 || !summary) {
    console.error(r.stderr);
    process.exit(1);
  }
  const windows = Math.ceil((seconds * 1000) / windowMs);
  console.log(
    JSON.stringify({
      case: `batch run: 30 lines, --parallel 8, 20 requests per ${windowMs} ms`,
      seconds: Math.round(seconds * 10) / 10,
      requests: summary.requests,
      req_per_s: Math.round((summary.requests / seconds) * 10) / 10,
      allowance_used: Math.round((summary.requests / (windows * 20)) * 100) / 100,
      rate_limited: summary.rate_limited,
    }),
  );
  // The detached worker may still be writing its last files.
  try {
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch {
    // a temp dir left behind
  }
}
