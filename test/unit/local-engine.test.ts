/** LocalEngine as a client: it waits out 429s like the hosted client, and honours CallOptions.signal. */
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/local/clock.js";
import { ApiError } from "../../src/engine/errors.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

// 10 s into a minute: the 60 s window resets 50 s later.
const T0 = Date.UTC(2025, 0, 1, 12, 0, 10);
const WINDOW_END = Date.UTC(2025, 0, 1, 12, 1, 0);

const opened: TestInstance[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

function setup(limit = 2) {
  const clock = new ManualClock(T0);
  const t = openTestInstance({ worker: "none", clock, rateLimit: { limit, windowMs: 60_000 } });
  opened.push(t);
  return { t, clock };
}

describe("LocalEngine on 429", () => {
  it("waits until the window resets, then succeeds (a POST too)", async () => {
    const { t, clock } = setup();
    const sleeps: number[] = [];
    const engine = t.engine(t.key, undefined, {
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.advance(ms);
      },
      random: () => 0,
    });
    await engine.folderList();
    await engine.folderList();
    await expect(engine.folderCreate({ name: "third" })).resolves.toMatchObject({ name: "third" });
    expect(sleeps).toEqual([WINDOW_END - T0]);
    expect(engine.lastRateLimit()).toMatchObject({ limit: 2, remaining: 1, reset: WINDOW_END / 1000 + 60 });
  });

  it("gives up after three waits and throws the 429 with its rate-limit headers", async () => {
    const { t } = setup();
    const sleeps: number[] = [];
    // Time stands still: every retry meets the same full window.
    const engine = t.engine(t.key, undefined, { sleep: async (ms) => void sleeps.push(ms), random: () => 1 });
    await engine.folderList();
    await engine.folderList();
    const err = (await engine.folderList().catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(err.headers).toMatchObject({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(WINDOW_END / 1000) });
    expect(sleeps).toEqual([50_250, 50_250, 50_250]);
  });

  it("shows the 429 at once with rateLimitRetries: 0", async () => {
    const { t } = setup(1);
    const sleeps: number[] = [];
    const engine = t.engine(t.key, undefined, { sleep: async (ms) => void sleeps.push(ms), rateLimitRetries: 0 });
    await engine.folderList();
    await expect(engine.folderList()).rejects.toMatchObject({ status: 429 });
    expect(sleeps).toEqual([]);
  });

  it("is the default: an engine from instance.engine(key) waits on the real clock, and an abort ends the wait", async () => {
    const { t } = setup(1);
    const engine = t.engine(t.key);
    await engine.folderList();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const started = Date.now();
    const err = await engine.folderList({}, { signal: ac.signal }).catch((e) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(err).toMatchObject({ name: "AbortError" });
  });

  it("does not dispatch at all when the signal is already aborted", async () => {
    const { t } = setup(1);
    const engine = t.engine(t.key);
    const ac = new AbortController();
    ac.abort();
    await expect(engine.folderCreate({ name: "never" }, { signal: ac.signal })).rejects.toMatchObject({ name: "AbortError" });
    // The window was not touched: the one request allowed is still there.
    await expect(engine.folderList()).resolves.toBeDefined();
    expect(engine.lastRateLimit()).toMatchObject({ remaining: 0 });
  });
});

describe("LocalEngine path parameters", () => {
  it.each([
    ["..", "invalid_value"],
    [".", "invalid_value"],
    ["", "missing_field"],
  ])("refuses assetId %j with 400 %s, as the hosted client does", async (id, code) => {
    const { t } = setup();
    const err = await t.api.assetStatus({ assetId: id }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code, field: "assetId" });
    // Refused before the service: nothing counted against the window.
    await t.api.folderList();
    expect(t.api.lastRateLimit()).toMatchObject({ remaining: 1 });
  });
});
