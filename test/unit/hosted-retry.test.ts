import { describe, expect, it } from "vitest";
import { backoffMs, MAX_RATE_WAIT_MS, neverSent, rateLimitWaitMs, shouldRetry } from "../../src/engine/hosted/retry.js";

const sysErr = (code: string) => Object.assign(new Error(code), { code });
const wrapped = (code: string) => Object.assign(new TypeError("fetch failed"), { cause: sysErr(code) });

describe("retry policy", () => {
  const table: { name: string; method: string; attempt?: number; status?: number; error?: unknown; retry: boolean }[] = [
    { name: "GET after reset", method: "GET", error: sysErr("ECONNRESET"), retry: true },
    { name: "GET after socket closed", method: "GET", error: sysErr("UND_ERR_SOCKET"), retry: true },
    { name: "GET after headers timeout", method: "GET", error: sysErr("UND_ERR_HEADERS_TIMEOUT"), retry: true },
    { name: "GET after 503", method: "GET", status: 503, retry: true },
    { name: "GET after 500", method: "GET", status: 500, retry: true },
    { name: "GET after 501 (not implemented)", method: "GET", status: 501, retry: false },
    { name: "GET after 502", method: "GET", status: 502, retry: true },
    { name: "GET after 400", method: "GET", status: 400, retry: false },
    { name: "GET after 404", method: "GET", status: 404, retry: false },
    { name: "GET with retries used up", method: "GET", attempt: 3, status: 503, retry: false },
    { name: "POST after 503", method: "POST", status: 503, retry: false },
    { name: "POST after 500", method: "POST", status: 500, retry: false },
    { name: "POST after reset", method: "POST", error: sysErr("ECONNRESET"), retry: false },
    { name: "POST after socket closed", method: "POST", error: sysErr("UND_ERR_SOCKET"), retry: false },
    { name: "POST after headers timeout", method: "POST", error: sysErr("UND_ERR_HEADERS_TIMEOUT"), retry: false },
    { name: "POST after body timeout", method: "POST", error: sysErr("UND_ERR_BODY_TIMEOUT"), retry: false },
    { name: "POST after connect timeout", method: "POST", error: sysErr("UND_ERR_CONNECT_TIMEOUT"), retry: false },
    { name: "POST after refused connection", method: "POST", error: sysErr("ECONNREFUSED"), retry: true },
    { name: "POST after DNS failure (wrapped)", method: "POST", error: wrapped("ENOTFOUND"), retry: true },
    { name: "POST after refused, retries used up", method: "POST", attempt: 3, error: sysErr("ECONNREFUSED"), retry: false },
  ];
  for (const c of table) {
    it(`${c.name} → ${c.retry ? "retry" : "no retry"}`, () => {
      const v = shouldRetry({ method: c.method, attempt: c.attempt ?? 0, maxRetries: 3, status: c.status, error: c.error });
      expect(v.retry).toBe(c.retry);
    });
  }

  it("knows which failures happened before sending", () => {
    expect(neverSent(sysErr("ECONNREFUSED"))).toBe(true);
    expect(neverSent(wrapped("EAI_AGAIN"))).toBe(true);
    expect(neverSent(sysErr("ECONNRESET"))).toBe(false);
    expect(neverSent(new Error("no code"))).toBe(false);
  });
});

describe("backoff", () => {
  it.each([
    [0, 0, 125],
    [0, 1, 250],
    [1, 0, 250],
    [2, 1, 1000],
    [5, 1, 8000],
    [10, 1, 8000],
  ])("attempt %i with random %f waits %i ms", (attempt, r, ms) => {
    expect(backoffMs(attempt, () => r)).toBe(ms);
  });

  const now = 1_700_000_000_000;
  it.each([
    ["reset 30 s ahead", String(now / 1000 + 30), 0, 30_000],
    ["reset 30 s ahead, full jitter", String(now / 1000 + 30), 1, 30_250],
    ["reset far ahead is capped", String(now / 1000 + 3600), 0, MAX_RATE_WAIT_MS],
  ])("429 with %s", (_n, header, r, ms) => {
    expect(rateLimitWaitMs(header, now, 0, () => r)).toBe(ms);
  });

  it("falls back to backoff when the reset header is missing or already past", () => {
    expect(rateLimitWaitMs(undefined, now, 0, () => 0)).toBe(backoffMs(2, () => 0));
    expect(rateLimitWaitMs(String(now / 1000 - 5), now, 0, () => 0)).toBe(backoffMs(0, () => 0));
  });
});
