/**
 * Tolerant reading (issue 34): a hosted answer with null, missing or odd fields that a command does
 * not need never ends the command after the money was spent. Each case once ended with exit 1; each
 * now ends as a normal answer: exit 0, what was paid for (ids, script text, a saved file) on stdout or
 * on disk, and a warning on stderr for what was odd. `--json` stays the service's body unchanged.
 * A fake service (a real HTTP server on 127.0.0.1 port 0) answers the odd bodies; the real commands
 * run in process.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeServer, type FakeServer, type Seen } from "../unit/hosted-fakes.js";
import { newHome, run } from "./helpers.js";

type Answer = { status: number; body?: unknown; raw?: string; headers?: Record<string, string> };
/** Answers by "METHOD /path" (without the API prefix); a list is consumed in order, its last entry repeated. */
const routes = new Map<string, Answer | Answer[]>();
let s: FakeServer;
let mediaUrl = "";

function answer(seen: Seen): Answer {
  const url = new URL(seen.url, "http://fake");
  const p = url.pathname.replace(/^\/api\/public\/v1/, "");
  if (p.startsWith("/media/")) return { status: 200, raw: "media bytes", headers: { "content-type": "application/octet-stream" } };
  const route = routes.get(`${seen.method} ${p}`);
  if (!route) return { status: 404, body: { error: "Not found", details: [{ code: "not_found", message: `${seen.method} ${p}` }] } };
  if (!Array.isArray(route)) return route;
  return route.length > 1 ? route.shift()! : route[0]!;
}

beforeAll(async () => {
  s = await fakeServer((_n, seen) => answer(seen));
  mediaUrl = `${s.url}/media`;
});
afterAll(() => s.close());

const KEY = "mg_live_" + "b".repeat(64);
function hosted(home = newHome()) {
  return { home, env: { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: s.url, MEDIAGEN_API_KEY: KEY } };
}

const ASSET_ID = "65f0c2a1b3e4d5f6a7b8c9d0";

describe("asset start --watch", () => {
  it("a poll with url and thumbnail_url null while generating (and nothing else): the wait goes on to the file", async () => {
    routes.set("POST /asset/start", { status: 201, body: { asset_ids: [ASSET_ID], status: "generating", count: 1, cost_per_generation: 1, total_cost: 1 } });
    routes.set(`GET /asset/status/${ASSET_ID}`, [
      { status: 200, body: { status: "generating", url: null, thumbnail_url: null } },
      { status: 200, body: { asset_id: ASSET_ID, status: "completed", type: "image", url: `${mediaUrl}/${ASSET_ID}.png`, thumbnail_url: null, cost: null } },
    ]);
    const opts = hosted();
    const out = path.join(opts.home, "out");
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "a fox", "--watch", "--download", out], opts);
    expect(r.exitCode, r.stderr).toBe(0);
    const saved = path.join(out, `${ASSET_ID}.png`);
    expect(r.stdout).toContain(saved);
    expect(fs.statSync(saved).size).toBeGreaterThan(0);
  });

  it("a start answered with fewer ids than asked (and no costs): the ids named are printed, the rest is a warning", async () => {
    routes.set("POST /asset/start", { status: 201, body: { asset_ids: [ASSET_ID], status: "generating", count: 2 } });
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "a fox", "--count", "2"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(ASSET_ID);
    expect(r.stderr).toMatch(/Warning: .*asset_ids has 1 ids for a start of 2 generations/);
  });

  it("an odd field it does not need (a cost as text) is a warning, and --json prints the body as sent", async () => {
    routes.set(`GET /asset/status/${ASSET_ID}`, {
      status: 200,
      body: { asset_id: ASSET_ID, status: "completed", type: "image", url: `${mediaUrl}/a.png`, cost: "1 credit" },
    });
    const r = await run(["asset", "status", ASSET_ID, "--json"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toEqual({ asset_id: ASSET_ID, status: "completed", type: "image", url: `${mediaUrl}/a.png`, cost: "1 credit" });
    expect(r.stderr).toMatch(/Warning: unexpected response from the service \(assetStatus\): cost should be a number, got a string \(read as absent\)/);
  });

  it("a status answer without the status it needs still stops (exit 1, the field named)", async () => {
    routes.set(`GET /asset/status/${ASSET_ID}`, { status: 200, body: { asset_id: ASSET_ID, url: null } });
    const r = await run(["asset", "status", ASSET_ID], hosted());
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("unexpected response from the service: status is missing");
  });
});

describe("generate --watch --export", () => {
  const JOB = "run_0123456789abcdef01234567";
  const EXP = "exp_0123456789abcdef01234567";
  const VIDEO = "vid_xyz789";

  it("a completed generation without thumbnail_url, then an export first polled as {job_id, status: pending}: the MP4 is saved", async () => {
    routes.set("POST /generation/start", { status: 201, body: { job_id: JOB, status: "pending", estimated_credits: 5 } });
    routes.set(`GET /generation/status/${JOB}`, [
      { status: 200, body: { job_id: JOB, status: "processing", progress_step: null, current_step: "QUEUE" } },
      { status: 200, body: { job_id: JOB, status: "completed", progress_step: 100, current_step: null, result: { video_id: VIDEO, duration: 12, cost: 5 } } },
    ]);
    routes.set("POST /export/start", { status: 201, body: { job_id: EXP, status: "pending", estimated_credits: 0 } });
    routes.set(`GET /export/status/${EXP}`, [
      { status: 200, body: { job_id: EXP, status: "pending" } },
      { status: 200, body: { job_id: EXP, status: "completed", progress: 100, result: { video_url: `${mediaUrl}/${EXP}.mp4`, thumbnail_url: null } } },
    ]);
    const opts = hosted();
    const file = path.join(opts.home, "out.mp4");
    const r = await run(["generate", "--prompt", "green tea", "--duration", "30", "--watch", "--export", "--download", file], opts);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Video ${VIDEO} is done; exporting it`);
    expect(r.stdout).toContain(file);
    expect(fs.existsSync(file)).toBe(true);
    const sent = s.seen.filter((x) => x.method === "POST" && x.url.endsWith("/export/start")).at(-1)!;
    expect(JSON.parse(sent.body)).toEqual({ video_id: VIDEO });
  });
});

describe("script", () => {
  beforeAll(() => {
    routes.set("POST /script/generate", { status: 200, body: { script: "Green tea is good for you.", cost: 0.1, extractedImages: null } });
  });

  it("extractedImages null: the paid script is printed", async () => {
    const r = await run(["script", "--prompt", "Write about green tea"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("Green tea is good for you.");
  });

  it("with --json: the service's body as sent", async () => {
    const r = await run(["script", "--prompt", "Write about green tea", "--json"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toEqual({ script: "Green tea is good for you.", cost: 0.1, extractedImages: null });
  });

  it("a cost that is not a number: the script is still printed, the oddity is a warning", async () => {
    routes.set("POST /script/generate", { status: 200, body: { script: "Tea.", cost: "cheap" } });
    const r = await run(["script", "--prompt", "Write about green tea"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("Tea.");
    expect(r.stderr).toMatch(/Warning: .*cost should be a number, got a string/);
  });
});

describe("asset models", () => {
  const good = {
    name: "imgA-4",
    label: "Image A",
    type: "image",
    provider: "alpha",
    tags: [],
    base_cost: 0.1,
    has_audio: false,
    max_resolution: "4K",
    required_plans: [],
    capabilities: { max_images: 1, min_images: 0 },
  };
  const odd = [
    { ...good, name: "null-res", max_resolution: null },
    { ...good, name: "no-max-images", capabilities: { min_images: 0 } },
    { ...good, name: "no-countries" },
    {
      ...good,
      name: "array-default",
      settings: [{ key: "quality", type: "select", label: "Quality", default_value: ["high"], affects_cost: true, options: [["high"], ["low"]] }],
    },
  ];

  it("entries with max_resolution null, no max_images, or an array default_value: every entry listed", async () => {
    routes.set("GET /asset/models", { status: 200, body: { models: [good, ...odd], count: 5 } });
    const r = await run(["asset", "models", "-q"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual(["imgA-4", "null-res", "no-max-images", "no-countries", "array-default"]);
  });

  it("the table reads too (absent values shown as -)", async () => {
    const r = await run(["asset", "models"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("null-res");
  });

  it("an entry without a name is left out with a warning; the rest is listed", async () => {
    routes.set("GET /asset/models", { status: 200, body: { models: [good, { label: "nameless" }], count: 2 } });
    const r = await run(["asset", "models", "-q"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("imgA-4");
    expect(r.stderr).toMatch(/models\[1\]\.name is missing \(entry models\[1\] left out\)/);
  });

  it("one model without restricted_countries, input_schema or max_resolution, with an array default_value", async () => {
    const { settings } = odd[3] as { settings: unknown[] };
    routes.set("GET /asset/models/odd", { status: 200, body: { ...good, name: "odd", max_resolution: null, settings } });
    const r = await run(["asset", "model", "odd"], hosted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/setting quality: select/);
  });
});
