/**
 * Fault rules that compose (issue 36, items 1 and 2): each rule is evaluated on its own and spent
 * only when its effect happened — a 429 rule and a job_fail rule on the same operation give a 429,
 * then a failed job; a job_fail is not spent by a request that starts no job; rules are checked
 * strictly (unknown fields, out-of-range numbers); an error rule's `retry_after` sets Retry-After
 * (and a 429's X-RateLimit-Reset), and the hosted client waits that long, not the real window.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { HostedEngine } from "../../src/hosted/hosted-engine.js";
import { defaultUserAgent } from "../../src/hosted/client.js";
import { rateLimitWaitMs, retryAfterMs } from "../../src/hosted/retry.js";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";

let t: TestInstance;
let server: RunningServer;

beforeAll(async () => {
  // Polls below must not meet the real rate limit: these tests are about injected answers.
  t = openTestInstance({ rateLimit: { limit: 100_000, windowMs: 60_000 } });
  server = await startServer({ instance: t, host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await server.close(500);
  await t.close();
});

const admin = (method: string, p: string, body?: unknown) =>
  fetch(`${server.origin}/_mediagen/${p}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
const start = (body: Record<string, unknown> = { type: "image", model: "imgA-4-fast", prompt: "a fox" }) =>
  fetch(`${server.baseUrl}/asset/start`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const rule = (id: string) => t.faults.list().find((r) => r.id === id)!;

describe("rules evaluated on their own", () => {
  it("a 429 rule and a job_fail rule on assetStart: the first start is answered 429 (job_fail untouched), the retried start's job fails", {
    timeout: 90_000,
  }, async () => {
    t.faults.clear();
    const [limited, failing] = t.faults.add([
      { op: "assetStart", action: "error", status: 429, times: 1 },
      { op: "assetStart", action: "job_fail", times: 1 },
    ]);
    const first = await start();
    expect(first.status).toBe(429);
    expect(rule(limited!.id)).toMatchObject({ state: "spent", hits: 1 });
    expect(rule(failing!.id)).toMatchObject({ state: "active", hits: 0, remaining: 1 });

    const second = await start();
    expect(second.status).toBe(201);
    const assetId = ((await second.json()) as { asset_ids: string[] }).asset_ids[0]!;
    expect(rule(failing!.id)).toMatchObject({ state: "spent", hits: 1, remaining: 0 });
    const status = await waitFor(
      async () => {
        const r = await fetch(`${server.baseUrl}/asset/status/${assetId}`, { headers: { authorization: `Bearer ${t.key}` } });
        const b = (await r.json()) as { status: string };
        return b.status === "failed" ? b : undefined;
      },
      50_000,
      200,
    );
    expect(status).toMatchObject({ status: "failed" });
    // The third start meets no rule: its job is not failed.
    const third = await start();
    expect(third.status).toBe(201);
  });

  it("a job_fail rule is not spent by a request that starts no job (refused 400), nor by one X-Local-Simulate fails instead", async () => {
    t.faults.clear();
    const [failing] = t.faults.add({ op: "assetStart", action: "job_fail", times: 1 });
    const refused = await start({ type: "image", model: "imgA-4-fast" });
    expect(refused.status).toBe(400);
    expect(rule(failing!.id)).toMatchObject({ state: "active", hits: 0, remaining: 1 });
    const simulated = await fetch(`${server.baseUrl}/asset/start`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json", "x-local-simulate": "fail" },
      body: JSON.stringify({ type: "image", model: "imgA-4-fast", prompt: "a fox" }),
    });
    expect(simulated.status).toBe(201);
    expect(rule(failing!.id)).toMatchObject({ state: "active", hits: 0, remaining: 1 });
    expect((await start()).status).toBe(201);
    expect(rule(failing!.id)).toMatchObject({ state: "spent", hits: 1 });
  });

  it("two error rules: only the first answers and is spent; the second answers the next request", async () => {
    t.faults.clear();
    const [a, b] = t.faults.add([
      { op: "folderList", action: "error", status: 503, times: 1 },
      { op: "folderList", action: "error", status: 500, times: 1 },
    ]);
    const get = () => fetch(`${server.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${t.key}` } });
    expect((await get()).status).toBe(503);
    expect(rule(b!.id)).toMatchObject({ state: "active", hits: 0 });
    expect((await get()).status).toBe(500);
    expect([rule(a!.id).state, rule(b!.id).state]).toEqual(["spent", "spent"]);
    expect((await get()).status).toBe(200);
  });

  it("a progress_backwards rule is not spent by a status read of a job that is not running", async () => {
    t.faults.clear();
    const [back] = t.faults.add({ op: "generationStatus", action: "progress_backwards", times: 1 });
    const r = await fetch(`${server.baseUrl}/generation/run_doesnotexist`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(r.status).toBe(404);
    expect(rule(back!.id)).toMatchObject({ state: "active", hits: 0 });
  });
});

describe("rules checked strictly", () => {
  const refused = async (body: unknown) => {
    const r = await admin("POST", "faults", body);
    expect(r.status).toBe(400);
    return ((await r.json()) as { details: { message: string }[] }).details[0]!.message;
  };

  it("an unknown field is named (a misspelling), as is a field the action does not read", async () => {
    expect(await refused({ op: "assetStart", action: "error", status: 503, probabilty: 0.5 })).toMatch(/unknown field probabilty/);
    expect(await refused({ op: "assetStart", action: "latency", ms: 100, status: 503 })).toMatch(/status \(not read by latency rules\)/);
    expect(await refused({ op: "assetStart", action: "error", status: 429, retry_afer: 1 })).toMatch(/unknown field retry_afer/);
  });

  it("out-of-range numbers are refused with the range: times, retry_after, ms, probability", async () => {
    expect(await refused({ op: "assetStart", action: "error", status: 503, times: 1e300 })).toMatch(/times must be a whole number from 1 to 1000000/);
    expect(await refused({ op: "assetStart", action: "error", status: 503, times: "many" })).toMatch(/times must be a number/);
    expect(await refused({ op: "assetStart", action: "error", status: 429, retry_after: 7200 })).toMatch(/retry_after .* from 0 to 3600/);
    expect(await refused({ op: "assetStart", action: "error", status: 429, retry_after: 1.5 })).toMatch(/retry_after/);
    expect(await refused({ op: "assetStart", action: "latency", ms: "2h" })).toMatch(/ms must be at most 1h/);
    expect(await refused({ op: "assetStart", action: "error", status: 503, probability: 2 })).toMatch(/probability/);
    // Nothing of a refused batch is stored.
    expect(
      await refused([
        { op: "folderList", action: "reset" },
        { op: "folderList", action: "reset", times: 0 },
      ]),
    ).toMatch(/rule 2: times/);
    expect(t.faults.list().filter((r) => r.op === "folderList" && r.action === "reset")).toEqual([]);
  });
});

describe("retry_after", () => {
  it("a 429 rule's retry_after: Retry-After and an X-RateLimit-Reset that many seconds ahead, remaining 0", async () => {
    t.faults.clear();
    t.faults.add({ op: "assetModels", action: "error", status: 429, retry_after: 2, times: 1 });
    const before = Date.now();
    const r = await fetch(`${server.baseUrl}/asset/models`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("2");
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    const reset = Number(r.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThanOrEqual(Math.ceil((before + 2000) / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil((Date.now() + 2000) / 1000));
  });

  it("a 503 rule's retry_after: Retry-After, the window's own headers unchanged", async () => {
    t.faults.clear();
    t.faults.add({ op: "folderList", action: "error", status: 503, retry_after: 5, times: 1 });
    const r = await fetch(`${server.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("5");
    expect(Number(r.headers.get("x-ratelimit-remaining"))).toBeGreaterThan(0);
  });

  it("the hosted client waits Retry-After (not the real window) after an injected 429, and before retrying a 503 GET", async () => {
    t.faults.clear();
    t.faults.add([
      { op: "assetModels", action: "error", status: 429, retry_after: 2, times: 1 },
      { op: "folderList", action: "error", status: 503, retry_after: 5, times: 1 },
    ]);
    const sleeps: number[] = [];
    const engine = new HostedEngine({
      baseUrl: server.baseUrl,
      apiKey: t.key,
      userAgent: defaultUserAgent(),
      env: {},
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0,
    });
    try {
      await engine.assetModels({} as never);
      expect(sleeps).toEqual([2000]);
      await engine.folderList();
      expect(sleeps).toEqual([2000, 5000]);
    } finally {
      await engine.close();
    }
  });

  it("Retry-After wins over X-RateLimit-Reset; an HTTP date counts from the server's time; nonsense is ignored", () => {
    const nowMs = Date.UTC(2026, 0, 1, 12, 0, 0);
    const base = { resetHeader: String(nowMs / 1000 + 50), lastReset: undefined, nowMs, attempt: 0, random: () => 0 };
    expect(rateLimitWaitMs({ ...base, retryAfterHeader: "1" })).toBe(1000);
    expect(rateLimitWaitMs({ ...base, retryAfterHeader: new Date(nowMs + 3000).toUTCString() })).toBe(3000);
    expect(rateLimitWaitMs({ ...base, retryAfterHeader: "soon" })).toBe(50_000);
    expect(rateLimitWaitMs(base)).toBe(50_000);
    expect(retryAfterMs(undefined, nowMs)).toBeUndefined();
    expect(retryAfterMs("0", nowMs)).toBe(0);
  });
});
