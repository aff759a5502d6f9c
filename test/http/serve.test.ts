/**
 * `mediagen serve` as a user runs it: a child process, a key from `mediagen local keys create`, and
 * raw HTTP (node's fetch and http.request, never our client) checking the spec's responses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { assertBuilt, childEnv, startServe, type ServeChild } from "./serve-child.js";
import { createKeyInProcess } from "./in-process.js";
import { runInProcess } from "../helpers/cli.js";

/** curl on PATH (CI installs it); without it the curl comparison is reported as skipped, not passed. */
const hasCurl = (() => {
  try {
    execFileSync("curl", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const LIMIT = 5;
// A long window: a test never straddles a window boundary, so the 429 count is exact.
const WINDOW_MS = 3_600_000;

let home: string;
let env: NodeJS.ProcessEnv;
let serve: ServeChild;
let base: string;
const keys: Record<string, string> = {};

async function call(method: string, path: string, opts: { key?: string | null; body?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(path.startsWith("http") ? path : base + path, { method, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

/** A raw request with full control of headers (Expect: 100-continue, no Content-Type…). */
function rawRequest(opts: http.RequestOptions & { body?: Buffer }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(opts, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    if (opts.body && opts.headers && (opts.headers as Record<string, string>).expect) {
      req.on("continue", () => req.end(opts.body));
      req.on("response", () => undefined);
      req.flushHeaders();
    } else {
      req.end(opts.body);
    }
  });
}

function expectRateHeaders(h: Headers, limit = LIMIT) {
  expect(h.get("x-ratelimit-limit")).toBe(String(limit));
  expect(Number(h.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
  expect(Number(h.get("x-ratelimit-reset")) * 1000).toBeGreaterThan(Date.now());
}

function envelope(code: string) {
  return { error: expect.any(String), details: [{ code, message: expect.any(String) }] };
}

beforeAll(async () => {
  assertBuilt();
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  env = childEnv(home, { MEDIAGEN_LOCAL_RATE_LIMIT: String(LIMIT), MEDIAGEN_LOCAL_RATE_WINDOW_MS: String(WINDOW_MS) });
  serve = await startServe(env);
  base = serve.baseUrl;
  const names = ["folders", "errors", "revoked", "limit", "headers", "curl"] as const;
  // The keys in this process (one `local keys create` each, not a process each): serve is what is tested.
  const made: string[] = [];
  for (const [plan, credits] of [...names.map(() => ["PRO", 100] as const), ["free", 10] as const, ["start", 10] as const])
    made.push(await createKeyInProcess(home, plan, credits));
  for (const [i, n] of names.entries()) keys[n] = made[i]!;
  keys.free = made[names.length]!;
  keys.start = made[names.length + 1]!;
});

afterAll(async () => {
  await serve?.stop("SIGKILL");
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe("mediagen serve over raw HTTP", () => {
  it("prints one JSON line with its loopback base URL once listening", () => {
    expect(serve.firstLine).toMatch(/^\{"base_url":"http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1","dashboard_url":"http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+"\}$/);
    expect(serve.stdout().trim().split("\n")).toHaveLength(1);
  });

  it("POST /folder/create answers 201 with the Folder record, then GET /folder/list lists it", async () => {
    const created = await call("POST", "/folder/create", { key: keys.folders, body: JSON.stringify({ name: "Clips", type: "videos" }) });
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(created.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), name: "Clips", type: "videos", parent_folder_id: null, created_at: expect.any(String) });
    expectRateHeaders(created.headers);
    expect(created.headers.get("x-ratelimit-remaining")).toBe(String(LIMIT - 1));
    expect(created.headers.get("x-request-id")).toBeTruthy();

    const listed = await call("GET", "/folder/list", { key: keys.folders });
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({ folders: [created.json] });
    expect(listed.headers.get("x-ratelimit-remaining")).toBe(String(LIMIT - 2));

    const filtered = await call("GET", "/folder/list?type=assets", { key: keys.folders });
    expect(filtered.json).toEqual({ folders: [] });

    const bad = await call("POST", "/folder/create", { key: keys.folders, body: JSON.stringify({ type: "videos" }) });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: expect.any(String), details: [{ code: "missing_field", field: "name", message: expect.any(String) }] });
  });

  it("answers 401 invalid_api_key for a missing, malformed, unknown and revoked key", async () => {
    const revoke = await runInProcess(["local", "keys", "revoke", keys.revoked!, "--json"], { home });
    expect(revoke.exitCode).toBe(0);
    const variants: [string, Record<string, string>][] = [
      ["missing", {}],
      ["malformed", { authorization: "Bearer not-a-key" }],
      ["not bearer", { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }],
      ["unknown", { authorization: `Bearer mg_live_${"0".repeat(64)}` }],
      ["revoked", { authorization: `Bearer ${keys.revoked}` }],
    ];
    const messages = new Set<string>();
    for (const [name, headers] of variants) {
      const r = await call("GET", "/folder/list", { headers });
      expect([name, r.status]).toEqual([name, 401]);
      expect(r.json).toEqual(envelope("invalid_api_key"));
      expect(r.headers.get("x-ratelimit-limit")).toBeNull();
      messages.add(r.json!.error as string);
    }
    // Missing header, invalid format and invalid key are told apart by their messages, as on the service.
    expect(messages.size).toBeGreaterThanOrEqual(3);
  });

  it("answers 403 plan_required for free and start spaces, with rate-limit headers", async () => {
    for (const key of [keys.free, keys.start]) {
      const r = await call("POST", "/folder/create", { key, body: '{"name":"x"}' });
      expect(r.status).toBe(403);
      expect(r.json).toEqual(envelope("plan_required"));
      expectRateHeaders(r.headers);
    }
  });

  it(`answers the request after the ${LIMIT}th in a window with 429, the hosted body and headers`, async () => {
    const resets = new Set<string>();
    for (let i = 0; i < LIMIT; i++) {
      const r = await call("GET", "/folder/list", { key: keys.limit });
      expect(r.status).toBe(200);
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(LIMIT - 1 - i));
      resets.add(r.headers.get("x-ratelimit-reset")!);
    }
    const r = await call("GET", "/folder/list", { key: keys.limit });
    expect(r.status).toBe(429);
    expect(r.json).toEqual({
      error: `Rate limit exceeded. Maximum ${LIMIT} requests per ${WINDOW_MS / 1000} seconds.`,
      details: [{ code: "rate_limit_exceeded", message: expect.any(String) }],
    });
    expect(r.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(resets).toEqual(new Set([r.headers.get("x-ratelimit-reset")]));
    // Errors found before the service is asked still report the key's window.
    const missing = await call("GET", "/no/such/thing", { key: keys.limit });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  it("answers 404 in the envelope for unknown paths, inside and outside the prefix", async () => {
    const inside = await call("GET", "/folder/lists", { key: keys.errors });
    expect(inside.status).toBe(404);
    expect(inside.json).toEqual(envelope("not_found"));
    expectRateHeaders(inside.headers);
    const outside = await call("GET", base.replace("/api/public/v1", "/index.html"));
    expect(outside.status).toBe(404);
    expect(outside.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(outside.json).toEqual(envelope("not_found"));
  });

  it("answers 400 for a path parameter with a broken %-escape", async () => {
    const r = await call("GET", "/asset/status/%E0%A4%A", { key: keys.errors });
    expect(r.status).toBe(400);
    expect(r.json).toEqual(envelope("invalid_value"));
  });

  it("checks the key before the path, the method and the body", async () => {
    expect((await call("GET", "/folder/lists")).status).toBe(401);
    expect((await call("DELETE", "/folder/create")).status).toBe(401);
    expect((await call("POST", "/folder/create", { body: "{oops" })).status).toBe(401);
    const plan = await call("POST", "/folder/create", { key: keys.free, body: "{oops" });
    expect(plan.status).toBe(403);
  });

  it("answers 405 with Allow for a wrong method", async () => {
    const r = await call("GET", "/folder/create", { key: keys.errors });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("POST");
    expect(r.json).toEqual(envelope("method_not_allowed"));
    const d = await call("DELETE", "/asset/status/abc", { key: keys.errors });
    expect(d.status).toBe(405);
    expect(d.headers.get("allow")).toBe("GET");
  });

  it("answers 400 invalid_value for malformed JSON and for a body that is not an object", async () => {
    for (const body of ['{"name": "x"', "[1,2]", '"text"', "null"]) {
      const r = await call("POST", "/folder/create", { key: keys.errors, body });
      expect([body, r.status]).toEqual([body, 400]);
      expect(r.json).toEqual(envelope("invalid_value"));
    }
  });

  it("answers 413 payload_too_large for a body over 1 MiB, sent whole or behind Expect: 100-continue", async () => {
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });
    const r = await call("POST", "/folder/create", { key: keys.headers, body: big });
    expect(r.status).toBe(413);
    expect(r.json).toEqual(envelope("payload_too_large"));

    const u = new URL(base + "/folder/create");
    const expectContinue = await rawRequest({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: "POST",
      headers: { authorization: `Bearer ${keys.headers}`, "content-type": "application/json", "content-length": String(Buffer.byteLength(big)), expect: "100-continue" },
      body: Buffer.from(big),
    });
    expect(expectContinue.status).toBe(413);
    expect(JSON.parse(expectContinue.body)).toEqual(envelope("payload_too_large"));
  });

  it.skipIf(!hasCurl)("matches curl's view of the service", async () => {
    const curl = await new Promise<{ ok: boolean; out: string }>((resolve) =>
      execFile(
        "curl",
        [
          "-sS",
          "-i",
          "-X",
          "POST",
          "-H",
          `Authorization: Bearer ${keys.curl}`,
          "-H",
          "Content-Type: application/json",
          "-d",
          '{"name":"From curl"}',
          `${base}/folder/create`,
        ],
        { timeout: 10_000 },
        (err, out) => resolve({ ok: !err, out }),
      ),
    );
    expect(curl.ok).toBe(true);
    expect(curl.out).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(curl.out).toMatch(/\r\nx-ratelimit-limit: 5\r\n/i);
    const body = JSON.parse(curl.out.slice(curl.out.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ name: "From curl", type: "assets", parent_folder_id: null });
  });

  it("stops on SIGTERM with exit code 0", async () => {
    const code = await serve.stop("SIGTERM");
    expect(code).toBe(0);
    expect(serve.stderr()).toMatch(/Stopped\./);
    await expect(fetch(base + "/folder/list")).rejects.toThrow();
  });
});
