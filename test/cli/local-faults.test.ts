/**
 * Faults on demand (`mediagen local faults`, `serve --faults`, the admin path `/_mediagen/faults`):
 * errors in the spec's exact shape for the next N calls, on `serve` and in process; latency; a
 * dropped connection seen by the hosted client as a network error (and retried for a GET); a job
 * failing at a chosen step with a chosen code, refunded once; webhooks dropped, repeated and delayed
 * as `listen` sees them; rules that expire, fire with a probability, and bad rules refused.
 */
import fs from "node:fs";
import os from "node:os";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import readline from "node:readline";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, NetworkError } from "../../src/engine/errors.js";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";
import { runEnv } from "../helpers/cli.js";
import { childEnv, startServe, type ServeChild } from "../http/serve-child.js";
import { BIN, newHome, run } from "./helpers.js";
import { getTools } from "../../src/media/tools.js";

const SERVICE_UNAVAILABLE = {
  error: "Service unavailable",
  details: [{ code: "service_unavailable", message: "The service is temporarily unavailable" }],
};

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe("fault rules on serve (admin path, CLI, hosted client)", () => {
  let home: string;
  let serve: ServeChild;
  let key: string;
  let origin: string;
  const hosted = (args: string[]) => run(["--target", "hosted", "--base-url", serve.baseUrl, "--json", ...args], { home, env: { MEDIAGEN_API_KEY: key } });
  const get = (p: string) => fetch(`${serve.baseUrl}${p}`, { headers: { authorization: `Bearer ${key}` } });
  const admin = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${origin}/_mediagen/${p}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  beforeAll(async () => {
    home = newHome();
    const rules = path.join(home, "faults.json");
    fs.writeFileSync(rules, JSON.stringify({ rules: [{ op: "voiceGet", action: "error", status: 404, times: 1 }] }));
    // The service's limit, whose headers and 429 body these tests read (the helpers' own is never met).
    serve = await startServe(childEnv(home, { MEDIAGEN_LOCAL_RATE_LIMIT: "100" }), ["--faults", rules]);
    origin = new URL(serve.baseUrl).origin;
    const k = await run(["local", "keys", "create", "--plan", "PRO", "--credits", "100", "--json"], { home });
    key = k.json<{ api_key: string }>().api_key;
  }, 30_000);
  afterAll(async () => {
    await serve?.stop();
  });

  it("serve --faults loads its file: the next voice read answers the spec's 404 NOT_FOUND body, then the rule is spent", async () => {
    const first = await get("/voice/v_missing_anyway");
    expect(first.status).toBe(404);
    expect(await first.json()).toEqual({ error: "Not found (fault rule)", code: "NOT_FOUND" });
    const list = (await (await admin("GET", "faults")).json()) as { rules: { op: string; state: string; hits: number; source: string }[] };
    expect(list.rules.find((r) => r.op === "voiceGet")).toMatchObject({ state: "spent", hits: 1, source: "file" });
  });

  it("an error rule answers the next N calls with the exact body and rate-limit headers, then stops", async () => {
    const added = await admin("POST", "faults", { op: "folderList", action: "error", status: 503, times: 2 });
    expect(added.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const r = await get("/folder/list");
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual(SERVICE_UNAVAILABLE);
      expect(r.headers.get("x-ratelimit-limit")).toBe("100");
      expect(Number(r.headers.get("x-ratelimit-remaining"))).toBeLessThan(100);
      expect(r.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
    }
    const ok = await get("/folder/list");
    expect(ok.status).toBe(200);
  });

  it("a 429 rule answers the hosted body with remaining 0 and the window's reset", async () => {
    await admin("POST", "faults", { op: "assetModels", action: "error", status: 429, times: 1 });
    const r = await get("/asset/models");
    expect(r.status).toBe(429);
    expect(await r.json()).toEqual({
      error: "Rate limit exceeded. Maximum 100 requests per minute.",
      details: [{ code: "rate_limit_exceeded", message: "Rate limit exceeded. Maximum 100 requests per minute." }],
    });
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(r.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000 - 1);
  });

  it("402, 403 plan_required and 401 keep their own shapes", async () => {
    await admin("POST", "faults", [
      { op: "generationStart", action: "error", code: "INSUFFICIENT_CREDITS", times: 1 },
      { op: "assetPricing", action: "error", status: 403, times: 1 },
      { op: "voiceList", action: "error", status: 401, times: 1 },
    ]);
    const gen = await fetch(`${serve.baseUrl}/generation/start`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "cats", duration: 30 }),
    });
    expect(gen.status).toBe(402);
    expect(await gen.json()).toEqual({ error: "Insufficient credits", code: "INSUFFICIENT_CREDITS", required: 101, available: 100 });
    const price = await fetch(`${serve.baseUrl}/asset/pricing`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "imgA-4-fast" }),
    });
    expect(price.status).toBe(403);
    expect(((await price.json()) as { details: { code: string }[] }).details[0]!.code).toBe("plan_required");
    const voices = await get("/voice/list");
    expect(voices.status).toBe(401);
    expect(voices.headers.get("x-ratelimit-limit")).toBeNull();
    expect(((await voices.json()) as { details: { code: string }[] }).details[0]!.code).toBe("invalid_api_key");
  });

  it("a latency rule delays the answer by at least its time", async () => {
    await admin("POST", "faults", { op: "folderList", action: "latency", ms: "400ms", times: 1 });
    const t0 = performance.now();
    expect((await get("/folder/list")).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(400);
  });

  it("a connection reset on a GET is retried by the hosted client (exit 0); past its retries it is a network error (exit 1)", async () => {
    const once = await run(["local", "faults", "add", "folderList", "reset", "--times", "1", "--json"], { home });
    expect(once.exitCode, once.stderr).toBe(0);
    const retried = await hosted(["folder", "list"]);
    expect(retried.exitCode, retried.stderr).toBe(0);
    const id = once.json<{ id: string }[]>()[0]!.id;
    const after = (await run(["local", "faults", "list", "--json"], { home })).json<{ id: string; hits: number; state: string }[]>();
    expect(after.find((r) => r.id === id)).toMatchObject({ hits: 1, state: "spent" });

    await run(["local", "faults", "add", "folderList", "reset", "--times", "10"], { home });
    const failed = await hosted(["folder", "list"]);
    expect(failed.exitCode).toBe(1);
    expect(failed.errorLine()?.code).toBe("network_error");
    await run(["local", "faults", "clear"], { home });
  });

  it("an empty response to a POST is a network error, not retried (the rule fired once)", async () => {
    await run(["local", "faults", "add", "folderCreate", "empty", "--times", "5"], { home });
    const r = await hosted(["folder", "create", "--name", "never"]);
    expect(r.exitCode).toBe(1);
    expect(r.errorLine()?.code).toBe("network_error");
    const rules = (await run(["local", "faults", "list", "--json"], { home })).json<{ op: string; hits: number }[]>();
    expect(rules.find((x) => x.op === "folderCreate")?.hits).toBe(1);
    await run(["local", "faults", "clear"], { home });
  });

  it("the admin path refuses web pages of other sites and other hosts, and bad rules with 400", async () => {
    const fromPage = await admin("GET", "faults", undefined, { origin: "http://evil.example" });
    expect(fromPage.status).toBe(403);
    const sandboxed = await admin("POST", "faults", { op: "folderList", action: "reset" }, { origin: "null", "content-type": "text/plain" });
    expect(sandboxed.status).toBe(403);
    // A body must say it is JSON: a form or text/plain type (what a page sends without a preflight) is refused.
    const curlLike = await admin("POST", "faults", { op: "folderList", action: "latency", ms: 1, times: 1 }, { "content-type": "application/x-www-form-urlencoded" });
    expect(curlLike.status).toBe(415);
    // A page of another local origin (a loopback host, another port) is refused, even with its token-less JSON.
    const otherLocal = await admin("POST", "faults", { op: "folderList", action: "reset" }, { origin: "http://localhost:9999" });
    expect(otherLocal.status).toBe(403);
    const plainText = await admin("POST", "faults", { op: "folderList", action: "reset" }, { "content-type": "text/plain" });
    expect(plainText.status).toBe(415);
    // The server's own origin, with JSON, is answered.
    const own = await admin("POST", "faults", { op: "folderList", action: "latency", ms: 1, times: 1 }, { origin });
    expect(own.status).toBe(201);
    expect((await admin("POST", "clock", { advance: 1e300 })).status).toBe(400);
    expect((await admin("GET", "clock")).status).toBe(200);
    const rebound = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${origin}/_mediagen/faults`);
      http
        .get({ host: u.hostname, port: u.port, path: u.pathname, headers: { host: "evil.example" } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on("error", reject);
    });
    expect(rebound).toBe(403);
    const bad = await admin("POST", "faults", { op: "assetStatus", action: "error", code: "VIDEO_NOT_FOUND" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/assetStatus never answers VIDEO_NOT_FOUND/);
    const unknown = await admin("GET", "nothing");
    expect(unknown.status).toBe(404);
    const escaped = await admin("DELETE", "faults/%E0%A4%A");
    expect(escaped.status).toBe(400);
    const noRule = await admin("DELETE", "faults/flt_nope");
    expect(noRule.status).toBe(404);
    // The API key opens nothing there, and the API prefix has no admin route.
    const viaApi = await get("/_mediagen/faults");
    expect(viaApi.status).toBe(404);
    const removed = await admin("DELETE", "faults");
    expect(removed.status).toBe(200);
  });
});

describe("fault rules in process", () => {
  let t: TestInstance;
  beforeAll(() => {
    t = openTestInstance();
  });
  afterAll(async () => {
    await t.close();
  });

  it("the next N calls fail with the same body as on serve, then the operation answers again", async () => {
    t.faults.add({ op: "folderList", action: "error", status: 503, times: 2 });
    for (let i = 0; i < 2; i++) {
      const e = await apiError(t.api.folderList({}));
      expect(e.status).toBe(503);
      expect(e.body).toEqual(SERVICE_UNAVAILABLE);
      expect(e.headers["x-ratelimit-limit"]).toBe("100");
    }
    await expect(t.api.folderList({})).resolves.toBeDefined();
  });

  it("a reset is the hosted client's network error; a GET is retried, a POST is not", async () => {
    t.faults.add({ op: "folderList", action: "reset", times: 1 });
    await expect(t.api.folderList({})).resolves.toBeDefined();
    t.faults.add({ op: "folderCreate", action: "reset", times: 3 });
    const e = await t.api.folderCreate({ name: "x" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).message).toMatch(/ECONNRESET.*may have reached the service/);
    expect(t.faults.list().find((r) => r.op === "folderCreate")?.remaining).toBe(2);
    t.faults.clear();
  });

  it("the CLI in process sees a reset as a network error (exit 1)", async () => {
    const home = newHome();
    await run(["local", "faults", "add", "voiceList", "reset", "--times", "9"], { home });
    const r = await run(["voice", "list", "--json"], { home });
    expect(r.exitCode).toBe(1);
    expect(r.errorLine()?.code).toBe("network_error");
  });

  it("probability, space and key filters and expiry decide whether a rule fires", async () => {
    const other = t.createSpace({ name: "other", plan: "PRO", credits: 5 });
    const keyId = t.listKeys(other.space.id)[0]!.id;
    t.faults.add({ op: "folderList", action: "error", status: 503, key: keyId, times: 1 });
    await expect(t.api.folderList({})).resolves.toBeDefined();
    expect((await apiError(t.engine(other.api_key).folderList({}))).status).toBe(503);
    t.faults.clear();
    t.faults.add({ op: "folderList", action: "error", status: 500, space: other.space.id });
    await expect(t.api.folderList({})).resolves.toBeDefined();
    const e = await apiError(t.engine(other.api_key).folderList({}));
    expect(e.status).toBe(500);
    t.faults.clear();

    t.faults.random = () => 0.9;
    t.faults.add({ op: "folderList", action: "error", status: 500, probability: 0.5 });
    await expect(t.api.folderList({})).resolves.toBeDefined();
    t.faults.random = () => 0.1;
    expect((await apiError(t.api.folderList({}))).status).toBe(500);
    t.faults.random = Math.random;
    t.faults.clear();

    t.faults.add({ op: "folderList", action: "error", status: 500, expires_at: new Date(Date.now() - 1000).toISOString() });
    await expect(t.api.folderList({})).resolves.toBeDefined();
    expect(t.faults.list()[0]!.state).toBe("expired");
    t.faults.clear();
  });

  it("a job rule fails the generation at the chosen step with the chosen code, in status and webhook, refunded once", async () => {
    const hooks: unknown[] = [];
    const receiver = http.createServer((req, res) => {
      let b = "";
      req.on("data", (c: Buffer) => (b += c.toString()));
      req.on("end", () => {
        hooks.push(JSON.parse(b));
        res.end("ok");
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      t.faults.add({ op: "generationStart", action: "job_fail", code: "VOICE_GENERATION_FAILED", step: "VOICE_GENERATION", times: 1 });
      const space = t.listSpaces().find((s) => s.is_default)!;
      const before = space.credits;
      const started = (await t.api.generationStart({ prompt: "cats on a boat", duration: 30, webhook_url: url })) as { job_id: string; estimated_credits: number };
      const status = await waitFor(
        async () => {
          const s = (await t.api.generationStatus({ job_id: started.job_id })) as { status: string };
          return s.status === "failed" ? s : undefined;
        },
        20_000,
        150,
      );
      expect(status).toMatchObject({ status: "failed", current_step: "VOICE_GENERATION", error: { code: "VOICE_GENERATION_FAILED" } });
      await waitFor(() => hooks.length >= 1, 20_000, 150);
      expect(hooks[0]).toMatchObject({ task: "video_generate", job_id: started.job_id, status: "failed", error: { code: "VOICE_GENERATION_FAILED" } });
      const rows = t.ledgerEntries(space.id).filter((e) => e.ref === started.job_id);
      expect(rows.map((r) => r.kind).sort()).toEqual(["debit", "refund"]);
      expect(t.getSpace(space.id)!.credits).toBe(before);
      expect(t.verifyLedger().every((v) => v.ok)).toBe(true);
      // The next start is not faulted (times 1).
      const next = (await t.api.generationStart({ prompt: "dogs", duration: 10 }, { simulate: "fail" })) as { job_id: string };
      expect(t.db.prepare("SELECT simulate FROM generations WHERE id = ?").get(next.job_id)).toEqual({ simulate: "fail" });
    } finally {
      receiver.close();
    }
  }, 60_000);

  it("a job_fail rule fails a prompt-based avatar look with its code, and leaves an image-based create (no job) alone", async () => {
    t.faults.clear();
    t.faults.add({ op: "avatarCreate", action: "job_fail", code: "LOOK_GENERATION_FAILED", times: 2 });
    const created = (await t.api.avatarCreate({ prompt: "a baker in a small shop" })) as { avatar_id: string; look_id: string };
    const failed = await waitFor(
      async () => {
        const s = (await t.api.avatarStatus({ avatar_id: created.avatar_id, look_id: created.look_id })) as { status: string };
        return s.status === "failed" ? s : undefined;
      },
      20_000,
      150,
    );
    expect(failed).toMatchObject({ status: "failed", error: { code: "LOOK_GENERATION_FAILED" } });
    const png = path.join(t.home, "face.png");
    execFileSync((await getTools()).ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "color=c=orange:s=64x64", "-frames:v", "1", "-y", png]);
    const fromImages = (await t.api.avatarCreate({ images: [png] })) as { look_id: string };
    expect(fromImages.look_id).toBeTruthy();
    // The image-based create started no job: the rule is spent only by the look it failed.
    expect(t.faults.list()[0]).toMatchObject({ hits: 1, remaining: 1, state: "active" });
    t.faults.clear();
  }, 30_000);

  it("a progress_backwards rule lowers the progress a status read reports while the job runs", async () => {
    t.faults.add({ op: "generationStart", action: "job_stall", ms: "5s", times: 1 });
    const started = (await t.api.generationStart({ prompt: "slow", duration: 10 }, { simulate: "fail" })) as { job_id: string };
    t.db.prepare("UPDATE generations SET status = 'processing', progress_step = 60, current_step = 'VOICE_GENERATION' WHERE id = ?").run(started.job_id);
    t.faults.add({ op: "generationStatus", action: "progress_backwards", by: 40, times: 1 });
    const back = (await t.api.generationStatus({ job_id: started.job_id })) as { progress_step: number };
    expect(back.progress_step).toBe(20);
    const again = (await t.api.generationStatus({ job_id: started.job_id })) as { progress_step: number };
    expect(again.progress_step).toBe(60);
  });

  it("a job_stall rule holds the job before it starts", async () => {
    t.faults.clear();
    // A stall of 600 ms: long against the job's own time (a failure simulated at once), short for the suite.
    t.faults.add({ op: "assetStart", action: "job_stall", ms: "600ms", times: 1 });
    const t0 = Date.now();
    const a = (await t.api.assetStart({ type: "image", model: "imgA-4-fast", prompt: "stalled" }, { simulate: "fail" })) as { asset_ids: string[] };
    await waitFor(async () => ((await t.api.assetStatus({ assetId: a.asset_ids[0]! })) as { status: string }).status === "failed", 20_000, 150);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
  }, 30_000);

  it("bad rules are refused with the reason, and the CLI exits 2", async () => {
    expect(() => t.faults.add({ op: "nope", action: "error", status: 500 })).toThrow(/rules match the operations/);
    expect(() => t.faults.add({ op: "assetStatus", action: "error", status: 402 })).toThrow(/answers no 402/);
    expect(() => t.faults.add({ op: "exportStart", action: "job_fail", code: "GENERATION_FAILED" })).toThrow(/EXPORT_FAILED/);
    expect(() => t.faults.add({ op: "generationStart", action: "job_fail", step: "NOPE" })).toThrow(/step must be one of/);
    expect(() => t.faults.add({ op: "folderList", action: "latency", ms: "soon" })).toThrow(/not a duration/);
    expect(() => t.faults.add({ op: "folderList", action: "error", status: 500, probability: 2 })).toThrow(/probability/);
    const r = await run(["local", "faults", "add", "folderList", "explode", "--json"], { home: newHome() });
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()?.message).toMatch(/action must be one of/);
  });
});

describe("webhook faults as `listen` sees them", () => {
  let t: TestInstance;
  let listener: ChildProcess;
  let url: string;
  const events: { body: Record<string, unknown>; at: number }[] = [];

  beforeAll(async () => {
    t = openTestInstance();
    listener = spawn(process.execPath, [BIN, "listen", "--json"], { env: runEnv(t.home), stdio: ["ignore", "pipe", "pipe"] });
    readline
      .createInterface({ input: listener.stdout! })
      .on("line", (l) => events.push({ body: (JSON.parse(l) as { body: Record<string, unknown> }).body, at: Date.now() }));
    url = await new Promise<string>((resolve) => {
      readline.createInterface({ input: listener.stderr! }).on("line", (l) => {
        if (l.startsWith('{"event":"listening"')) resolve((JSON.parse(l) as { url: string }).url);
      });
    });
  }, 30_000);
  afterAll(async () => {
    listener?.kill("SIGTERM");
    await t.close();
  });

  async function failedAsset(): Promise<{ id: string; finishedAt: number }> {
    const a = (await t.api.assetStart({ type: "image", model: "imgA-4-fast", prompt: "hook", webhook_url: url }, { simulate: "fail" })) as { asset_ids: string[] };
    const id = a.asset_ids[0]!;
    await waitFor(async () => ((await t.api.assetStatus({ assetId: id })) as { status: string }).status === "failed", 20_000, 150);
    return { id, finishedAt: Date.now() };
  }
  const seen = (id: string) => events.filter((e) => e.body.asset_id === id);

  it("drop: the delivery is recorded failed and never arrives; the next one does", async () => {
    t.faults.add({ op: "asset_generation", action: "webhook_drop", times: 1 });
    const dropped = await failedAsset();
    const kept = await failedAsset();
    await waitFor(() => seen(kept.id).length === 1, 20_000, 150);
    expect(seen(dropped.id)).toHaveLength(0);
    const d = t.webhookDeliveries().find((x) => (x.payload as { asset_id?: string }).asset_id === dropped.id)!;
    expect(d).toMatchObject({ status: "failed", last_error: "dropped by a fault rule", attempts: 0 });
  }, 60_000);

  it("duplicate: the same body arrives twice", async () => {
    t.faults.add({ op: "asset_generation", action: "webhook_duplicate", times: 1 });
    const a = await failedAsset();
    await waitFor(() => seen(a.id).length === 2, 20_000, 150);
    expect(seen(a.id)[0]!.body).toEqual(seen(a.id)[1]!.body);
  }, 60_000);

  it("delay: the delivery arrives no sooner than the delay after the job ended", async () => {
    // 800 ms (1500 before): the same rule; the arrival is checked against it less the same 500 ms of poll lag.
    t.faults.add({ op: "*", action: "webhook_delay", ms: "800ms", times: 1 });
    const a = await failedAsset();
    await waitFor(() => seen(a.id).length === 1, 20_000, 150);
    expect(seen(a.id)[0]!.at - a.finishedAt).toBeGreaterThanOrEqual(300);
    const d = t.webhookDeliveries().find((x) => (x.payload as { asset_id?: string }).asset_id === a.id)!;
    expect(Date.parse(d.attempt_log[0]!.at) - Date.parse(d.created_at)).toBeGreaterThanOrEqual(800);
  }, 60_000);

  it("reorder: a held delivery arrives after the next one to the same URL", async () => {
    t.faults.add({ op: "asset_generation", action: "webhook_reorder", ms: "20s", times: 1 });
    const first = await failedAsset();
    const second = await failedAsset();
    await waitFor(() => seen(first.id).length === 1 && seen(second.id).length === 1, 20_000, 150);
    expect(events.indexOf(seen(second.id)[0]!)).toBeLessThan(events.indexOf(seen(first.id)[0]!));
  }, 60_000);
});

describe("the admin path from another host", () => {
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

  it.skipIf(!address)(
    "answers a non-loopback client only with --admin-token, never with an API key",
    async () => {
      const home = newHome();
      const serve = await startServe(childEnv(home), ["--host", "0.0.0.0", "--admin-token", "s3cret-token"]);
      try {
        const port = new URL(serve.baseUrl).port;
        const url = `http://${address}:${port}/_mediagen/faults`;
        const key = (await run(["local", "keys", "create", "--plan", "PRO", "--credits", "1", "--json"], { home })).json<{ api_key: string }>().api_key;
        const withKey = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
        expect(withKey.status).toBe(403);
        expect(JSON.stringify(await withKey.json())).toMatch(/X-Mediagen-Admin-Token/);
        const wrong = await fetch(url, { headers: { "x-mediagen-admin-token": "guess" } });
        expect(wrong.status).toBe(403);
        const right = await fetch(url, { headers: { "x-mediagen-admin-token": "s3cret-token" } });
        expect(right.status).toBe(200);
      } finally {
        await serve.stop();
      }
    },
    30_000,
  );
});
