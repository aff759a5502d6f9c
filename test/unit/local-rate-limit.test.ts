import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ManualClock } from "../../src/local/clock.js";
import { ApiError } from "../../src/engine/errors.js";
import { loadLocalParts } from "../../src/features/local.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

// Every feature loaded, so entries can be inspected and replaced (they otherwise load on first use).
const localParts = await loadLocalParts();
const { handlers } = localParts;

const open: TestInstance[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

function setup(opts: { limit?: number; windowMs?: number } = {}) {
  // 12:00:30 UTC: half-way through a minute window.
  const clock = new ManualClock(Date.UTC(2025, 5, 1, 12, 0, 30));
  const t = openTestInstance({
    worker: "none",
    clock,
    ...(opts.limit ? { rateLimit: { limit: opts.limit, windowMs: opts.windowMs ?? 60_000 } } : {}),
  });
  open.push(t);
  const call = () => t.service.dispatch(`Bearer ${t.key}`, "folderList", {}, { urls: t.fileUrls() });
  return { t, clock, call };
}

const windowEnd = Date.UTC(2025, 5, 1, 12, 1, 0) / 1000;

describe("100 requests per minute per space", () => {
  test("the 100th passes, the 101st gets the hosted 429 body and headers", async () => {
    const { call } = setup();
    for (let i = 1; i <= 100; i++) {
      const res = await call();
      expect(res.status).toBe(200);
      expect(res.rateLimit).toEqual({ limit: 100, remaining: 100 - i, reset: windowEnd });
    }
    const res = await call();
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      error: "Rate limit exceeded. Maximum 100 requests per minute.",
      details: [{ code: "rate_limit_exceeded", message: "Rate limit exceeded. Maximum 100 requests per minute." }],
    });
    expect(res.rateLimit).toEqual({ limit: 100, remaining: 0, reset: windowEnd });
  });

  test("a read is counted in the rate-limit store and writes nothing to the instance database", async () => {
    const { t, call } = setup();
    const writes = () => (t.db.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
    const before = writes();
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    expect(writes()).toBe(before);
    expect((t.ratesDb.prepare("SELECT SUM(count) AS n FROM rate_windows").get() as { n: number }).n).toBe(2);
    expect(fs.existsSync(path.join(t.home, "local", "rates.db"))).toBe(true);
  });

  test("rejected requests are not counted, and the next window starts afresh", async () => {
    const { t, clock, call } = setup();
    for (let i = 0; i < 100; i++) await call();
    for (let i = 0; i < 5; i++) expect((await call()).status).toBe(429);
    const row = t.ratesDb.prepare("SELECT SUM(count) AS n FROM rate_windows").get() as { n: number };
    expect(row.n).toBe(100);

    clock.advance(29_999); // 12:00:59.999, still the same window
    expect((await call()).status).toBe(429);
    clock.advance(1); // 12:01:00: a new window
    const res = await call();
    expect(res.status).toBe(200);
    expect(res.rateLimit).toEqual({ limit: 100, remaining: 99, reset: windowEnd + 60 });
    expect((t.ratesDb.prepare("SELECT COUNT(*) AS n FROM rate_windows").get() as { n: number }).n).toBe(1);
  });

  test("each space has its own count", async () => {
    const { t, call } = setup({ limit: 3 });
    for (let i = 0; i < 3; i++) await call();
    expect((await call()).status).toBe(429);
    const other = t.createSpace({ plan: "PRO", credits: 0 });
    const res = await t.service.dispatch(`Bearer ${other.api_key}`, "folderList", {}, { urls: t.fileUrls() });
    expect(res.status).toBe(200);
    expect(res.rateLimit?.remaining).toBe(2);
  });

  test("errors after auth carry the headers and count; 401s do not", async () => {
    const { t, call } = setup({ limit: 5 });
    const bad = await t.service.dispatch(`Bearer ${t.key}`, "folderCreate", {}, { urls: t.fileUrls() });
    expect(bad.status).toBe(400);
    expect(bad.rateLimit).toMatchObject({ limit: 5, remaining: 4 });
    const saved = handlers.folderCreate;
    delete handlers.folderCreate;
    const unimplemented = await t.service.dispatch(`Bearer ${t.key}`, "folderCreate", {}, { urls: t.fileUrls() });
    handlers.folderCreate = saved;
    expect(unimplemented.status).toBe(501);
    expect(unimplemented.rateLimit).toMatchObject({ remaining: 3 });
    const unauth = await t.service.dispatch(undefined, "folderList", {}, { urls: t.fileUrls() });
    expect(unauth.status).toBe(401);
    expect(unauth.rateLimit).toBeUndefined();
    expect((await call()).rateLimit?.remaining).toBe(2);
  });

  test("the engine reports the headers and throws 429 with them", async () => {
    const { t } = setup({ limit: 2 });
    // Without retries, so the 429 itself reaches the caller (waiting is tested in local-engine.test.ts).
    const api = t.engine(t.key, undefined, { rateLimitRetries: 0 });
    await api.folderList();
    expect(api.lastRateLimit()).toEqual({ limit: 2, remaining: 1, reset: windowEnd });
    await api.folderList();
    const err = (await api.folderList().catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.code]).toEqual([429, "rate_limit_exceeded"]);
    expect(err.headers).toEqual({ "x-ratelimit-limit": "2", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(windowEnd) });
    expect(api.lastRateLimit()?.remaining).toBe(0);
  });

  test("a window other than a minute is named in seconds", async () => {
    const { call } = setup({ limit: 1, windowMs: 10_000 });
    await call();
    const res = await call();
    expect((res.body as { error: string }).error).toBe("Rate limit exceeded. Maximum 1 request per 10 seconds.");
    expect(res.rateLimit?.reset).toBe(Date.UTC(2025, 5, 1, 12, 0, 40) / 1000);
  });
});
