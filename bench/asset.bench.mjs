// `asset start` requests per second on the local instance, in process: validation, pricing, the
// debit and the enqueue in one IMMEDIATE transaction (no worker runs, so no media is made).
// Needs a build (`npx tsc -p .`). Prints one JSON line per case: {case, requests, seconds, req_per_s, p50_ms, p99_ms}.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openLocalInstance } from "../dist/features/local.js";

const N = Number(process.env.BENCH_REQUESTS ?? 2000);
const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-asset-"));
const instance = openLocalInstance({ home, worker: "none", rateLimit: { limit: 1e9, windowMs: 60_000 } });

const refFile = path.join(home, "ref.png");
fs.writeFileSync(refFile, "only its extension and existence are checked at start");

// A completed library asset for asset_id references.
const seed = instance.createSpace({ name: "bench", plan: "ENTREPRISE", credits: 1e9 });
const api = instance.engine(seed.api_key);
const lib = (await api.assetStart({ type: "image", model: "imgA-4-fast", prompt: "library" })).asset_ids[0];
instance.db.prepare("UPDATE assets SET status = 'completed', width = 1024, height = 1024 WHERE id = ?").run(lib);

const cases = [
  { name: "image, prompt only", body: { type: "image", model: "imgA-4-fast", prompt: "a red fox at dawn" } },
  {
    name: "video, reference + settings",
    body: { type: "video", model: "vidA-3", prompt: "waves at night", duration: 6, references: [{ url: refFile }], model_settings: { generateAudio: false } },
  },
  {
    name: "video, elements + 3 references",
    body: {
      type: "video",
      model: "vidD-omni",
      prompt: "@hero walks",
      references: [{ url: refFile }, { asset_id: lib }, { url: refFile }],
      elements: [{ name: "hero", images: [{ url: refFile }, { asset_id: lib }] }],
    },
  },
  { name: "image, generation_count 4", body: { type: "image", model: "imgA-4", prompt: "four foxes", generation_count: 4 } },
];

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

for (const c of cases) {
  for (let i = 0; i < 50; i++) await api.assetStart(c.body); // warm up the statement cache and the JIT
  const lat = [];
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const s = performance.now();
    await api.assetStart(c.body);
    lat.push(performance.now() - s);
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    JSON.stringify({
      case: `asset start: ${c.name}`,
      requests: N,
      seconds: +seconds.toFixed(3),
      req_per_s: Math.round(N / seconds),
      p50_ms: +pct(lat, 50).toFixed(3),
      p99_ms: +pct(lat, 99).toFixed(3),
    }),
  );
}

await instance.close();
fs.rmSync(home, { recursive: true, force: true });
