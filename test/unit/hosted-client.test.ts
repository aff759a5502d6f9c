import { afterAll, describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { HostedEngine, type HostedEngineOptions } from "../../src/hosted/hosted-engine.js";
import { defaultUserAgent } from "../../src/hosted/client.js";
import { ApiError, NetworkError } from "../../src/engine/errors.js";
import { BODIES, fakeServer, freePort, type FakeServer } from "./hosted-fakes.js";
import { abortableSleep } from "../../src/engine/sleep.js";

const KEY = "mg_live_" + "ab12".repeat(16);
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

// Closed when the file ends, not after each test: the tests that wait on real time run at once (each
// on its own servers), and one test's end must not close another's server.
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  while (open.length) await open.pop()!.close();
});

/** An engine whose sleeps are recorded instead of waited, with a fixed clock and jitter. */
function engineFor(server: { url: string }, extra: Partial<HostedEngineOptions> = {}) {
  const sleeps: number[] = [];
  const debug: string[] = [];
  const engine = new HostedEngine({
    baseUrl: server.url,
    apiKey: KEY,
    userAgent: defaultUserAgent(),
    debug: (l) => debug.push(l),
    env: {},
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    now: () => T0,
    random: () => 0,
    ...extra,
  });
  open.push(engine);
  return { engine, sleeps, debug };
}

async function serve(script: Parameters<typeof fakeServer>[0]): Promise<FakeServer> {
  const s = await fakeServer(script);
  open.push(s);
  return s;
}

const okFolders = { status: 200, body: BODIES.folders };

describe("HostedEngine requests", () => {
  it("sends Bearer auth, a versioned User-Agent, JSON, and the local simulate header", async () => {
    const s = await serve((n) => (n === 0 ? { status: 201, body: BODIES.folder } : okFolders));
    const { engine } = engineFor(s);
    await engine.folderCreate({ name: "Reports", type: "assets" }, { simulate: "fail" });
    await engine.folderList({ type: "videos" });
    const [post, get] = s.seen;
    expect(post!.method).toBe("POST");
    expect(post!.url).toBe("/api/public/v1/folder/create");
    expect(post!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(post!.headers["content-type"]).toBe("application/json");
    expect(post!.headers["user-agent"]).toMatch(/^mediagen\/\d+\.\d+\.\d+\S* node\/\d+\.\d+\.\d+$/);
    expect(post!.headers["x-local-simulate"]).toBe("fail");
    expect(JSON.parse(post!.body)).toEqual({ name: "Reports", type: "assets" });
    expect(get!.method).toBe("GET");
    expect(get!.url).toBe("/api/public/v1/folder/list?type=videos");
    expect(get!.headers["x-local-simulate"]).toBeUndefined();
  });

  it("fills path parameters and puts the rest of a GET's input in the query string", async () => {
    const s = await serve((n) => ({ status: 200, body: n === 0 ? BODIES.lookDetail : [] }));
    const { engine } = engineFor(s);
    await engine.avatarLook({ avatar_id: "a b", look_id: "l/1" });
    await engine.avatarList({ age_range: ["adult", "senior"], selfie: true, gender: undefined } as never);
    expect(s.seen[0]!.url).toBe("/api/public/v1/avatar/a%20b/look/l%2F1");
    expect(s.seen[1]!.url).toBe("/api/public/v1/avatar/list?age_range=adult%2Csenior&selfie=true");
  });

  it("omits Authorization when no key is configured", async () => {
    const s = await serve(() => okFolders);
    const { engine } = engineFor(s, { apiKey: undefined });
    await engine.folderList();
    expect(s.seen[0]!.headers.authorization).toBeUndefined();
  });

  it("refuses an empty path parameter instead of calling another path", async () => {
    const s = await serve(() => okFolders);
    const { engine } = engineFor(s);
    const err = await engine.assetStatus({ assetId: "" }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code: "missing_field", field: "assetId" });
    expect(s.seen).toHaveLength(0);
  });

  it("exposes the rate-limit headers of the last response", async () => {
    const s = await serve(() => ({ ...okFolders, headers: { "X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "41", "X-RateLimit-Reset": "1735732860" } }));
    const { engine } = engineFor(s);
    expect(engine.lastRateLimit()).toBeUndefined();
    await engine.folderList();
    expect(engine.lastRateLimit()).toEqual({ limit: 100, remaining: 41, reset: 1735732860 });
  });
});

describe("HostedEngine error mapping", () => {
  const cases: { name: string; status: number; body?: unknown; raw?: string; expect: { code: string; field?: string; message: string } }[] = [
    {
      name: "envelope with field",
      status: 400,
      body: { error: "Validation failed", details: [{ code: "invalid_value", message: "parent folder has another type", field: "parent_folder_id" }] },
      expect: { code: "invalid_value", field: "parent_folder_id", message: "parent folder has another type" },
    },
    { name: "{error, code}", status: 404, body: { error: "Video not found", code: "VIDEO_NOT_FOUND" }, expect: { code: "VIDEO_NOT_FOUND", message: "Video not found" } },
    {
      name: "{error, required, available}",
      status: 402,
      body: { error: "Insufficient credits", required: 4, available: 1 },
      expect: { code: "INSUFFICIENT_CREDITS", message: "Insufficient credits" },
    },
    { name: "{error} alone", status: 404, body: { error: "Avatar not found" }, expect: { code: "AVATAR_NOT_FOUND", message: "Avatar not found" } },
    {
      name: "non-JSON gateway page",
      status: 502,
      raw: "<html>Bad Gateway</html>",
      // A proxy's page is said as such, never printed as raw HTML (issue 21).
      expect: { code: "internal_error", message: "HTTP 502 with an HTML page instead of the service's JSON: a proxy or gateway answered, not the service" },
    },
  ];
  for (const c of cases) {
    it(`maps ${c.name} to ApiError with status, code, field and the raw body`, async () => {
      const s = await serve(() => ({ status: c.status, ...(c.raw ? { raw: c.raw } : { body: c.body }), headers: { "x-request-id": "req-1" } }));
      const { engine } = engineFor(s, { retries: 0 });
      const err = (await engine.folderCreate({ name: "x" }).catch((e) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(c.status);
      expect(err.code).toBe(c.expect.code);
      expect(err.field).toBe(c.expect.field);
      expect(err.message).toBe(c.expect.message);
      if (c.body) expect(err.body).toEqual(c.body);
      expect(err.headers["x-request-id"]).toBe("req-1");
    });
  }
});

// The tests run at the same time: each on its own fake server, some waiting out real timeouts.
describe.concurrent("HostedEngine retries", () => {
  it("retries a GET after a dropped connection", async () => {
    const s = await serve((n) => (n === 0 ? "drop" : okFolders));
    const { engine, sleeps, debug } = engineFor(s);
    await expect(engine.folderList()).resolves.toEqual({ folders: [] });
    expect(s.seen).toHaveLength(2);
    expect(sleeps).toEqual([125]); // backoff 250 ms ceiling, half fixed, random() = 0
    expect(debug.some((l) => l.includes("retrying GET"))).toBe(true);
  });

  it("retries a GET after a 503 with exponential backoff, then gives up with the last error", async () => {
    const s = await serve(() => ({ status: 503, body: { error: "Unavailable", details: [{ code: "internal_error", message: "down" }] } }));
    const { engine, sleeps } = engineFor(s, { random: () => 1 });
    const err = await engine.folderList().catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(s.seen).toHaveLength(4);
    expect(sleeps).toEqual([250, 500, 1000]);
  });

  it("succeeds when a GET's 503 is followed by a 200", async () => {
    const s = await serve((n) => (n === 0 ? { status: 503, body: { error: "busy" } } : okFolders));
    const { engine } = engineFor(s);
    await expect(engine.folderList()).resolves.toEqual({ folders: [] });
    expect(s.seen).toHaveLength(2);
  });

  it("never retries a POST after a 503", async () => {
    const s = await serve(() => ({ status: 503, body: { error: "busy" } }));
    const { engine, sleeps } = engineFor(s);
    const err = await engine.folderCreate({ name: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(s.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("never retries a POST after the connection dropped mid-request", async () => {
    const s = await serve(() => "drop");
    const { engine } = engineFor(s);
    const err = await engine.folderCreate({ name: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(s.seen).toHaveLength(1);
  });

  it("never retries a POST after a timeout, but retries a GET", async () => {
    const s = await serve((n) => (n === 0 ? "hang" : n === 1 ? "hang" : okFolders));
    const { engine } = engineFor(s, { headersTimeoutMs: 150 });
    const err = await engine.folderCreate({ name: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(s.seen).toHaveLength(1);
    await expect(engine.folderList()).resolves.toEqual({ folders: [] });
    expect(s.seen).toHaveLength(3);
  });

  it("retries a POST whose connection was refused (nothing reached a server)", async () => {
    const port = await freePort();
    const sleeps: number[] = [];
    let server: FakeServer | undefined;
    const { engine } = engineFor(
      { url: `http://127.0.0.1:${port}/api/public/v1` },
      {
        // The service comes up during the backoff, as after a restart.
        sleep: async (ms) => {
          sleeps.push(ms);
          server ??= await fakeServer(() => ({ status: 201, body: BODIES.folder }), port);
          open.push(server);
        },
      },
    );
    await expect(engine.folderCreate({ name: "x" })).resolves.toEqual(BODIES.folder);
    expect(sleeps).toHaveLength(1);
    expect(server!.seen).toHaveLength(1);
  });

  it("waits until X-RateLimit-Reset after a 429 and then succeeds, for a POST too", async () => {
    const reset = Math.floor(T0 / 1000) + 30;
    const s = await serve((n) =>
      n === 0
        ? {
            status: 429,
            body: { error: "Rate limit exceeded. Maximum 100 requests per minute.", details: [{ code: "rate_limit_exceeded", message: "Too many requests" }] },
            headers: { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset), date: new Date(T0).toUTCString() },
          }
        : {
            status: 201,
            body: BODIES.folder,
            headers: { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99", "x-ratelimit-reset": String(reset + 60), date: new Date(T0).toUTCString() },
          },
    );
    const { engine, sleeps } = engineFor(s);
    await expect(engine.folderCreate({ name: "x" })).resolves.toEqual(BODIES.folder);
    expect(sleeps).toEqual([30_000]);
    expect(s.seen).toHaveLength(2);
    expect(engine.lastRateLimit()).toEqual({ limit: 100, remaining: 99, reset: reset + 60 });
  });

  it("gives up after three 429s and throws the 429 with its headers", async () => {
    const reset = Math.floor(T0 / 1000) + 5;
    const s = await serve(() => ({
      status: 429,
      body: { error: "Rate limit exceeded. Maximum 100 requests per minute.", details: [{ code: "rate_limit_exceeded", message: "Too many requests" }] },
      headers: { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset), date: new Date(T0).toUTCString() },
    }));
    const { engine, sleeps } = engineFor(s, { random: () => 0.5 });
    const err = await engine.folderList().catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(err.headers).toMatchObject({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) });
    expect(s.seen).toHaveLength(4);
    expect(sleeps).toEqual([5125, 5125, 5125]);
  });

  it("stops waiting when the caller aborts", async () => {
    const s = await serve(() => ({ status: 503, body: { error: "busy" } }));
    const ac = new AbortController();
    const { engine } = engineFor(s, {
      sleep: (_ms, signal) =>
        new Promise((_, reject) => {
          ac.abort(new Error("stopped by user"));
          reject(signal?.reason);
        }),
    });
    await expect(engine.folderList({}, { signal: ac.signal })).rejects.toThrow("stopped by user");
    expect(s.seen).toHaveLength(1);
  });
});

describe("HostedEngine redirects", () => {
  const cases: { name: string; status: number; headers: Record<string, string>; raw: string; location: string }[] = [
    {
      name: "an empty 308 (http → https)",
      status: 308,
      headers: { location: "https://api.example.test/api/public/v1/asset/start" },
      raw: "",
      location: "https://api.example.test/api/public/v1/asset/start",
    },
    { name: "a 301 with a JSON body", status: 301, headers: { location: "/elsewhere" }, raw: '{"moved":true}', location: "/elsewhere" },
    { name: "a 302 without Location", status: 302, headers: {}, raw: "", location: "(no Location header)" },
  ];
  for (const c of cases) {
    it(`refuses ${c.name} as unexpected_redirect instead of reading it as success`, async () => {
      const s = await serve(() => ({ status: c.status, raw: c.raw, headers: { ...c.headers, "x-request-id": "req-3xx" } }));
      const { engine, sleeps } = engineFor(s);
      const err = (await engine.assetStart({ type: "image", model: "m", prompt: "p" } as never).catch((e) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(c.status);
      expect(err.code).toBe("unexpected_redirect");
      expect(err.body).toMatchObject({ error: `Unexpected redirect to ${c.location}`, details: [{ code: "unexpected_redirect" }] });
      expect(err.message).toMatch(/base URL/);
      expect(err.headers["x-request-id"]).toBe("req-3xx");
      // Not retried, not followed: one request, to the configured URL only.
      expect(s.seen).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });
  }
});

describe("HostedEngine path parameters", () => {
  it.each([
    ["..", "invalid_value"],
    [".", "invalid_value"],
    ["", "missing_field"],
  ])("refuses assetId %j with 400 %s without sending anything", async (id, code) => {
    const s = await serve(() => okFolders);
    const { engine } = engineFor(s);
    const err = await engine.assetStatus({ assetId: id }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code, field: "assetId" });
    expect(s.seen).toHaveLength(0);
  });

  it("still sends ids that merely contain dots", async () => {
    const s = await serve((n) => ({ status: 200, body: n === 0 ? BODIES.asset : BODIES.voice }));
    const { engine } = engineFor(s);
    await engine.assetStatus({ assetId: "...a.b.." });
    await engine.voiceGet({ id: "a..b" });
    expect(s.seen.map((r) => r.url)).toEqual(["/api/public/v1/asset/status/...a.b..", "/api/public/v1/voice/a..b"]);
  });
});

describe("HostedEngine 429 without X-RateLimit-Reset", () => {
  const limited = (extra: Record<string, string> = {}) => ({
    status: 429,
    body: { error: "Rate limit exceeded. Maximum 100 requests per minute.", details: [{ code: "rate_limit_exceeded", message: "Too many requests" }] },
    headers: { date: new Date(T0).toUTCString(), ...extra },
  });
  const rateHeaders = (reset: number, remaining = 50) => ({
    "x-ratelimit-limit": "100",
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": String(reset),
    date: new Date(T0).toUTCString(),
  });

  it("waits for the reset of the last window it saw", async () => {
    const reset = Math.floor(T0 / 1000) + 40;
    const s = await serve((n) => (n === 1 ? limited() : { ...okFolders, headers: rateHeaders(reset) }));
    const { engine, sleeps } = engineFor(s);
    await engine.folderList();
    await expect(engine.folderList()).resolves.toEqual({ folders: [] });
    expect(sleeps).toEqual([40_000]);
    expect(s.seen).toHaveLength(3);
  });

  it("without any window seen, waits 15 s, 30 s, 45 s: longer than the service's 60 s window in all", async () => {
    const s = await serve(() => limited());
    const { engine, sleeps } = engineFor(s);
    const err = await engine.folderCreate({ name: "x" }).catch((e) => e);
    expect(err).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(sleeps).toEqual([15_000, 30_000, 45_000]);
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThan(60_000);
    expect(s.seen).toHaveLength(4);
  });

  it("ignores a last-seen reset that has already passed", async () => {
    const s = await serve((n) => (n === 0 ? { ...okFolders, headers: rateHeaders(Math.floor(T0 / 1000) - 10) } : n === 1 ? limited() : okFolders));
    const { engine, sleeps } = engineFor(s);
    await engine.folderList();
    await engine.folderList();
    expect(sleeps).toEqual([15_000]);
  });

  it("measures the reset against the server's Date header, not the local clock (skew)", async () => {
    const reset = Math.floor(T0 / 1000) + 30;
    // This machine's clock runs an hour fast; the server's own clock says the window ends in 30 s.
    const s = await serve((n) => (n === 0 ? limited({ "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) }) : okFolders));
    const { engine, sleeps } = engineFor(s, { now: () => T0 + 3_600_000 });
    await engine.folderList();
    expect(sleeps).toEqual([30_000]);
  });
});

describe("HostedEngine abort (CallOptions.signal)", () => {
  it("aborts a request in flight promptly, without retrying", async () => {
    const s = await serve(() => "hang");
    const { engine } = engineFor(s);
    const ac = new AbortController();
    // Aborted once the server has the request (a fixed 50 ms could come before the connection on a loaded machine).
    const armed = setInterval(() => {
      if (s.seen.length > 0) {
        clearInterval(armed);
        ac.abort();
      }
    }, 5);
    const started = Date.now();
    const err = await engine.folderList({}, { signal: ac.signal }).catch((e) => e);
    clearInterval(armed);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(err).toMatchObject({ name: "AbortError" });
    expect(err).not.toBeInstanceOf(NetworkError);
    expect(s.seen).toHaveLength(1);
  });

  it("aborts a 429 wait of the default sleep promptly", async () => {
    const ac = new AbortController();
    // Aborted once the 429 has been answered (not on a timer from the call: under load the request
    // itself could still be on its way), so the abort lands in the 50 s wait.
    const s = await serve(
      () => (
        setTimeout(() => ac.abort(), 50),
        {
          status: 429,
          body: { error: "slow down" },
          headers: { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 50) },
        }
      ),
    );
    const engine = new HostedEngine({ baseUrl: s.url, apiKey: KEY, env: {} });
    open.push(engine);
    const started = Date.now();
    const err = await engine.folderCreate({ name: "x" }, { signal: ac.signal }).catch((e) => e);
    // Far below the announced 50 s wait (a loose bound: only a wait that ignores the signal fails it).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(err).toMatchObject({ name: "AbortError" });
    expect(s.seen).toHaveLength(1);
  });
});

describe("HostedEngine failed POSTs", () => {
  it("says a POST that failed after sending may have reached the service, without the key", async () => {
    const s = await serve(() => "drop");
    const { engine } = engineFor(s);
    const err = await engine.assetStart({ type: "image", model: "m", prompt: KEY } as never).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/the request may have reached the service; check its status \(or the ledger\) before retrying/);
    expect(JSON.stringify({ m: err.message, s: err.stack })).not.toContain(KEY);
  });

  it("does not say so when the connection was refused (nothing was sent)", async () => {
    const port = await freePort();
    const { engine } = engineFor({ url: `http://127.0.0.1:${port}/api/public/v1` }, { retries: 0 });
    const err = await engine.folderCreate({ name: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).not.toMatch(/may have reached/);
  });

  it("does not say so for a GET (it was retried and is safe to repeat)", async () => {
    const s = await serve(() => "drop");
    const { engine } = engineFor(s, { retries: 0 });
    const err = await engine.folderList().catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).not.toMatch(/may have reached/);
  });
});

describe("HostedEngine debug traces", () => {
  it("traces method, URL, status, timing and rate limit without the key or the Authorization header", async () => {
    const s = await serve((n) =>
      n === 0
        ? { status: 401, body: { error: "Invalid API key", details: [{ code: "invalid_api_key", message: `key ${KEY} is not valid` }] } }
        : { ...okFolders, headers: { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "7", "x-ratelimit-reset": "1735732860" } },
    );
    const { engine, debug } = engineFor(s);
    await engine.folderCreate({ name: KEY }).catch(() => undefined);
    await engine.folderList();
    const all = debug.join("\n");
    expect(all).toContain(`→ POST ${s.url}/folder/create`);
    expect(all).toContain(`→ GET ${s.url}/folder/list`);
    expect(all).toMatch(/← 200 in \d+ ms, rate 7\/100 reset 1735732860/);
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(KEY.slice(8));
    expect(all.toLowerCase()).not.toContain("authorization");
    expect(all.toLowerCase()).not.toContain("bearer");
  });

  it("keeps the key out of error messages", async () => {
    const port = await freePort();
    const { engine } = engineFor({ url: `http://127.0.0.1:${port}/api/public/v1` }, { retries: 0 });
    const err = await engine.folderCreate({ name: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(String(err.message)).toContain("ECONNREFUSED");
    expect(JSON.stringify({ m: err.message, s: err.stack })).not.toContain(KEY);
  });
});

describe("HostedEngine connection pool", () => {
  it("reuses pooled connections instead of opening one per request", async () => {
    const sockets = new Set<unknown>();
    const server = http.createServer((req, res) => {
      sockets.add(req.socket);
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"folders":[]}');
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    open.push({ close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) });
    const { engine } = engineFor({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1` });
    for (let i = 0; i < 8; i++) await engine.folderList();
    // A second socket may open while the first is still being released; never one per request.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });
});

// The tests run at the same time: each on its own fake server, waiting out real deadlines.
describe.concurrent("HostedEngine request deadline (requestTimeoutMs)", () => {
  it("defaults to 60 s", async () => {
    const { DEFAULT_REQUEST_TIMEOUT_MS } = await import("../../src/hosted/client.js");
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(60_000);
  });

  it("a GET to a server that never answers fails at the deadline, not after the header timeout of each attempt", async () => {
    const s = await serve(() => "hang");
    const { engine } = engineFor(s, { requestTimeoutMs: 400, sleep: abortableSleep, now: Date.now });
    const t0 = Date.now();
    const err = await engine.folderList().catch((e) => e);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: "request_timeout" });
    expect(err.message).toMatch(/within 0\.4 s/);
    expect(err.message).not.toMatch(/may have reached/);
  });

  it("retries and their backoff stay inside it", async () => {
    const s = await serve(() => "drop");
    // 3 retries of 2 s backoff each would take 6 s: the deadline ends them.
    const { engine } = engineFor(s, { requestTimeoutMs: 500, sleep: abortableSleep, now: Date.now, random: () => 1, retries: 3 });
    const t0 = Date.now();
    const err = await engine.folderList().catch((e) => e);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(err).toMatchObject({ code: "request_timeout" });
  });

  it("a POST past the deadline may have reached the service, and is not repeated", async () => {
    const s = await serve(() => "hang");
    const { engine } = engineFor(s, { requestTimeoutMs: 300, sleep: abortableSleep, now: Date.now });
    const err = await engine.folderCreate({ name: "x" }).catch((e) => e);
    expect(err).toMatchObject({ code: "request_timeout" });
    expect(err.message).toMatch(/may have reached the service/);
    expect(s.seen).toHaveLength(1);
  });

  it("the caller's own abort is reported as such, not as the deadline", async () => {
    const s = await serve(() => "hang");
    const { engine } = engineFor(s, { requestTimeoutMs: 5_000, sleep: abortableSleep, now: Date.now });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("stopped by user")), 100);
    await expect(engine.folderList({}, { signal: ac.signal })).rejects.toThrow("stopped by user");
  });

  it("a 429's announced wait is not counted against it, and onRateLimited hears each wait", async () => {
    // An announced wait of 2–3 s, slept for 1.6 s of real time: longer than the 1.2 s deadline, which
    // still leaves each request time to be answered on a loaded machine (300 ms did not).
    const reset = Math.floor(Date.now() / 1000) + 3;
    const s = await serve((n) =>
      n === 0 ? { status: 429, body: { error: "Rate limit exceeded." }, headers: { "x-ratelimit-reset": String(reset) } } : { status: 200, body: BODIES.folders },
    );
    const waits: number[] = [];
    const { engine } = engineFor(s, { requestTimeoutMs: 1_200, now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 1_600))) });
    await expect(engine.folderList({}, { onRateLimited: (ms) => waits.push(ms) })).resolves.toEqual(BODIES.folders);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
  });
});
