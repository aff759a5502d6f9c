import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localKey, newHome, run, type RunResult } from "./helpers.js";

const GOOD = "mg_live_" + "a1".repeat(32);
const BAD = "mg_live_" + "b2".repeat(32);

/** A stand-in for the hosted service on 127.0.0.1: accepts only GOOD, answers folder list. */
function fakeHosted() {
  const seen: Array<{ method: string; url: string; auth: string | undefined; ua: string | undefined }> = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization, ua: req.headers["user-agent"] });
    const rate = { "X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99", "X-RateLimit-Reset": String(Math.floor(Date.now() / 1000) + 60) };
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== `Bearer ${GOOD}`) {
      res.writeHead(401, rate).end(JSON.stringify({ error: "Invalid API key", details: [{ code: "invalid_api_key", message: "Invalid API key" }] }));
      return;
    }
    if (req.method === "POST" && req.url === "/api/public/v1/folder/create") {
      let raw = "";
      req.on("data", (c: Buffer) => (raw += c.toString()));
      req.on("end", () => {
        const { name } = JSON.parse(raw) as { name: string };
        const status = Number(/^s(\d{3})$/.exec(name)?.[1] ?? 201);
        if (status === 201) {
          res.writeHead(201, rate).end(JSON.stringify({ id: "f".repeat(24), name, type: "assets", parent_folder_id: null, created_at: new Date(0).toISOString() }));
          return;
        }
        const code = { 400: "invalid_value", 402: "insufficient_credits", 403: "plan_required", 404: "not_found", 500: "internal_error" }[status] ?? "x";
        res.writeHead(status, rate).end(JSON.stringify({ error: `status ${status}`, details: [{ code, message: `status ${status}`, field: "name" }] }));
      });
      return;
    }
    if (req.method === "GET" && req.url?.startsWith("/api/public/v1/folder/list")) {
      res.writeHead(200, rate).end(JSON.stringify({ folders: [] }));
      return;
    }
    res.writeHead(404).end(JSON.stringify({ error: "Not found", details: [{ code: "not_found", message: "Not found" }] }));
  });
  return { server, seen };
}

/** The key must never reach a terminal: not in stdout, not in stderr, not even masked in full. */
function expectNoKey(r: RunResult, ...keys: string[]) {
  for (const k of keys) {
    expect(r.stdout).not.toContain(k);
    expect(r.stderr).not.toContain(k);
    expect(r.stdout + r.stderr).not.toContain(k.slice(8, 40));
  }
}

describe("auth on the local target", () => {
  it("login --with-key stores the key 0600, status checks it, logout removes it; the key is never printed", async () => {
    const home = newHome();
    const { api_key } = await localKey("PRO", 10, home);

    const login = await run(["auth", "login", "--with-key", "--json"], { home, input: api_key + "\n" });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.json()).toMatchObject({ profile: "default", target: "local", key: `mg_live_…${api_key.slice(-4)}` });
    expectNoKey(login, api_key);

    const file = path.join(home, "credentials.json");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);

    for (const args of [
      ["auth", "status"],
      ["auth", "status", "--json"],
      ["auth", "status", "--debug"],
      ["folder", "list", "--debug"],
      ["folder", "create", "--name", "d", "--debug", "--json"],
    ]) {
      const r = await run(args, { home });
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expectNoKey(r, api_key);
    }
    const status = (await run(["auth", "status", "--json"], { home })).json<Record<string, unknown>>();
    expect(status).toMatchObject({ profile: "default", target: "local", key_source: "profile", status: "ok", base_url: null });

    const debug = await run(["folder", "list", "--debug"], { home });
    expect(debug.stderr).toMatch(/\[debug .*\] local folderList/);
    expect(debug.stderr).toMatch(/folderList → ok \(\d+ ms\) rate-limit \d+\/100/);

    const revoke = await run(["local", "keys", "revoke", api_key], { home });
    expect(revoke.exitCode, revoke.stderr).toBe(0);
    const invalid = await run(["auth", "status", "--json"], { home });
    expect(invalid.exitCode, invalid.stderr).toBe(3);
    expect(invalid.json()).toMatchObject({ status: "invalid", key_source: "profile" });
    expectNoKey(invalid, api_key);

    const logout = await run(["auth", "logout", "--json"], { home });
    expect(logout.json()).toEqual({ profile: "default", removed: true });
    const fallback = (await run(["auth", "status", "--json"], { home })).json<Record<string, unknown>>();
    expect(fallback).toMatchObject({ key_source: "local-default", status: "ok" });
  });

  it("MEDIAGEN_API_KEY beats the stored key", async () => {
    const home = newHome();
    const a = await localKey("PRO", 1, home);
    const b = await localKey("PRO", 1, home);
    await run(["auth", "login", "--with-key"], { home, input: a.api_key });
    const r = await run(["auth", "status", "--json"], { home, env: { MEDIAGEN_API_KEY: b.api_key } });
    expect(r.json()).toMatchObject({ key_source: "env", key: `mg_live_…${b.api_key.slice(-4)}` });
    expectNoKey(r, a.api_key, b.api_key);
  });

  it.each([
    ["no TTY and no --with-key", ["auth", "login"], undefined],
    ["--no-input", ["auth", "login", "--no-input"], undefined],
    ["a malformed key", ["auth", "login", "--with-key"], "mg_live_1234"],
    ["an empty stdin", ["auth", "login", "--with-key"], ""],
  ])("login with %s → exit 2 at once, nothing stored", async (_n, args, input) => {
    const home = newHome();
    const r = await run([...args, "--json"], { home, ...(input !== undefined ? { input } : {}), timeoutMs: 10_000 });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(fs.existsSync(path.join(home, "credentials.json"))).toBe(false);
    if (input) expect(r.stderr).not.toContain(input);
  });
});

describe("auth and the hosted target (fake service on 127.0.0.1)", () => {
  const { server, seen } = fakeHosted();
  let root: string;
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("hosted target with no key → exit 3 and how to log in", async () => {
    const r = await run(["folder", "list", "--target", "hosted", "--base-url", root, "--json"], { home: newHome() });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain("mediagen auth login");
    expect(r.errorLine()?.code).toBe("not_logged_in");
  });

  it("login --target hosted --base-url stores the profile; calls carry the key; --debug never shows it", async () => {
    const home = newHome();
    const login = await run(["auth", "login", "--with-key", "--profile", "prod", "--target", "hosted", "--base-url", root], { home, input: GOOD });
    expect(login.exitCode, login.stderr).toBe(0);
    expectNoKey(login, GOOD);

    const cfg = await run(["config", "list", "--profile", "prod", "--json"], { home });
    expect(cfg.json()).toEqual(
      expect.arrayContaining([
        { key: "target", value: "hosted", source: "profile" },
        { key: "base_url", value: `${root}/api/public/v1`, source: "profile" },
      ]),
    );

    const before = seen.length;
    const list = await run(["folder", "list", "--json", "--debug"], { home, env: { MEDIAGEN_PROFILE: "prod" } });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json()).toEqual({ folders: [] });
    expectNoKey(list, GOOD);
    expect(list.stderr).toContain("/api/public/v1/folder/list");
    const req = seen.slice(before).find((s) => s.url.startsWith("/api/public/v1/folder/list"));
    expect(req?.auth).toBe(`Bearer ${GOOD}`);
    expect(req?.ua).toMatch(/^mediagen\/\d+\.\d+\.\d+ /);

    const status = await run(["auth", "status", "--profile", "prod", "--json"], { home });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({ profile: "prod", target: "hosted", base_url: `${root}/api/public/v1`, key_source: "profile", status: "ok" });
    expectNoKey(status, GOOD);
  });

  it("a rejected key: status reports invalid and exits 3; a call exits 3", async () => {
    const home = newHome();
    const login = await run(["auth", "login", "--with-key", "--target", "hosted", "--base-url", root], { home, input: BAD });
    expect(login.exitCode, login.stderr).toBe(0);
    const status = await run(["auth", "status", "--json", "--debug"], { home });
    expect(status.exitCode, status.stderr).toBe(3);
    expect(status.json()).toMatchObject({ status: "invalid", key_source: "profile" });
    expectNoKey(status, BAD);
    const call = await run(["folder", "list", "--json"], { home });
    expect(call.exitCode, call.stderr).toBe(3);
    expect(call.errorLine()).toMatchObject({ status: 401, code: "invalid_api_key" });
  });

  it.each([
    ["s400", 2],
    ["s402", 5],
    ["s403", 3],
    ["s404", 4],
    ["s500", 1],
  ])("the service answering %s → exit %i, the error on stderr, stdout empty", async (name, code) => {
    const r = await run(["folder", "create", "--name", name, "--target", "hosted", "--base-url", root, "--json"], {
      home: newHome(),
      env: { MEDIAGEN_API_KEY: GOOD },
    });
    expect(r.exitCode, r.stderr).toBe(code);
    expect(r.stdout).toBe("");
    expect(r.errorLine()).toMatchObject({ status: Number(name.slice(1)), field: "name" });
    expectNoKey(r, GOOD);
  });

  it("a created record passes through unchanged", async () => {
    const r = await run(["folder", "create", "--name", "Clips", "--target", "hosted", "--base-url", `${root}/api/public/v1/`, "--json"], {
      home: newHome(),
      env: { MEDIAGEN_API_KEY: GOOD },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toEqual({ id: "f".repeat(24), name: "Clips", type: "assets", parent_folder_id: null, created_at: new Date(0).toISOString() });
  });

  it("an unreachable service is exit 1 (network), not an auth failure", async () => {
    const r = await run(["folder", "list", "--target", "hosted", "--base-url", "http://127.0.0.1:9", "--json"], {
      home: newHome(),
      env: { MEDIAGEN_API_KEY: GOOD },
    });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.errorLine()?.code).toBe("network_error");
    expectNoKey(r, GOOD);
  });
});

describe("config: flag > env > profile > default", () => {
  let home: string;
  beforeAll(() => {
    home = newHome();
  });

  it("set/get/unset a profile setting; base_url gets the API prefix", async () => {
    expect((await run(["config", "set", "base_url", "https://api.example.com/"], { home })).exitCode).toBe(0);
    const got = await run(["config", "get", "base_url"], { home });
    expect(got.stdout.trim()).toBe("https://api.example.com/api/public/v1");
    expect((await run(["config", "get", "base_url", "--json"], { home })).json()).toEqual({
      profile: "default",
      key: "base_url",
      value: "https://api.example.com/api/public/v1",
    });
    expect((await run(["config", "unset", "base_url"], { home })).exitCode).toBe(0);
    expect((await run(["config", "get", "base_url"], { home })).stdout).toBe("");
    expect(JSON.parse(fs.readFileSync(path.join(home, "config.json"), "utf8"))).toEqual({ profiles: { default: {} } });
  });

  it.each([
    ["an unknown key", ["config", "set", "colour", "blue"]],
    ["a bad target", ["config", "set", "target", "cloud"]],
    ["a bad URL", ["config", "set", "base_url", "nope"]],
  ])("config set with %s → exit 2", async (_n, args) => {
    const r = await run([...args, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.errorLine()?.code).toBe("config_error");
  });

  it("precedence, as reported and as acted on", async () => {
    await run(["config", "set", "target", "hosted"], { home });
    const source = async (args: string[], env: Record<string, string> = {}) => {
      const rows = (await run(["config", "list", "--json", ...args], { home, env })).json<Array<{ key: string; value: string; source: string }>>();
      return rows.find((r) => r.key === "target");
    };
    expect(await source([])).toEqual({ key: "target", value: "hosted", source: "profile" });
    expect(await source([], { MEDIAGEN_TARGET: "local" })).toEqual({ key: "target", value: "local", source: "env" });
    expect(await source(["--target", "hosted"], { MEDIAGEN_TARGET: "local" })).toEqual({ key: "target", value: "hosted", source: "flag" });
    expect(await source(["--profile", "other"])).toEqual({ key: "target", value: "local", source: "default" });

    // Acted on: the profile says hosted (no key → 3); env says local (works); the flag beats env (3 again).
    expect((await run(["folder", "list"], { home })).exitCode).toBe(3);
    const viaEnv = await run(["folder", "list"], { home, env: { MEDIAGEN_TARGET: "local" } });
    expect(viaEnv.exitCode, viaEnv.stderr).toBe(0);
    expect((await run(["folder", "list", "--target", "hosted"], { home, env: { MEDIAGEN_TARGET: "local" } })).exitCode).toBe(3);
    expect((await run(["folder", "list"], { home, env: { MEDIAGEN_PROFILE: "other" } })).exitCode).toBe(0);
  });
});

describe("a broken credentials file or profile never locks the user out", () => {
  it("corrupt credentials.json: commands warn and go on; logout resets it; login replaces it (0600)", async () => {
    const home = newHome();
    const file = path.join(home, "credentials.json");
    fs.writeFileSync(file, "{not json", { mode: 0o600 });

    const list = await run(["folder", "list", "--json"], { home });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json()).toHaveProperty("folders");
    expect(list.stderr).toMatch(/Warning: .*credentials\.json is not valid JSON/);
    const status = await run(["auth", "status", "--json"], { home });
    expect(status.json()).toMatchObject({ key_source: "local-default", status: "ok" });

    const logout = await run(["auth", "logout", "--json"], { home });
    expect(logout.exitCode, logout.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ profiles: {} });

    fs.writeFileSync(file, "{not json", { mode: 0o600 });
    const { api_key } = await localKey("PRO", 5, home);
    const login = await run(["auth", "login", "--with-key", "--json"], { home, input: api_key });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await run(["auth", "status", "--json"], { home })).json()).toMatchObject({ key_source: "profile", status: "ok" });
    expectNoKey(login, api_key);
  });

  it("a bad stored base_url and target: config list shows them with a warning, config set/unset fix them", async () => {
    const home = newHome();
    fs.writeFileSync(path.join(home, "config.json"), JSON.stringify({ profiles: { default: { target: "cloud", base_url: "ftp://x" } } }));

    const list = await run(["config", "list", "--json"], { home });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json()).toEqual(
      expect.arrayContaining([
        { key: "target", value: "cloud", source: "profile" },
        { key: "base_url", value: "ftp://x", source: "profile" },
      ]),
    );
    expect(list.stderr).toMatch(/Warning: profile default: target must be/);
    expect(list.stderr).toMatch(/Warning: profile default: base URL must be http/);

    // Other commands name the problem (exit 2) until it is fixed.
    expect((await run(["folder", "list"], { home })).exitCode).toBe(2);
    for (const args of [
      ["config", "get", "target"],
      ["config", "set", "target", "local"],
    ]) {
      const r = await run(args, { home });
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    // The local target ignores the bad base URL that is still stored.
    const local = await run(["folder", "list", "--json"], { home });
    expect(local.exitCode, local.stderr).toBe(0);
    // The hosted target does not.
    expect((await run(["folder", "list", "--target", "hosted"], { home, env: { MEDIAGEN_API_KEY: GOOD } })).exitCode).toBe(2);
    expect((await run(["config", "unset", "base_url"], { home })).exitCode).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(home, "config.json"), "utf8"))).toEqual({ profiles: { default: { target: "local" } } });
  });
});
