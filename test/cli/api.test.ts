/**
 * `mediagen api <METHOD> <path>` (issue 34): any request with the profile's key and base URL, on both
 * targets. Local: in process, through the local instance's own dispatch. Hosted: against a fake
 * service (a real HTTP server on 127.0.0.1 port 0) for each exit class, and against a real
 * `mediagen serve` on port 0. The body is on stdout, errors included; the exit code is the status's class.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeServer, type FakeServer } from "../unit/hosted-fakes.js";
import { assertBuilt, childEnv, createKey, startServe, type ServeChild } from "../http/serve-child.js";
import { newHome, run } from "./helpers.js";

const KEY = "mg_live_" + "c".repeat(64);

describe("on the local target (in process, the local dispatch)", () => {
  const home = newHome();
  const local = (args: string[], input?: string) => run(["api", ...args], { home, ...(input !== undefined ? { input } : {}) });

  it("GET with -f fields as the query string: the listing filtered", async () => {
    const r = await local(["GET", "/asset/models", "-f", "type=video"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const body = r.json<{ models: { name: string }[]; type?: string }>();
    expect(body.type).toBe("video");
    expect(body.models.length).toBeGreaterThan(0);
  });

  it("a path without its leading slash, and one with the API prefix", async () => {
    const a = await local(["GET", "asset/models"]);
    const b = await local(["GET", "/api/public/v1/asset/models"]);
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    expect(a.json()).toEqual(b.json());
  });

  it("POST with -f and typed -F (null): the record created", async () => {
    const r = await local(["POST", "/folder/create", "-f", "name=Campaign", "-F", "parent_folder_id=null"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ name: "Campaign", type: "assets", parent_folder_id: null });
  });

  it("POST --input - (stdin) and --input file", async () => {
    const a = await local(["POST", "/folder/create", "--input", "-"], JSON.stringify({ name: "From stdin", type: "videos" }));
    expect(a.exitCode, a.stderr).toBe(0);
    expect(a.json()).toMatchObject({ name: "From stdin", type: "videos" });
    const file = path.join(home, "body.json");
    fs.writeFileSync(file, JSON.stringify({ model: "vidA-3", duration: 8 }));
    const b = await local(["POST", "/asset/pricing", "--input", file]);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.json()).toMatchObject({ model: "vidA-3", currency: "credits" });
  });

  it("-F @file sends the file's text", async () => {
    const file = path.join(home, "name.txt");
    fs.writeFileSync(file, "Named from a file\n");
    const r = await local(["POST", "/folder/create", "-F", `name=@${file}`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ name: "Named from a file" });
  });

  it("400: the service's error body on stdout, exit 2", async () => {
    const r = await local(["POST", "/folder/create", "-F", "name=5"]);
    expect(r.exitCode).toBe(2);
    expect(r.json<{ details: { code: string }[] }>().details[0]!.code).toBe("invalid_value");
  });

  it("404: an unknown path or id, exit 4, the body on stdout", async () => {
    const a = await local(["GET", "/no/such/endpoint"]);
    expect(a.exitCode).toBe(4);
    expect(a.json<{ details: { code: string }[] }>().details[0]!.code).toBe("not_found");
    const b = await local(["GET", "/voice/vc_nobody"]);
    expect(b.exitCode).toBe(4);
  });

  it("401 with a key the instance does not know: exit 3", async () => {
    const r = await run(["api", "GET", "/voice/list"], { home, env: { MEDIAGEN_API_KEY: "mg_live_" + "0".repeat(64) } });
    expect(r.exitCode).toBe(3);
    expect(r.json<{ details: { code: string }[] }>().details[0]!.code).toBe("invalid_api_key");
  });

  it("refuses an absolute URL, another method, a malformed --input (exit 2, nothing sent)", async () => {
    for (const args of [
      ["GET", "https://elsewhere.example/api/public/v1/asset/models"],
      ["GET", "//elsewhere.example/x"],
      ["DELETE", "/asset/models"],
    ]) {
      const r = await local(args);
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
    }
    const bad = await local(["POST", "/folder/create", "--input", "-"], "{name:");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--input: stdin is not well-formed JSON/);
  });
});

describe("on the hosted target, against a fake service", () => {
  let s: FakeServer;
  const statuses = new Map<string, { status: number; body: unknown; headers?: Record<string, string> }>();
  beforeAll(async () => {
    s = await fakeServer((_n, seen) => {
      const p = new URL(seen.url, "http://x").pathname.replace(/^\/api\/public\/v1/, "");
      return statuses.get(p) ?? { status: 200, raw: '{"ok":true,  "spacing":"kept"}' };
    });
  });
  afterAll(() => s.close());
  const hosted = (args: string[]) => run(["api", ...args], { home: newHome(), env: { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: s.url, MEDIAGEN_API_KEY: KEY } });
  const err = (code: string) => ({ error: code, details: [{ code, message: code }] });

  it("the body as received off a terminal; GET fields in the query string; the key as Bearer", async () => {
    const r = await hosted(["GET", "/new/endpoint?x=1", "-f", "type=video", "-F", "n=3"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"ok":true,  "spacing":"kept"}\n');
    const seen = s.seen.at(-1)!;
    expect(seen.method).toBe("GET");
    expect(seen.url).toBe("/api/public/v1/new/endpoint?x=1&type=video&n=3");
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("POST fields as a typed JSON body", async () => {
    const r = await hosted(["POST", "/asset/pricing", "-f", "model=vidA-3", "-F", "duration=8", "-F", 'model_settings={"generateAudio":false}', "-F", "flag=true"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(s.seen.at(-1)!.body)).toEqual({ model: "vidA-3", duration: 8, model_settings: { generateAudio: false }, flag: true });
  });

  it.each([
    [400, "invalid_value", 2],
    [401, "invalid_api_key", 3],
    [403, "plan_required", 3],
    [404, "asset_not_found", 4],
    [402, "insufficient_credits", 5],
  ])("HTTP %i: the body on stdout, exit %s → %i", async (status, code, exit) => {
    statuses.set(`/e${status}`, { status, body: err(code) });
    const r = await hosted(["GET", `/e${status}`]);
    expect(r.exitCode).toBe(exit);
    expect(JSON.parse(r.stdout)).toEqual(err(code));
  });

  it("5xx on a POST: exit 1 and sent once (a POST that may have reached the server is not repeated)", async () => {
    statuses.set("/boom", { status: 500, body: err("internal_error") });
    const before = s.seen.length;
    const r = await hosted(["POST", "/boom", "-f", "a=b"]);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual(err("internal_error"));
    expect(s.seen.length - before).toBe(1);
  });

  it("429 after the retries: exit 6", async () => {
    statuses.set("/busy", { status: 429, body: err("rate_limit_exceeded"), headers: { "X-RateLimit-Reset": String(Math.floor(Date.now() / 1000) - 5) } });
    const before = s.seen.length;
    const r = await hosted(["GET", "/busy"]);
    expect(r.exitCode).toBe(6);
    expect(s.seen.length - before).toBe(4);
  });

  it("a request the client-side check refuses says that mediagen api sends it (nothing sent)", async () => {
    const home = newHome();
    const file = path.join(home, "start.json");
    fs.writeFileSync(file, JSON.stringify({ type: "image", model: "imgA-4", prompt: "p", generation_count: 9 }));
    const before = s.seen.length;
    const r = await run(["asset", "start", "--body", file], { home, env: { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: s.url, MEDIAGEN_API_KEY: KEY } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("If the service accepts this, send it with `mediagen api`");
    expect(s.seen.length).toBe(before);
  });

  it("--debug traces the request with the key redacted", async () => {
    const r = await run(["--debug", "api", "GET", "/traced"], { home: newHome(), env: { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: s.url, MEDIAGEN_API_KEY: KEY } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/→ GET http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\/traced/);
    expect(r.stderr).not.toContain(KEY);
    expect(r.stderr).not.toContain("c".repeat(64));
  });
});

describe("on the hosted target, against a real `mediagen serve`", () => {
  let serve: ServeChild;
  let env: Record<string, string>;
  const home = newHome();
  beforeAll(async () => {
    assertBuilt();
    const child = childEnv(home);
    serve = await startServe(child);
    env = { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: serve.baseUrl, MEDIAGEN_API_KEY: await createKey(child, "PRO", 100) };
  }, 30_000);
  afterAll(async () => {
    await serve?.stop();
  });
  const served = (args: string[]) => run(["api", ...args], { home: newHome(), env });

  it("the same answers as the local target: a listing, a creation, a 404", async () => {
    const list = await served(["GET", "/voice/list", "-f", "language=en"]);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json<{ language: string }[]>().every((v) => v.language === "en")).toBe(true);
    const made = await served(["POST", "/folder/create", "-f", "name=Served"]);
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.json()).toMatchObject({ name: "Served" });
    const missing = await served(["GET", "/asset/status/ffffffffffffffffffffffff"]);
    expect(missing.exitCode).toBe(4);
  });
});
