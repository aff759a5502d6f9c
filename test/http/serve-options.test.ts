/** `serve` flags: port, host, public URL, environment; and the address helpers behind them. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { isLoopbackAddress, normalisePublicUrl, originOf, startServer } from "../../src/server/server.js";
import { openLocalInstance } from "../../src/features/local.js";
import type { DispatchOptions } from "../../src/local/service.js";
import { ManualClock } from "../../src/local/clock.js";
import { assertBuilt, childEnv, runCli, startServe, type ServeChild } from "./serve-child.js";
import { runInProcess } from "../helpers/cli.js";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});
function env(extra: Record<string, string> = {}) {
  return childEnv(tempHome(), extra);
}
function tempHome(): string {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  homes.push(h);
  return h;
}
/** `mediagen serve …` in this process, for what ends before it listens (a usage error, --help): no process start-up per case. */
const inProcess = (args: string[], extra: Record<string, string> = {}) => runInProcess(["serve", ...args], { home: tempHome(), env: extra });

/**
 * One `serve --host 0.0.0.0 --public-url …` for the tests that only read what it printed (the base
 * URL, its warnings): its own home, kept until it stops (the homes of `env()` go after each test).
 */
let shared: ServeChild | undefined;
const sharedHome = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
beforeAll(async () => {
  shared = await startServe(childEnv(sharedHome), ["--host", "0.0.0.0", "--public-url", "https://media.example.test/api/public/v1"]);
});
afterAll(async () => {
  if (shared) expect(await shared.stop()).toBe(0);
  fs.rmSync(sharedHome, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

describe("address helpers", () => {
  it.each([
    [{ address: "127.0.0.1", port: 4010, family: "IPv4" }, "http://127.0.0.1:4010"],
    [{ address: "0.0.0.0", port: 80, family: "IPv4" }, "http://127.0.0.1:80"],
    [{ address: "::1", port: 9, family: "IPv6" }, "http://[::1]:9"],
    [{ address: "::", port: 9, family: "IPv6" }, "http://[::1]:9"],
  ])("originOf(%j) = %s", (addr, want) => {
    expect(originOf(addr)).toBe(want);
  });

  it.each([
    ["https://media.example.com", "https://media.example.com"],
    ["https://media.example.com/", "https://media.example.com"],
    ["https://gw.example.com/mediagen/api/public/v1", "https://gw.example.com/mediagen"],
    ["http://10.1.2.3:8080/api/public/v1/", "http://10.1.2.3:8080"],
  ])("normalisePublicUrl(%s) = %s", (input, want) => {
    expect(normalisePublicUrl(input)).toBe(want);
  });

  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.10", false],
  ])("isLoopbackAddress(%s) = %s", (host, want) => {
    expect(isLoopbackAddress(host)).toBe(want);
  });
});

describe("mediagen serve flags", () => {
  it("rejects a bad --port and a bad rate-limit variable with a usage error (exit 2)", async () => {
    const bad = await inProcess(["--port", "http", "--json"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--port/);
    const big = await inProcess(["--port", "70000"]);
    expect(big.exitCode).toBe(2);
    const rate = await inProcess(["--port", "0"], { MEDIAGEN_LOCAL_RATE_LIMIT: "lots" });
    expect(rate.exitCode).toBe(2);
    expect(rate.stderr).toMatch(/MEDIAGEN_LOCAL_RATE_LIMIT/);
  });

  it("says so when the port is taken (exit 1)", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    try {
      const port = (blocker.address() as net.AddressInfo).port;
      const r = await runCli(["serve", "--port", String(port)], env());
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/already in use/);
      expect(r.stdout).toBe("");
    } finally {
      blocker.close();
    }
  });

  it("prints the plain base URL (one line) without --json", async () => {
    const { spawn } = await import("node:child_process");
    const { BIN } = await import("./serve-child.js");
    const proc = spawn(process.execPath, [BIN, "serve", "--port", "0"], { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      proc.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      proc.once("exit", (c) => reject(new Error(`exited ${c}`)));
    });
    expect(line).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1$/);
    const exited = new Promise<number | null>((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("uses --public-url for the base URL it prints", () => {
    expect(shared!.baseUrl).toBe("https://media.example.test/api/public/v1");
  });

  it("warns on stderr when binding a non-loopback address", () => {
    expect(shared!.stderr()).toMatch(/warning: binding 0\.0\.0\.0 exposes the local instance/);
  });

  it("honours MEDIAGEN_LOCAL_RATE_LIMIT and MEDIAGEN_LOCAL_RATE_WINDOW_MS", async () => {
    const e = env({ MEDIAGEN_LOCAL_RATE_LIMIT: "2", MEDIAGEN_LOCAL_RATE_WINDOW_MS: "7200000" });
    const serve = await startServe(e);
    try {
      const created = await runInProcess(["local", "keys", "create", "--plan", "PRO", "--credits", "100", "--json"], { home: e.MEDIAGEN_HOME! });
      const key = created.json<{ api_key: string }>().api_key;
      const statuses: number[] = [];
      let body: unknown;
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${serve.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${key}` } });
        statuses.push(r.status);
        expect(r.headers.get("x-ratelimit-limit")).toBe("2");
        body = await r.json();
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(body).toMatchObject({ error: "Rate limit exceeded. Maximum 2 requests per 7200 seconds." });
    } finally {
      await serve.stop();
    }
  });
});

describe("local files over HTTP", () => {
  it.each([
    ["by default", {}, false],
    ["with allowLocalFiles: true", { allowLocalFiles: true }, true],
    ["with allowLocalFiles: false", { allowLocalFiles: false }, false],
  ])("the server asks the service %s with allowLocalFiles %s", async (_name, extra, want) => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    homes.push(home);
    const instance = openLocalInstance({ home, worker: "none" });
    const key = instance.defaultKey();
    const seen: DispatchOptions[] = [];
    const dispatch = instance.service.dispatch.bind(instance.service);
    instance.service.dispatch = (auth, op, input, opts) => {
      seen.push(opts);
      return dispatch(auth, op, input, opts);
    };
    const server = await startServer({ instance, port: 0, ...extra });
    try {
      const r = await fetch(`${server.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(200);
      expect(seen.map((o) => o.allowLocalFiles)).toEqual([want]);
      // In process (the CLI's local target) the caller owns the files: the engine leaves the default on.
      await instance.engine(key).folderList();
      expect(seen[1]!.allowLocalFiles).toBeUndefined();
    } finally {
      await server.close(500);
      await instance.close();
    }
  });

  it("mediagen serve --allow-local-files says what it allows; without the flag nothing is said", async () => {
    assertBuilt();
    const on = await startServe(env(), ["--allow-local-files"]);
    try {
      expect(on.stderr()).toMatch(/--allow-local-files lets any client holding a key of this instance read files/);
    } finally {
      expect(await on.stop()).toBe(0);
    }
    // Without the flag (the shared serve): nothing said.
    expect(shared!.stderr()).not.toMatch(/allow-local-files/);
    const help = await inProcess(["--help"]);
    expect(help.stdout).toMatch(/--allow-local-files/);
  });
});

describe("the Date header", () => {
  it("tells the instance's time, the clock its rate-limit resets are counted on", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    homes.push(home);
    const clock = new ManualClock(Date.UTC(2030, 5, 1, 8, 0, 17));
    const instance = openLocalInstance({ home, worker: "none", clock });
    const key = instance.defaultKey();
    const server = await startServer({ instance, port: 0 });
    try {
      for (const url of [`${server.baseUrl}/folder/list`, `${server.baseUrl}/no/such/path`]) {
        const r = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
        expect(r.headers.get("date")).toBe("Sat, 01 Jun 2030 08:00:17 GMT");
      }
      const r = await fetch(`${server.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${key}` } });
      expect(Number(r.headers.get("x-ratelimit-reset")) * 1000 - Date.parse(r.headers.get("date")!)).toBe(43_000);
    } finally {
      await server.close(500);
      await instance.close();
    }
  });
});
