/** Signed media URLs of the served instance, over raw HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { cleanRelPath, loadMediaSecret, MediaSigner, parseRange } from "../../src/server/media.js";
import { OffsetClock } from "../scenarios/harness.js";

/** GET with the request target exactly as given (no normalisation of `..` or %-escapes). */
function rawGet(target: string): Promise<{ status: number; body: string }> {
  const u = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: target, method: "GET" }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

let home: string;
let instance: LocalInstance;
let server: RunningServer;
const clock = new OffsetClock();
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  instance = openLocalInstance({ home, worker: "none", clock });
  fs.mkdirSync(path.join(instance.mediaDir, "assets/ab"), { recursive: true });
  fs.writeFileSync(path.join(instance.mediaDir, "assets/ab/pic one.png"), PNG);
  fs.writeFileSync(path.join(instance.mediaDir, "assets/ab/clip.mp4"), Buffer.alloc(1000, 7));
  fs.writeFileSync(path.join(home, "secret.txt"), "outside the media dir");
  fs.writeFileSync(path.join(instance.localDir, "secret.txt"), "outside the media dir");
  server = await startServer({ instance, port: 0 });
});
afterAll(async () => {
  await server.close(500);
  await instance.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe("signed media URLs", () => {
  it("serves a file with its content type at a signed URL on the server's origin", async () => {
    const url = server.urls.media("assets/ab/pic one.png");
    expect(url.startsWith(`${server.origin}/media/assets/ab/pic%20one.png?exp=`)).toBe(true);
    const exp = Number(new URL(url).searchParams.get("exp"));
    expect(exp - Math.floor(clock.now() / 1000)).toBe(7 * 24 * 3600);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
  });

  it("answers byte ranges with 206 and unsatisfiable ones with 416", async () => {
    const url = server.urls.media("assets/ab/clip.mp4");
    const part = await fetch(url, { headers: { range: "bytes=10-19" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 10-19/1000");
    expect(part.headers.get("content-type")).toBe("video/mp4");
    expect((await part.arrayBuffer()).byteLength).toBe(10);
    const tail = await fetch(url, { headers: { range: "bytes=-100" } });
    expect(tail.headers.get("content-range")).toBe("bytes 900-999/1000");
    const none = await fetch(url, { headers: { range: "bytes=5000-" } });
    expect(none.status).toBe(416);
    expect(none.headers.get("content-range")).toBe("bytes */1000");
  });

  it("refuses a tampered signature, another file's signature and a missing one with 403", async () => {
    const good = new URL(server.urls.media("assets/ab/clip.mp4"));
    const tampered = new URL(good);
    tampered.searchParams.set(
      "sig",
      good.searchParams.get("sig")!.replace(/^./, (c) => (c === "0" ? "1" : "0")),
    );
    const moved = new URL(good);
    moved.pathname = "/media/assets/ab/pic%20one.png";
    const longer = new URL(good);
    longer.searchParams.set("exp", String(Number(good.searchParams.get("exp")) + 1));
    const bare = new URL(good);
    bare.search = "";
    for (const u of [tampered, moved, longer, bare]) {
      const r = await fetch(u);
      expect([u.pathname + u.search, r.status]).toEqual([u.pathname + u.search, 403]);
      expect(await r.json()).toMatchObject({ details: [{ code: "forbidden" }] });
    }
  });

  it("refuses an expired link with 403", async () => {
    const url = server.urls.media("assets/ab/clip.mp4", 60);
    expect((await fetch(url)).status).toBe(200);
    clock.advance(61_000);
    const r = await fetch(url);
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: string }).error).toMatch(/expired/);
  });

  it("does not follow a symbolic link in the media dir (to a file outside): 404, as the dashboard's saved files", async () => {
    fs.symlinkSync(path.join(home, "secret.txt"), path.join(instance.mediaDir, "assets/ab/link.png"));
    const r = await fetch(server.urls.media("assets/ab/link.png"));
    const body = await r.text();
    expect(r.status).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ error: "Media not found", details: [{ code: "not_found" }] });
    expect(body).not.toContain("outside the media dir");
  });

  it("answers HEAD with the headers of GET and no body; a range of an empty file is 416", async () => {
    const url = server.urls.media("assets/ab/clip.mp4");
    const head = await fetch(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("1000");
    expect(head.headers.get("last-modified")).toBeTruthy();
    expect(head.headers.get("cache-control")).toBe("private, max-age=3600");
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    fs.writeFileSync(path.join(instance.mediaDir, "assets/ab/empty.txt"), "");
    const empty = await fetch(server.urls.media("assets/ab/empty.txt"));
    expect([empty.status, await empty.text()]).toEqual([200, ""]);
    const none = await fetch(server.urls.media("assets/ab/empty.txt"), { headers: { range: "bytes=0-" } });
    expect(none.status).toBe(416);
  });

  it("answers 404 for a signed link to a missing file", async () => {
    const r = await fetch(server.urls.media("assets/ab/gone.png"));
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ error: "Media not found", details: [{ code: "not_found" }] });
    expect(() => server.urls.media("../secret.txt")).toThrow();
  });

  // Raw request targets (fetch would normalise them away before they reach the server), each with a
  // signature that is valid for the path it decodes to: only serveMedia's own checks stand in the way.
  it.each([
    ["..%2Fsecret.txt", "../secret.txt", "outside the media dir"],
    ["assets%2F..%2F..%2Finstance.db", "assets/../../instance.db", "SQLite format"],
    ["assets/..%2F..%2F..%2Fsecret.txt", "assets/../../../secret.txt", "outside the media dir"],
  ])("refuses the escaping path /media/%s even with a valid signature", async (raw, decoded, leak) => {
    const signer = new MediaSigner(instance.getSetting("media_secret")!, () => clock.now());
    const exp = Math.floor(clock.now() / 1000) + 60;
    const target = `/media/${raw}?exp=${exp}&sig=${signer.signature(decoded, exp)}`;
    const r = await rawGet(target);
    // serveMedia's answer (its JSON envelope, with its message), not the router's "No such path".
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toMatchObject({ error: "Media not found", details: [{ code: "not_found" }] });
    expect(r.body).not.toContain(leak);
  });

  it("keeps the first signing secret when another server stores one at the same moment", async () => {
    const first = instance.getSetting("media_secret")!;
    const firstUrl = server.urls.media("assets/ab/pic one.png");
    // A second process that read "no secret yet" just before this one stored its own.
    const other = openLocalInstance({ home, worker: "none", clock });
    try {
      const racing = {
        getSetting: () => undefined,
        setSetting: (k: string, v: string) => other.setSetting(k, v),
        ensureSetting: (k: string, v: string) => other.ensureSetting(k, v),
      };
      expect(loadMediaSecret(racing)).toBe(first);
      expect(instance.getSetting("media_secret")).toBe(first);
      expect((await fetch(firstUrl)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it("keeps its signing secret in the instance settings across restarts", async () => {
    const secret = instance.getSetting("media_secret");
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const url = server.urls.media("assets/ab/pic one.png");
    const again = await startServer({ instance, port: 0 });
    try {
      expect(instance.getSetting("media_secret")).toBe(secret);
      const moved = url.replace(server.origin, again.origin);
      expect((await fetch(moved)).status).toBe(200);
    } finally {
      await again.close(500);
    }
  });

  it("allows only GET and HEAD", async () => {
    const url = server.urls.media("assets/ab/pic one.png");
    const head = await fetch(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(PNG.length));
    const post = await fetch(url, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("media helpers", () => {
  it.each([
    ["a/b.png", "a/b.png"],
    ["./a//b.png", "a/b.png"],
    ["a\\b.png", "a/b.png"],
    ["../a.png", undefined],
    ["a/../../b", undefined],
    ["", undefined],
  ])("cleanRelPath(%j) = %j", (input, want) => {
    expect(cleanRelPath(input)).toBe(want);
  });

  it.each([
    [undefined, 100, undefined],
    ["bytes=0-9", 100, { start: 0, end: 9 }],
    ["bytes=90-", 100, { start: 90, end: 99 }],
    ["bytes=-10", 100, { start: 90, end: 99 }],
    ["bytes=50-500", 100, { start: 50, end: 99 }],
    ["bytes=100-", 100, "unsatisfiable"],
    ["bytes=9-3", 100, "unsatisfiable"],
    ["bytes=0-1,5-6", 100, undefined],
    ["items=0-1", 100, undefined],
  ])("parseRange(%j, %i)", (header, size, want) => {
    expect(parseRange(header, size)).toEqual(want);
  });
});
