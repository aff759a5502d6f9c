/**
 * A result link from a public hosted service may not lead this machine to its own loopback or
 * private network (any spelling of the address, or a name resolving there); from a service that is
 * itself on a private address (a `mediagen serve`), or on the local target, such links are fine.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { download } from "../../src/cli/download.js";
import { isPrivateAddress } from "../../src/cli/result-address.js";
import { connectProxy } from "./hosted-fakes.js";
import { EXIT } from "../../src/cli/types.js";

const server = http.createServer((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end("internal secret"));
let port = 0;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const PUBLIC_SERVICE = "https://93.184.216.34/api/public/v1";
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "mg-res-"));

describe("result links from a public service", () => {
  it.each([
    () => `http://127.0.0.1:${port}/a.png`,
    () => `http://2130706433:${port}/a.png`,
    () => `http://0x7f000001:${port}/a.png`,
    () => `http://[::ffff:127.0.0.1]:${port}/a.png`,
    () => `http://localhost:${port}/a.png`,
  ])("refuses %s, saving nothing", async (make) => {
    const dir = tmp();
    let err: (Error & { exitCode?: number; code?: string }) | undefined;
    try {
      await download(make(), dir, "a.png", { serviceBaseUrl: PUBLIC_SERVICE });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toMatch(/loopback or private address/);
    expect(err?.exitCode).toBe(EXIT.error);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("takes them from a service on a private address, and on the local target", async () => {
    const a = await download(`http://127.0.0.1:${port}/a.png`, tmp(), "a.png", { serviceBaseUrl: `http://127.0.0.1:4010/api/public/v1` });
    expect(fs.readFileSync(a, "utf8")).toBe("internal secret");
    const b = await download(`http://127.0.0.1:${port}/a.png`, tmp(), "a.png", {});
    expect(fs.readFileSync(b, "utf8")).toBe("internal secret");
  });
});

describe("address spellings", () => {
  it.each(["2002:7f00:1::1", "2002:c0a8:101::", "::7f00:1", "fec0::1", "100::1", "::ffff:10.0.0.1"])("%s is private", (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });
  it.each(["2002:5db8:d822::1", "::ffff:93.184.216.34", "2606:4700::1111", "93.184.216.34"])("%s is public", (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });
});

describe("result links from a public service, through the user's proxy", () => {
  // A "CDN" behind the proxy: the proxy tunnels every name to this server.
  const cdn = http.createServer((req, res) => {
    if (req.url === "/moved") return res.writeHead(302, { location: `http://127.0.0.1:${port}/a.png` }).end();
    if (req.url === "/moved-by-name") return res.writeHead(302, { location: `http://localhost:${port}/a.png` }).end();
    res.writeHead(200, { "content-type": "image/png" }).end("public picture");
  });
  let proxy: Awaited<ReturnType<typeof connectProxy>>;
  beforeAll(async () => {
    await new Promise<void>((r) => cdn.listen(0, "127.0.0.1", r));
    proxy = await connectProxy((cdn.address() as AddressInfo).port);
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise<void>((r) => cdn.close(() => r()));
  });
  const env = () => ({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url });

  it("saves a public link through the proxy (a name this machine cannot resolve is the proxy's to find)", async () => {
    const saved = await download("http://files.cdn.invalid/a.png", tmp(), "a.png", { serviceBaseUrl: PUBLIC_SERVICE, env: env() });
    expect(fs.readFileSync(saved, "utf8")).toBe("public picture");
    expect(proxy.connects).toContain("files.cdn.invalid:80");
  });

  it.each(["/moved", "/moved-by-name"])("still refuses a redirect (%s) to this machine, saving nothing", async (where) => {
    const dir = tmp();
    const err = await download(`http://files.cdn.invalid${where}`, dir, "a.png", { serviceBaseUrl: PUBLIC_SERVICE, env: env() }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/loopback or private address/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("refuses a name that resolves here to a private address before the proxy sees it", async () => {
    const dir = tmp();
    const before = proxy.connects.length;
    const err = await download(`http://localhost:${port}/a.png`, dir, "a.png", { serviceBaseUrl: PUBLIC_SERVICE, env: { ...env(), NO_PROXY: "" } }).catch(
      (e: Error) => e,
    );
    expect((err as Error).message).toMatch(/loopback or private address/);
    expect(proxy.connects.length).toBe(before);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
