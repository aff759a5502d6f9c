/**
 * A request timeout the user set bounds the 429 waits (issue 26): a window that resets within it is
 * waited for; one that resets later is not (the 429 is thrown at once, with why). And the batch's
 * shortfall arithmetic for lines refused with 402.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HostedEngine } from "../../src/hosted/hosted-engine.js";
import { defaultUserAgent } from "../../src/hosted/client.js";
import { ApiError } from "../../src/engine/errors.js";
import { BODIES, fakeServer, type FakeServer } from "./hosted-fakes.js";
import { missingOf, shortfallOf, totalMissing } from "../../src/cli/batch/shortfall.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const T0 = Date.UTC(2026, 0, 1);

async function limitedOnce(resetInS: number): Promise<FakeServer> {
  const reset = Math.floor(T0 / 1000) + resetInS;
  const s = await fakeServer((n) =>
    n === 0
      ? {
          status: 429,
          body: { error: "Rate limit exceeded. Maximum 100 requests per minute.", details: [{ code: "rate_limit_exceeded", message: "Too many requests" }] },
          headers: { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset), date: new Date(T0).toUTCString() },
        }
      : { status: 200, body: BODIES.folders },
  );
  open.push(s);
  return s;
}

function engine(s: FakeServer, rateWaitsBounded: boolean) {
  const sleeps: number[] = [];
  const e = new HostedEngine({
    baseUrl: s.url,
    apiKey: "sk_test_bounded",
    userAgent: defaultUserAgent(),
    env: {},
    requestTimeoutMs: 10_000,
    rateWaitsBounded,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    now: () => T0,
    random: () => 0,
  });
  open.push(e);
  return { e, sleeps };
}

describe("429 waits under a request timeout the user set", () => {
  it("a window that resets within it is waited for", async () => {
    const s = await limitedOnce(5);
    const { e, sleeps } = engine(s, true);
    await expect(e.folderList()).resolves.toEqual(BODIES.folders);
    expect(sleeps).toEqual([5000]);
  });

  it("a window that resets later is not: the 429 at once, saying why", async () => {
    const s = await limitedOnce(30);
    const { e, sleeps } = engine(s, true);
    const err = await e.folderList().catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, hint: expect.stringContaining("resets in 30 s, past the request timeout (10 s") });
    expect(sleeps).toEqual([]);
    expect(s.seen).toHaveLength(1);
  });

  it("left at its default, the wait is not counted against the deadline (as before)", async () => {
    const s = await limitedOnce(30);
    const { e, sleeps } = engine(s, false);
    await expect(e.folderList()).resolves.toEqual(BODIES.folders);
    expect(sleeps).toEqual([30_000]);
  });
});

describe("batch shortfalls", () => {
  it("reads the amounts of a 402 from its body or its message, and adds the refused lines up", () => {
    const body = new ApiError(402, { error: "Insufficient credits", code: "INSUFFICIENT_CREDITS", required: 5, available: 2 });
    const text = new ApiError(402, { error: "Insufficient credits: 0.1 required, 0.05 available", details: [{ code: "not_eligible", message: "x" }] });
    expect(shortfallOf(body)).toEqual({ required: 5, available: 2 });
    expect(shortfallOf(text)).toEqual({ required: 0.1, available: 0.05 });
    expect(shortfallOf(new ApiError(400, { error: "bad" }))).toBeUndefined();
    expect(missingOf({ required: 5, available: 2 })).toBe(3);
    expect(
      totalMissing([
        { required: 5, available: 2 },
        { required: 5, available: 2 },
      ]),
    ).toBe(8);
    expect(totalMissing([{ required: 5, available: null }])).toBeNull();
  });
});
