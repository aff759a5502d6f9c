/**
 * What a hostile hosted service can make the CLI read: API answers are capped (8 MiB; an endless
 * JSON body is stopped there, not at the request deadline), downloads are capped by the declared
 * Content-Length, a per-file limit and the free space (a declared 10 GB is refused before anything is
 * written; an endless body is stopped at the cap), and nothing half-written is left behind.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { download, MAX_DOWNLOAD_BYTES } from "../../src/cli/download.js";
import { EXIT } from "../../src/cli/types.js";
import { MAX_RESPONSE_BYTES } from "../../src/hosted/client.js";
import { HostedEngine } from "../../src/hosted/hosted-engine.js";
import { UnexpectedResponseError } from "../../src/hosted/response-check.js";

const CHUNK = Buffer.alloc(64 * 1024, "a");
let sent = 0;
let requests = 0;

/** Streams `prefix` then `a`s for as long as the client reads. */
function endless(res: http.ServerResponse, headers: Record<string, string>, prefix = ""): void {
  res.writeHead(200, headers);
  if (prefix) res.write(prefix);
  const pump = (): void => {
    while (!res.destroyed) {
      sent += CHUNK.length;
      if (!res.write(CHUNK)) return void res.once("drain", pump);
    }
  };
  res.on("close", () => res.destroy());
  pump();
}

const server = http.createServer((req, res) => {
  requests++;
  if (req.url!.includes("/folder/list")) return endless(res, { "content-type": "application/json" }, '{"folders":[{"name":"');
  if (req.url === "/huge-declared.mp4") {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(10 * 1024 ** 3) });
    res.write(CHUNK);
    return;
  }
  if (req.url === "/endless.mp4") return endless(res, { "content-type": "video/mp4" });
  if (req.url === "/longer-than-declared.mp4") {
    // Declares 1000 bytes, sends many more on a raw socket (node's server would refuse to).
    res.socket!.write("HTTP/1.1 200 OK\r\ncontent-type: video/mp4\r\ncontent-length: 1000\r\n\r\n");
    res.socket!.write(Buffer.alloc(500_000, "b"));
    return;
  }
  res.writeHead(404).end();
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "mg-caps-"));

async function failure(p: Promise<unknown>): Promise<Error & { exitCode?: number; code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a failure");
}

describe("API answers", () => {
  it("an endless JSON body is stopped at the cap with a clear error, not read until the deadline", async () => {
    sent = 0;
    requests = 0;
    const engine = new HostedEngine({ baseUrl: base, apiKey: "mg_live_" + "ab".repeat(32), env: {}, requestTimeoutMs: 20_000 });
    try {
      const e = await failure(engine.folderList({}));
      expect(e).toBeInstanceOf(UnexpectedResponseError);
      expect(e.message).toMatch(/over the 8 MiB limit/);
    } finally {
      await engine.close();
    }
    expect(MAX_RESPONSE_BYTES).toBe(8 * 1024 * 1024);
    expect(requests).toBe(1);
    expect(sent).toBeLessThan(MAX_RESPONSE_BYTES + 16 * 1024 * 1024);
  });
});

describe("downloads", () => {
  it("refuses a declared 10 GB before writing anything", async () => {
    const dir = tmp();
    const e = await failure(download(`${base}/huge-declared.mp4`, dir, "huge.mp4"));
    expect(e.message).toMatch(/10737418240 bytes.*limit/);
    expect((e as { exitCode?: number }).exitCode).toBe(EXIT.error);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("stops an endless body at the cap and leaves nothing in the directory", async () => {
    const dir = tmp();
    sent = 0;
    const e = await failure(download(`${base}/endless.mp4`, dir, "endless.mp4", { maxBytes: 2 * 1024 * 1024 }));
    expect(e.message).toMatch(/over the .* limit/);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    expect(MAX_DOWNLOAD_BYTES).toBe(2 * 1024 ** 3);
  });

  it("does not keep more than the declared Content-Length", async () => {
    const dir = tmp();
    const saved = await download(`${base}/longer-than-declared.mp4`, dir, "long.mp4");
    expect(fs.statSync(saved).size).toBe(1000);
    expect(fs.readdirSync(dir)).toEqual(["long.mp4"]);
  });
});
