import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MediaFetchError, resolveMedia } from "../../src/media/index.js";
import { tempDir } from "./media-fixtures.js";

let dir: string;
let cacheDir: string;
let server: http.Server;
let base: string;
const hits = new Map<string, number>();
const PAYLOAD = Buffer.alloc(64 * 1024, 7);

beforeAll(async () => {
  dir = tempDir();
  cacheDir = path.join(dir, "cache");
  server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    hits.set(url, (hits.get(url) ?? 0) + 1);
    if (url === "/auth.png") {
      const ok = req.headers.authorization === `Basic ${Buffer.from("user:s3cret").toString("base64")}`;
      res.writeHead(ok ? 200 : 401);
      res.end(ok ? "authorised" : "");
    } else if (url.startsWith("/ok/")) {
      res.writeHead(200, { "content-type": "image/png", "content-length": PAYLOAD.length });
      res.end(PAYLOAD);
    } else if (url === "/big-declared.mp4") {
      res.writeHead(200, { "content-length": 10_000_000 });
      res.end();
    } else if (url === "/big-chunked.mp4") {
      res.writeHead(200, { "content-type": "video/mp4" });
      let sent = 0;
      const push = (): void => {
        while (sent < 2_000_000) {
          sent += 16 * 1024;
          if (!res.write(Buffer.alloc(16 * 1024))) return void res.once("drain", push);
        }
        res.end();
      };
      push();
    } else if (url === "/slow.png") {
      // Headers, then silence: only the timeout can end this.
      res.writeHead(200, { "content-type": "image/png" });
      res.write("x");
    } else if (url === "/boom.png") {
      res.writeHead(500);
      res.end("boom");
    } else {
      res.writeHead(404);
      res.end("no");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

async function reason(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(MediaFetchError);
  return (e as MediaFetchError).reason;
}

describe("resolveMedia", () => {
  it("returns local paths and file:// URLs after checking they exist", async () => {
    const f = path.join(dir, "local file.png");
    fs.writeFileSync(f, "x");
    expect(await resolveMedia(f, { cacheDir })).toBe(f);
    expect(await resolveMedia(pathToFileURL(f).href, { cacheDir })).toBe(f);
    expect(await reason(resolveMedia(path.join(dir, "missing.png"), { cacheDir }))).toBe("not_found");
    expect(await reason(resolveMedia(pathToFileURL(path.join(dir, "missing.png")).href, { cacheDir }))).toBe("not_found");
    expect(await reason(resolveMedia(dir, { cacheDir }))).toBe("unsupported");
  });

  it("fetches http once into the cache (by URL hash, extension kept), then serves it from there", async () => {
    const url = `${base}/ok/picture.png?v=1`;
    const first = await resolveMedia(url, { cacheDir });
    const second = await resolveMedia(url, { cacheDir });
    expect(second).toBe(first);
    expect(path.dirname(first)).toBe(cacheDir);
    expect(first.endsWith(".png")).toBe(true);
    expect(fs.readFileSync(first)).toEqual(PAYLOAD);
    expect(hits.get("/ok/picture.png?v=1")).toBe(1);
    const other = await resolveMedia(`${base}/ok/picture.png?v=2`, { cacheDir });
    expect(other).not.toBe(first);
  });

  it.each([
    ["/missing.png", "not_found"],
    ["/boom.png", "http_error"],
    ["/big-declared.mp4", "too_large"],
    ["/big-chunked.mp4", "too_large"],
  ])("%s fails with %s and caches nothing", async (p, why) => {
    const sub = path.join(dir, `cache-${why}-${p.length}`);
    expect(await reason(resolveMedia(`${base}${p}`, { cacheDir: sub, maxBytes: 1_000_000 }))).toBe(why);
    expect(fs.existsSync(sub) ? fs.readdirSync(sub) : []).toEqual([]);
  });

  it("times out a server that stops sending", async () => {
    const sub = path.join(dir, "cache-timeout");
    const started = Date.now();
    expect(await reason(resolveMedia(`${base}/slow.png`, { cacheDir: sub, timeoutMs: 300 }))).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fs.existsSync(sub) ? fs.readdirSync(sub) : []).toEqual([]);
  });

  it.each(["ftp://example.com/a.png", "data:image/png;base64,AAAA", "javascript:alert(1)", "", "http://[bad"])(
    "rejects %j as unsupported",
    async (u) => {
      expect(await reason(resolveMedia(u, { cacheDir }))).toBe("unsupported");
    },
  );

  it("keeps credentials and query strings out of error messages", async () => {
    const e = (await resolveMedia(`http://user:secret@127.0.0.1:${new URL(base).port}/missing.png?token=abc`, { cacheDir }).catch(
      (x: unknown) => x,
    )) as Error;
    expect(e.message).not.toMatch(/secret|token=abc/);
  });

  it("sends user:password from the URL as Basic auth", async () => {
    const f = await resolveMedia(`http://user:s3cret@127.0.0.1:${new URL(base).port}/auth.png`, { cacheDir });
    expect(fs.readFileSync(f, "utf8")).toBe("authorised");
  });

  it("reports a refused connection as http_error", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await reason(resolveMedia(`http://127.0.0.1:${port}/x.png`, { cacheDir }))).toBe("http_error");
  });
});
