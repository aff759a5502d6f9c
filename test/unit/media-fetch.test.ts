import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { requestDeadline } from "../../src/media/fetch.js";
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
    } else if (url === "/to-other-loopback.png") {
      res.writeHead(302, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/ok/moved.png` });
      res.end();
    } else if (url === "/to-same.png") {
      res.writeHead(302, { location: "/ok/same.png" });
      res.end();
    } else if (url === "/echo-auth.png") {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(req.headers.authorization ?? "none");
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
    expect(await resolveMedia(f, { cacheDir, allowPrivateNetwork: true })).toBe(f);
    expect(await resolveMedia(pathToFileURL(f).href, { cacheDir, allowPrivateNetwork: true })).toBe(f);
    expect(await reason(resolveMedia(path.join(dir, "missing.png"), { cacheDir, allowPrivateNetwork: true }))).toBe("not_found");
    expect(await reason(resolveMedia(pathToFileURL(path.join(dir, "missing.png")).href, { cacheDir, allowPrivateNetwork: true }))).toBe("not_found");
    expect(await reason(resolveMedia(dir, { cacheDir, allowPrivateNetwork: true }))).toBe("unsupported");
  });

  it("fetches http once into the cache (by URL hash, extension kept), then serves it from there", async () => {
    const url = `${base}/ok/picture.png?v=1`;
    const first = await resolveMedia(url, { cacheDir, allowPrivateNetwork: true });
    const second = await resolveMedia(url, { cacheDir, allowPrivateNetwork: true });
    expect(second).toBe(first);
    expect(path.dirname(first)).toBe(cacheDir);
    expect(first.endsWith(".png")).toBe(true);
    expect(fs.readFileSync(first)).toEqual(PAYLOAD);
    expect(hits.get("/ok/picture.png?v=1")).toBe(1);
    const other = await resolveMedia(`${base}/ok/picture.png?v=2`, { cacheDir, allowPrivateNetwork: true });
    expect(other).not.toBe(first);
  });

  it.each([
    ["/missing.png", "not_found"],
    ["/boom.png", "http_error"],
    ["/big-declared.mp4", "too_large"],
    ["/big-chunked.mp4", "too_large"],
  ])("%s fails with %s and caches nothing", async (p, why) => {
    const sub = path.join(dir, `cache-${why}-${p.length}`);
    expect(await reason(resolveMedia(`${base}${p}`, { cacheDir: sub, maxBytes: 1_000_000, allowPrivateNetwork: true }))).toBe(why);
    expect(fs.existsSync(sub) ? fs.readdirSync(sub) : []).toEqual([]);
  });

  it("times out a server that stops sending", async () => {
    const sub = path.join(dir, "cache-timeout");
    const started = Date.now();
    expect(await reason(resolveMedia(`${base}/slow.png`, { cacheDir: sub, timeoutMs: 300, allowPrivateNetwork: true }))).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fs.existsSync(sub) ? fs.readdirSync(sub) : []).toEqual([]);
  });

  it.each(["ftp://example.com/a.png", "data:image/png;base64,AAAA", "javascript:alert(1)", "", "http://[bad"])("rejects %j as unsupported", async (u) => {
    expect(await reason(resolveMedia(u, { cacheDir, allowPrivateNetwork: true }))).toBe("unsupported");
  });

  it("keeps credentials and query strings out of error messages", async () => {
    const e = (await resolveMedia(`http://user:secret@127.0.0.1:${new URL(base).port}/missing.png?token=abc`, { cacheDir, allowPrivateNetwork: true }).catch(
      (x: unknown) => x,
    )) as Error;
    expect(e.message).not.toMatch(/secret|token=abc/);
  });

  it("sends user:password from the URL as Basic auth", async () => {
    const f = await resolveMedia(`http://user:s3cret@127.0.0.1:${new URL(base).port}/auth.png`, { cacheDir, allowPrivateNetwork: true });
    expect(fs.readFileSync(f, "utf8")).toBe("authorised");
  });

  it("reports a refused connection as http_error", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await reason(resolveMedia(`http://127.0.0.1:${port}/x.png`, { cacheDir, allowPrivateNetwork: true }))).toBe("http_error");
  });
});

describe("resolveMedia on a remote caller's behalf (allowPrivateNetwork: false)", () => {
  const port = () => new URL(base).port;
  /** Lets 127.0.0.1 stand in for "the public internet", so redirects into other addresses can be tested. */
  const onlyFirstLoopback = (ip: string) => ip === "127.0.0.1";

  it("refuses loopback, private and link-local addresses in any spelling, before connecting", async () => {
    const before = hits.get("/ok/never.png") ?? 0;
    for (const host of ["127.0.0.1", "2130706433", "0x7f000001", "127.1", "[::1]", "localhost", "169.254.169.254", "10.0.0.1", "[::ffff:127.0.0.1]"]) {
      const e = await resolveMedia(`http://${host}:${port()}/ok/never.png`, { cacheDir, allowPrivateNetwork: false, timeoutMs: 2000 }).catch((x: unknown) => x);
      expect([host, e instanceof MediaFetchError && e.reason]).toEqual([host, "unreachable"]);
    }
    expect(hits.get("/ok/never.png") ?? 0).toBe(before);
  });

  it("checks every redirect again: an allowed host redirecting into a refused address is refused", async () => {
    const e = await resolveMedia(`${base}/to-other-loopback.png`, { cacheDir, allowPrivateNetwork: false, addressPolicy: onlyFirstLoopback }).catch((x: unknown) => x);
    expect((e as MediaFetchError).reason).toBe("unreachable");
    expect(hits.get("/ok/moved.png") ?? 0).toBe(0);
    // A redirect that stays within what is allowed is followed.
    const f = await resolveMedia(`${base}/to-same.png`, { cacheDir, allowPrivateNetwork: false, addressPolicy: onlyFirstLoopback });
    expect(fs.readFileSync(f)).toEqual(PAYLOAD);
  });

  it("gives one message for every refused or failed fetch, naming no port state", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const messages = new Set<string>();
    for (const [url, policy] of [
      [`http://127.0.0.1:${closedPort}/x.png`, onlyFirstLoopback], // refused connection
      [`${base}/boom.png`, onlyFirstLoopback], // HTTP 500
      [`${base}/missing.png`, onlyFirstLoopback], // HTTP 404
      [`http://10.0.0.1:${closedPort}/x.png`, undefined], // refused address
    ] as const) {
      const e = (await resolveMedia(url, { cacheDir, allowPrivateNetwork: false, ...(policy ? { addressPolicy: policy } : {}) }).catch(
        (x: unknown) => x,
      )) as MediaFetchError;
      expect(e.reason).toBe("unreachable");
      messages.add(e.message.replace(/https?:\/\/\S+/, "URL"));
    }
    expect(messages.size).toBe(1);
  });

  it("never sends the URL's credentials on a remote caller's behalf", async () => {
    const f = await resolveMedia(`http://user:s3cret@127.0.0.1:${port()}/echo-auth.png`, {
      cacheDir: path.join(dir, "creds"),
      allowPrivateNetwork: false,
      addressPolicy: onlyFirstLoopback,
    });
    expect(fs.readFileSync(f, "utf8")).toBe("none");
  });
});

describe("requestDeadline (the deadline of one fetch, shared by media fetches and script pages)", () => {
  it("aborts at its time and says it timed out; a caller's abort is not a timeout; end() stops both", () => {
    vi.useFakeTimers();
    try {
      const timed = requestDeadline(100, undefined);
      vi.advanceTimersByTime(99);
      expect([timed.signal.aborted, timed.timedOut]).toEqual([false, false]);
      vi.advanceTimersByTime(1);
      expect([timed.signal.aborted, timed.timedOut]).toEqual([true, true]);

      const caller = new AbortController();
      const cancelled = requestDeadline(100, caller.signal);
      caller.abort();
      expect([cancelled.signal.aborted, cancelled.timedOut]).toEqual([true, false]);
      cancelled.end();
      vi.advanceTimersByTime(200);
      expect(cancelled.timedOut).toBe(false);

      const other = new AbortController();
      const ended = requestDeadline(100, other.signal);
      ended.end();
      other.abort();
      vi.advanceTimersByTime(200);
      expect([ended.signal.aborted, ended.timedOut]).toEqual([false, false]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a caller's cancel of a slow media fetch is reported as cancelled, not as a timeout", async () => {
    const caller = new AbortController();
    const pending = resolveMedia(`${base}/slow.png`, { cacheDir: path.join(dir, "cancel"), timeoutMs: 5000, allowPrivateNetwork: true, signal: caller.signal });
    setTimeout(() => caller.abort(), 50);
    const e = await pending.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MediaFetchError);
    expect((e as Error).message).toMatch(/^cancelled fetching http:\/\/127\.0\.0\.1:\d+\/slow\.png$/);
  });
});
