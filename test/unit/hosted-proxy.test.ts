import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { HostedEngine } from "../../src/hosted/hosted-engine.js";
import { isLoopbackHost, proxyFor } from "../../src/hosted/proxy.js";
import { NetworkError } from "../../src/engine/errors.js";
import { connectProxy, fakeServer } from "./hosted-fakes.js";

const KEY = "mg_live_" + "cd34".repeat(16);
const HOST = "api.mediagen.test";

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("loopback hosts", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.3.2.1", true],
    ["localhost", true],
    ["[::1]", true],
    ["api.localhost", true],
    ["10.0.0.1", false],
    ["api.example.com", false],
  ])("%s is loopback: %s", (h, want) => {
    expect(isLoopbackHost(h)).toBe(want);
  });
});

describe("which proxy a base URL goes through", () => {
  const P = "http://proxy.corp:3128";
  const Q = "http://other.corp:8080";
  it.each([
    ["https, only HTTP_PROXY set: direct", "https://api.example.com/api/public/v1", { HTTP_PROXY: P }, undefined],
    ["http, only HTTPS_PROXY set: direct", "http://api.example.com/api/public/v1", { HTTPS_PROXY: P }, undefined],
    ["https takes HTTPS_PROXY", "https://api.example.com/api/public/v1", { HTTPS_PROXY: P, HTTP_PROXY: Q }, P],
    ["http takes HTTP_PROXY", "http://api.example.com/api/public/v1", { HTTPS_PROXY: P, HTTP_PROXY: Q }, Q],
    ["lower case first", "https://api.example.com/", { https_proxy: Q, HTTPS_PROXY: P }, Q],
    ["nothing set", "https://api.example.com/", {}, undefined],
    ["empty value", "https://api.example.com/", { HTTPS_PROXY: "" }, undefined],
    ["scheme-less proxy means http://", "https://api.example.com/", { HTTPS_PROXY: "proxy.corp:3128" }, P],
    ["loopback never proxied", "http://127.0.0.1:4010/api/public/v1", { HTTP_PROXY: P }, undefined],
    ["localhost never proxied", "https://localhost:4010/", { HTTPS_PROXY: P }, undefined],
    ["NO_PROXY exact host", "https://api.example.com/", { HTTPS_PROXY: P, NO_PROXY: "api.example.com" }, undefined],
    ["NO_PROXY domain covers subdomains", "https://api.example.com/", { HTTPS_PROXY: P, NO_PROXY: "example.com" }, undefined],
    ["NO_PROXY leading dot", "https://api.example.com/", { HTTPS_PROXY: P, no_proxy: ".example.com" }, undefined],
    ["NO_PROXY *. prefix", "https://api.example.com/", { HTTPS_PROXY: P, NO_PROXY: "*.example.com" }, undefined],
    ["NO_PROXY does not match a longer name", "https://api.notexample.com/", { HTTPS_PROXY: P, NO_PROXY: "example.com" }, P],
    ["NO_PROXY host:port, same port", "https://api.example.com:8443/", { HTTPS_PROXY: P, NO_PROXY: "api.example.com:8443" }, undefined],
    ["NO_PROXY host:port, other port", "https://api.example.com/", { HTTPS_PROXY: P, NO_PROXY: "api.example.com:8443" }, P],
    ["NO_PROXY wildcard", "https://api.example.com/", { HTTPS_PROXY: P, NO_PROXY: "*" }, undefined],
    ["NO_PROXY IP", "http://10.1.2.3:8080/", { HTTP_PROXY: P, NO_PROXY: "10.1.2.3" }, undefined],
    ["NO_PROXY CIDR", "http://10.1.2.3:8080/", { HTTP_PROXY: P, NO_PROXY: "10.0.0.0/8" }, undefined],
    ["NO_PROXY CIDR miss", "http://11.1.2.3:8080/", { HTTP_PROXY: P, NO_PROXY: "10.0.0.0/8" }, P],
    ["NO_PROXY is case-insensitive, spaces allowed", "https://API.Example.com/", { HTTPS_PROXY: P, NO_PROXY: " foo.test ,  EXAMPLE.COM" }, undefined],
  ])("%s", (_name, base, env, want) => {
    expect(proxyFor(new URL(base), env as NodeJS.ProcessEnv)?.href.replace(/\/$/, "")).toBe(want);
  });

  it("refuses a malformed proxy URL by naming the variable, without its credentials", () => {
    expect(() => proxyFor(new URL("https://api.example.com/"), { HTTPS_PROXY: "http://user:s3cret@[bad" })).toThrow(/HTTPS_PROXY/);
    expect(() => proxyFor(new URL("https://api.example.com/"), { HTTPS_PROXY: "http://user:s3cret@[bad" })).not.toThrow(/s3cret/);
  });
});

describe("the proxy hop", () => {
  it("is bounded by the connect timeout", async () => {
    // The proxy's name never resolves: without a timeout on the hop the request would hang.
    const lookup = ((host: string, opts: unknown, cb: (...a: unknown[]) => void) => {
      if (host === "proxy.mediagen.test") return;
      if ((opts as { all?: boolean }).all) cb(null, [{ address: "127.0.0.1", family: 4 }]);
      else cb(null, "127.0.0.1", 4);
    }) as never;
    const engine = new HostedEngine({
      baseUrl: `https://${HOST}/api/public/v1`,
      apiKey: KEY,
      env: { HTTPS_PROXY: "http://proxy.mediagen.test:3128" },
      lookup,
      connectTimeoutMs: 150,
      retries: 0,
    });
    const started = Date.now();
    try {
      const err = await engine.folderList().catch((e) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toMatch(/UND_ERR_CONNECT_TIMEOUT|timeout/i);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await engine.close();
    }
  });
});

describe.skipIf(!hasOpenssl())("HTTPS_PROXY through a CONNECT proxy", () => {
  let dir: string;
  let cert: string;
  let server: https.Server;
  let seen: { url: string; auth: string | undefined; host: string | undefined }[];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    // A throw-away certificate for a name that exists only inside the proxy's mapping.
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
        "-subj",
        `/CN=${HOST}`,
        "-addext",
        `subjectAltName=DNS:${HOST}`,
      ],
      { stdio: "ignore" },
    );
    cert = fs.readFileSync(path.join(dir, "cert.pem"), "utf8");
    seen = [];
    server = https.createServer({ key: fs.readFileSync(path.join(dir, "key.pem")), cert }, (req, res) => {
      seen.push({ url: req.url!, auth: req.headers.authorization, host: req.headers.host });
      res.writeHead(200, { "content-type": "application/json", "x-ratelimit-limit": "100", "x-ratelimit-remaining": "99", "x-ratelimit-reset": "1" });
      res.end('{"folders":[]}');
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("tunnels HTTPS requests through the proxy named by HTTPS_PROXY", async () => {
    const proxy = await connectProxy((server.address() as AddressInfo).port);
    const engine = new HostedEngine({ baseUrl: `https://${HOST}/api/public/v1`, apiKey: KEY, env: { HTTPS_PROXY: proxy.url }, ca: cert });
    try {
      await expect(engine.folderList()).resolves.toEqual({ folders: [] });
      await expect(engine.folderList({ type: "assets" })).resolves.toEqual({ folders: [] });
      // Tunnels are pooled connections: at most one per connection the pool opened, all to the service.
      expect(proxy.connects.length).toBeGreaterThanOrEqual(1);
      expect(proxy.connects.length).toBeLessThanOrEqual(2);
      expect(new Set(proxy.connects)).toEqual(new Set([`${HOST}:443`]));
      expect(seen.slice(-2).map((s) => s.url)).toEqual(["/api/public/v1/folder/list", "/api/public/v1/folder/list?type=assets"]);
      expect(seen.at(-1)!.auth).toBe(`Bearer ${KEY}`);
      expect(seen.at(-1)!.host).toBe(HOST);
    } finally {
      await engine.close();
      await proxy.close();
    }
  });

  it("goes direct to an https service when only HTTP_PROXY is set", async () => {
    const proxy = await connectProxy((server.address() as AddressInfo).port);
    const port = (server.address() as AddressInfo).port;
    const lookup = ((_host: string, opts: unknown, cb: (...a: unknown[]) => void) => {
      if ((opts as { all?: boolean }).all) cb(null, [{ address: "127.0.0.1", family: 4 }]);
      else cb(null, "127.0.0.1", 4);
    }) as never;
    const engine = new HostedEngine({ baseUrl: `https://${HOST}:${port}/api/public/v1`, apiKey: KEY, env: { HTTP_PROXY: proxy.url }, ca: cert, lookup });
    try {
      await expect(engine.folderList()).resolves.toEqual({ folders: [] });
      expect(proxy.connects).toEqual([]);
      expect(seen.at(-1)!.host).toBe(`${HOST}:${port}`);
    } finally {
      await engine.close();
      await proxy.close();
    }
  });

  it("goes direct for hosts listed in NO_PROXY", async () => {
    const proxy = await connectProxy((server.address() as AddressInfo).port);
    const port = (server.address() as AddressInfo).port;
    // The name is mapped to this machine by the test's resolver, so no DNS query leaves it.
    const lookup = ((_host: string, opts: unknown, cb: (...a: unknown[]) => void) => {
      if ((opts as { all?: boolean }).all) cb(null, [{ address: "127.0.0.1", family: 4 }]);
      else cb(null, "127.0.0.1", 4);
    }) as never;
    const engine = new HostedEngine({
      baseUrl: `https://${HOST}:${port}/api/public/v1`,
      apiKey: KEY,
      env: { HTTPS_PROXY: proxy.url, NO_PROXY: `other.example,${HOST}` },
      ca: cert,
      lookup,
    });
    try {
      await expect(engine.folderList()).resolves.toEqual({ folders: [] });
      expect(proxy.connects).toEqual([]);
      expect(seen.at(-1)!.host).toBe(`${HOST}:${port}`);
    } finally {
      await engine.close();
      await proxy.close();
    }
  });
});

describe("loopback bypass", () => {
  it("never sends requests for 127.0.0.1 or localhost through a proxy", async () => {
    const target = await fakeServer(() => ({ status: 200, body: { folders: [] } }));
    const proxy = await connectProxy(target.port);
    const env = { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NO_PROXY: "corp.example" };
    try {
      for (const base of [target.url, target.url.replace("127.0.0.1", "localhost")]) {
        const engine = new HostedEngine({ baseUrl: base, apiKey: KEY, env });
        await expect(engine.folderList()).resolves.toEqual({ folders: [] });
        await engine.close();
      }
      expect(proxy.connects).toEqual([]);
      expect(target.seen).toHaveLength(2);
    } finally {
      await proxy.close();
      await target.close();
    }
  });

  it("uses HTTP_PROXY for a plain-http service that is not on this machine", async () => {
    const target = await fakeServer(() => ({ status: 200, body: { folders: [] } }));
    const proxy = await connectProxy(target.port);
    const engine = new HostedEngine({ baseUrl: `http://${HOST}:8080/api/public/v1`, apiKey: KEY, env: { HTTP_PROXY: proxy.url } });
    try {
      await expect(engine.folderList()).resolves.toEqual({ folders: [] });
      expect(proxy.connects).toEqual([`${HOST}:8080`]);
      expect(target.seen[0]!.headers.host).toBe(`${HOST}:8080`);
    } finally {
      await engine.close();
      await proxy.close();
      await target.close();
    }
  });
});
