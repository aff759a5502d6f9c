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
