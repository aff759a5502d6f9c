/**
 * The admin path for everything `mediagen local` does (issue 36, items 3 and 4): the request journal
 * (`/_mediagen/requests`: recorded, filtered, bounded, cleared; `local requests`), keys with plan and
 * credits, spaces, credits, the webhook secret, reset, and the OpenAPI document that lists every
 * endpoint; strict bodies, and the same gate as the older endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { JOURNAL_MAX } from "../../src/local/request-journal.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { run, startInProcess } from "../cli/helpers.js";
import { abortableSleep } from "../../src/engine/sleep.js";

let t: TestInstance;
let server: RunningServer;

beforeAll(async () => {
  t = openTestInstance();
  server = await startServer({ instance: t, host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await server.close(500);
  await t.close();
});

async function admin<T = Record<string, unknown>>(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const r = await fetch(`${server.origin}/_mediagen/${p}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: (await r.json()) as T };
}
const api = (p: string, key: string, body?: unknown) =>
  fetch(`${server.baseUrl}${p}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
const message = (b: unknown) => (b as { details: { message: string }[] }).details[0]!.message;

interface Entry {
  seq: number;
  method: string;
  path: string;
  query: string | null;
  op: string | null;
  status: number | null;
  error: string | null;
  request_id: string | null;
  body: unknown;
  duration_ms: number;
}

describe("the request journal", () => {
  it("records every API request with operation, status, request id and the body (keys masked); admin calls are not recorded", async () => {
    await admin("DELETE", "requests");
    await admin("POST", "faults", { op: "assetStart", action: "error", status: 503, times: 1 });
    const body = { type: "image", model: "imgA-4-fast", prompt: "a fox", api_key: "anything-secret-here", note: `key ${t.key}` };
    const failed = await api("/asset/start", t.key, body);
    expect(failed.status).toBe(503);
    const ok = await api("/asset/start", t.key, { type: "image", model: "imgA-4-fast", prompt: "a fox" });
    expect(ok.status).toBe(201);
    await api("/folder/list?type=videos", t.key);
    const { status, body: got } = await admin<{ requests: Entry[] }>("GET", "requests");
    expect(status).toBe(200);
    expect(got.requests.map((e) => [e.method, e.path, e.op, e.status])).toEqual([
      ["POST", "/api/public/v1/asset/start", "assetStart", 503],
      ["POST", "/api/public/v1/asset/start", "assetStart", 201],
      ["GET", "/api/public/v1/folder/list", "folderList", 200],
    ]);
    const [first, second, third] = got.requests as [Entry, Entry, Entry];
    expect(first.request_id).toBe(failed.headers.get("x-request-id"));
    expect(second.request_id).toBe(ok.headers.get("x-request-id"));
    expect(second.seq).toBeGreaterThan(first.seq);
    expect(third.query).toBe("type=videos");
    expect(first.body).toMatchObject({ type: "image", prompt: "a fox", api_key: "[REDACTED]" });
    expect(JSON.stringify(first.body)).not.toContain(t.key);
    expect(typeof first.duration_ms).toBe("number");
  });

  it("filters by op, status (exact or class), since and after; asserts 'POSTed assetStart exactly once after the 503'", async () => {
    const all = (await admin<{ requests: Entry[] }>("GET", "requests")).body.requests;
    const starts = (await admin<{ requests: Entry[] }>("GET", "requests?op=assetStart")).body.requests;
    expect(starts.map((e) => e.status)).toEqual([503, 201]);
    const afterFailure = (await admin<{ requests: Entry[] }>("GET", `requests?op=assetStart&after=${starts[0]!.seq}`)).body.requests;
    expect(afterFailure).toHaveLength(1);
    expect((await admin<{ requests: Entry[] }>("GET", "requests?status=5xx")).body.requests.map((e) => e.status)).toEqual([503]);
    expect((await admin<{ requests: Entry[] }>("GET", "requests?status=201,200")).body.requests).toHaveLength(2);
    expect((await admin<{ requests: Entry[] }>("GET", `requests?since=${new Date(Date.now() + 60_000).toISOString()}`)).body.requests).toEqual([]);
    expect((await admin<{ requests: Entry[] }>("GET", "requests?limit=1")).body.requests).toEqual([all.at(-1)]);
    for (const [q, why] of [
      ["status=abc", /status: expected a status/],
      ["since=yesterday", /since: expected an ISO 8601 time/],
      ["limit=-1", /limit: expected a whole number/],
      ["opp=assetStart", /unknown query parameter opp/],
    ] as const) {
      const r = await admin("GET", `requests?${q}`);
      expect(r.status, q).toBe(400);
      expect(message(r.body)).toMatch(why);
    }
  });

  it("records a connection a fault dropped (no status, error reset) and a media download", async () => {
    await admin("DELETE", "requests");
    await admin("POST", "faults", { op: "voiceList", action: "reset", times: 1 });
    await expect(api("/voice/list", t.key)).rejects.toThrow();
    const media = await fetch(`${server.origin}/media/nothing.png?exp=1&sig=abc`);
    expect(media.status).toBeGreaterThanOrEqual(400);
    await expect
      .poll(async () => (await admin<{ requests: Entry[] }>("GET", "requests")).body.requests.map((e) => [e.op, e.status, e.error, e.query]))
      .toEqual([
        ["voiceList", null, "reset", null],
        ["media", media.status, null, null],
      ]);
  });

  it("DELETE empties it; it keeps the newest entries past its bound", async () => {
    const cleared = await admin<{ removed: number }>("DELETE", "requests");
    expect(cleared.status).toBe(200);
    expect((await admin<{ requests: Entry[] }>("GET", "requests")).body.requests).toEqual([]);
    for (let i = 0; i < 7; i++) await api("/folder/list", t.key);
    t.requests.trim(5);
    const kept = t.requests.list();
    expect(kept).toHaveLength(5);
    expect(kept.map((e) => e.seq)).toEqual([...kept.map((e) => e.seq)].sort((a, b) => a - b));
    expect(JOURNAL_MAX).toBe(10_000);
  });

  it("mediagen local requests: the same entries, filtered; --follow prints those that arrive until Ctrl-C", async () => {
    const list = await run(["local", "requests", "--op", "folderList", "--json"], { home: t.home });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json<Entry[]>().every((e) => e.op === "folderList")).toBe(true);
    const bad = await run(["local", "requests", "--status", "nope"], { home: t.home });
    expect(bad.exitCode).toBe(2);
    // The command's clock tells when it first waits: it is following from then on (no sleep here).
    let waiting: () => void = () => {};
    const firstWait = new Promise<void>((resolve) => (waiting = resolve));
    const clock = {
      now: () => Date.now(),
      sleep: (ms: number, signal: AbortSignal) => {
        waiting();
        return abortableSleep(ms, signal);
      },
    };
    const following = startInProcess(["local", "requests", "--follow", "--json", "--op", "assetModels"], { home: t.home, clock });
    await firstWait;
    await api("/asset/models", t.key);
    await expect.poll(() => t.requests.list({ op: "assetModels" }).length).toBe(1);
    following.interrupt();
    const out = await following.result;
    const lines = out.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Entry);
    expect(lines.map((e) => e.op)).toEqual(["assetModels"]);
  });
});

describe("keys, spaces, credits, webhook secret, reset", () => {
  it("POST keys makes a space with its plan and credits and a key that works; credits are granted; spaces and ledger read back", async () => {
    const made = await admin<{ api_key: string; space_id: string; space: { plan: string; credits: number } }>("POST", "keys", { plan: "free", credits: 5, name: "ci" });
    expect(made.status).toBe(201);
    expect(made.body.space).toMatchObject({ plan: "free", credits: 5, name: "ci" });
    // A free plan has no API access: the key is known (403, not 401).
    expect((await api("/folder/list", made.body.api_key)).status).toBe(403);
    const pro = await admin<{ api_key: string; space_id: string }>("POST", "keys", { plan: "PRO", credits: 0.5 });
    expect((await api("/folder/list", pro.body.api_key)).status).toBe(200);
    const granted = await admin<{ space: { credits: number } }>("POST", "credits", { space: pro.body.space_id, credits: 10, note: "top-up" });
    expect(granted.body.space.credits).toBe(10.5);
    const spaces = await admin<{ spaces: { id: string }[] }>("GET", "spaces");
    expect(spaces.body.spaces.map((s) => s.id)).toContain(pro.body.space_id);
    expect((await admin<{ space: { credits: number } }>("GET", `spaces/${pro.body.space_id}`)).body.space.credits).toBe(10.5);
    const ledger = await admin<{ entries: { note: string | null }[] }>("GET", `spaces/${pro.body.space_id}/ledger`);
    expect(ledger.body.entries.map((e) => e.note)).toContain("top-up");
    const keys = await admin<{ keys: { id: string; space_id: string }[] }>("GET", `keys?space=${pro.body.space_id}`);
    expect(keys.body.keys).toHaveLength(1);
    const regenerated = await admin<{ api_key: string }>("POST", `keys/${keys.body.keys[0]!.id}/regenerate`);
    expect((await api("/folder/list", pro.body.api_key)).status).toBe(401);
    expect((await api("/folder/list", regenerated.body.api_key)).status).toBe(200);
    const fresh = (await admin<{ keys: { id: string; revoked_at: string | null }[] }>("GET", `keys?space=${pro.body.space_id}`)).body.keys.find((k) => !k.revoked_at)!;
    expect((await admin("DELETE", `keys/${fresh.id}`)).status).toBe(200);
    expect((await api("/folder/list", regenerated.body.api_key)).status).toBe(401);
  });

  it("bad bodies are refused naming the field: unknown fields, wrong types, a bad plan; unknown ids are 404", async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ["POST", "keys", { plan: "PRO", credits: 5, credit: 1 }, /unknown field credit/],
      ["POST", "keys", { plan: "PRO", credits: "5" }, /credits must be a number/],
      ["POST", "keys", { plan: "GOLD", credits: 5 }, /plan must be one of/],
      ["POST", "keys", { credits: 5 }, /plan is required/],
      ["POST", "credits", { space: t.instance.listSpaces()[0]!.id, credits: -1e308 }, /credits/],
      ["POST", "webhook-secret", { secret: 42 }, /secret must be a string/],
      ["POST", "reset", { everything: true }, /unknown field everything/],
      ["POST", "keys", "[1]", /must be a JSON object/],
    ];
    for (const [method, p, body, why] of cases) {
      const r = await admin(method, p, body);
      expect(r.status, `${method} ${p} ${JSON.stringify(body)}`).toBe(400);
      expect(message(r.body)).toMatch(why);
    }
    expect((await admin("GET", "spaces/nope")).status).toBe(404);
    expect((await admin("DELETE", "keys/key_000000000000000000000000")).status).toBe(404);
    expect((await admin("GET", "keys/a/b/c")).status).toBe(404);
  });

  it("the webhook secret: set (given or generated), read, cleared", async () => {
    const set = await admin<{ webhook_secret: string }>("POST", "webhook-secret", {});
    expect(set.body.webhook_secret).toMatch(/^whsec_/);
    expect(t.getSetting("webhook_secret")).toBe(set.body.webhook_secret);
    expect((await admin<{ webhook_secret: string }>("POST", "webhook-secret", { secret: "whsec_dGVzdHNlY3JldA==" })).body.webhook_secret).toBe("whsec_dGVzdHNlY3JldA==");
    expect((await admin<{ webhook_secret: string }>("GET", "webhook-secret")).body.webhook_secret).toBe("whsec_dGVzdHNlY3JldA==");
    expect((await admin<{ webhook_secret: null }>("DELETE", "webhook-secret")).body.webhook_secret).toBeNull();
    expect(t.getSetting("webhook_secret")).toBeUndefined();
  });

  it("the same gate: a page of another site is refused on the new endpoints too", async () => {
    const r = await admin("POST", "keys", { plan: "PRO", credits: 1 }, { origin: "http://evil.example" });
    expect(r.status).toBe(403);
    expect((await admin("GET", "requests", undefined, { origin: "http://evil.example" })).status).toBe(403);
  });

  it("POST reset deletes spaces, keys, rules and the journal, and answers the new default key", async () => {
    const made = await admin<{ api_key: string }>("POST", "keys", { plan: "PRO", credits: 1 });
    await admin("POST", "faults", { op: "folderList", action: "error", status: 503 });
    const r = await admin<{ reset: boolean; api_key: string }>("POST", "reset", {});
    expect(r.status).toBe(200);
    expect(r.body.reset).toBe(true);
    expect((await api("/folder/list", made.body.api_key)).status).toBe(401);
    expect((await admin<{ rules: unknown[] }>("GET", "faults")).body.rules).toEqual([]);
    expect((await api("/folder/list", r.body.api_key)).status).toBe(200);
    // The journal starts again with the requests made since: the old key's 401, the new key's 200.
    const journal = (await admin<{ requests: Entry[] }>("GET", "requests")).body.requests;
    expect(journal.map((e) => e.status)).toEqual([401, 200]);
  });
});

describe("GET /_mediagen/openapi.json", () => {
  it("is an OpenAPI 3.1 document naming every endpoint the admin path answers", async () => {
    const r = await admin<{ openapi: string; paths: Record<string, Record<string, unknown>> }>("GET", "openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    const documented = Object.entries(r.body.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    // Every documented endpoint is answered (not the admin path's 404 for an unknown endpoint).
    for (const endpoint of documented) {
      const [method, p] = endpoint.split(" ") as [string, string];
      const concrete = p.replace("{id}", "x_unknown").replace("{name}", "no-such-snapshot").slice(1);
      const res = await fetch(`${server.origin}/_mediagen/${concrete}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(method === "GET" || method === "DELETE" ? {} : { body: "{" }),
      });
      const text = await res.text();
      expect(text, endpoint).not.toMatch(/No admin endpoint/);
    }
    for (const want of ["GET /requests", "DELETE /requests", "POST /keys", "POST /credits", "POST /webhook-secret", "POST /reset", "POST /faults", "GET /openapi.json"]) {
      expect(documented).toContain(want);
    }
  });
});
