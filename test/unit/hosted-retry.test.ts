import { describe, expect, it } from "vitest";
import { backoffMs, MAX_RATE_WAIT_MS, neverSent, RATE_FALLBACK_STEP_MS, rateLimitWaitMs, serverNowMs, shouldRetry } from "../../src/hosted/retry.js";

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
  const sec = now / 1000;
  const table: { name: string; header?: string; lastReset?: number; attempt?: number; r: number; ms: number }[] = [
    { name: "reset 30 s ahead", header: String(sec + 30), r: 0, ms: 30_000 },
    { name: "reset 30 s ahead, full jitter", header: String(sec + 30), r: 1, ms: 30_250 },
    { name: "reset far ahead is capped", header: String(sec + 3600), r: 0, ms: MAX_RATE_WAIT_MS },
    { name: "the 429's own reset wins over the last one seen", header: String(sec + 10), lastReset: sec + 50, r: 0, ms: 10_000 },
    { name: "reset already past (window just turned): short backoff", header: String(sec - 5), r: 0, ms: backoffMs(0, () => 0) },
    { name: "no header: the last window's reset", lastReset: sec + 40, r: 0, ms: 40_000 },
    { name: "unparseable header: the last window's reset", header: "soon", lastReset: sec + 40, r: 0, ms: 40_000 },
    { name: "no header, last reset past, 1st wait", lastReset: sec - 1, r: 0, ms: 15_000 },
    { name: "no header, nothing seen, 1st wait", r: 0, ms: RATE_FALLBACK_STEP_MS },
    { name: "no header, nothing seen, 2nd wait", attempt: 1, r: 0, ms: 30_000 },
    { name: "no header, nothing seen, 3rd wait", attempt: 2, r: 0, ms: 45_000 },
    { name: "no header, nothing seen, 10th wait is capped", attempt: 9, r: 0, ms: MAX_RATE_WAIT_MS },
  ];
  it.each(table)("429 with $name waits $ms ms", (c) => {
    expect(rateLimitWaitMs({ resetHeader: c.header, lastReset: c.lastReset, nowMs: now, attempt: c.attempt ?? 0, random: () => c.r })).toBe(c.ms);
  });

  it("the three fallback waits outlast the service's 60 s window", () => {
    const total = [0, 1, 2].reduce((sum, attempt) => sum + rateLimitWaitMs({ resetHeader: undefined, lastReset: undefined, nowMs: now, attempt, random: () => 0 }), 0);
    expect(total).toBeGreaterThan(60_000);
  });

  it.each([
    ["a valid Date header", "Wed, 01 Jan 2025 12:00:30 GMT", Date.UTC(2025, 0, 1, 12, 0, 30)],
    ["no Date header", undefined, now],
    ["a garbled Date header", "yesterday-ish", now],
  ])("server time from %s", (_n, header, want) => {
    expect(serverNowMs(header, now)).toBe(want);
  });
});
