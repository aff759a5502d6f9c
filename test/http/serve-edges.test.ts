/**
 * The served instance at the edges of HTTP: HEAD, a missing Host, CONNECT, slow headers, oversized
 * headers and bodies that are not JSON. Every answer is the service's JSON envelope, never a dropped
 * socket or an empty body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { acceptsAsJson } from "../../src/server/routes.js";

let home: string;
let instance: LocalInstance;
let server: RunningServer;
let key: string;
let port: number;

/** Writes `raw` on a fresh socket and resolves with everything the server sent until it closed. */
function rawExchange(raw: string, opts: { waitMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let got = "";
    socket.on("data", (d) => (got += d.toString()));
    socket.on("error", reject);
    socket.on("close", () => resolve(got));
    socket.on("connect", () => {
      socket.write(raw);
      if (opts.waitMs === undefined) return;
      // Keep the request unfinished: the server must time it out by itself.
    });
  });
}

function parseRaw(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...headerLines] = head!.split("\r\n");
  const headers: Record<string, string> = {};
  for (const l of headerLines) {
    const i = l.indexOf(":");
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  instance = openLocalInstance({ home, worker: "none", rateLimit: { limit: 10_000, windowMs: 60_000 } });
  key = instance.defaultKey();
  server = await startServer({ instance, port: 0, headersTimeoutMs: 300 });
  port = Number(new URL(server.origin).port);
});
afterAll(async () => {
  await server.close(500);
  await instance.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe("serve at the edges of HTTP", () => {
  it("answers HEAD on a GET route like GET, without a body", async () => {
    const get = await fetch(`${server.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${key}` } });
    const head = await fetch(`${server.baseUrl}/folder/list`, { method: "HEAD", headers: { authorization: `Bearer ${key}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
    expect(head.headers.get("x-ratelimit-limit")).toBe("10000");
    expect(await head.text()).toBe("");
    // HEAD on a POST-only route is a 405 naming the allowed method.
    const wrong = await fetch(`${server.baseUrl}/folder/create`, { method: "HEAD", headers: { authorization: `Bearer ${key}` } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
  });

  it("answers a request without a Host header in JSON", async () => {
    const r = parseRaw(await rawExchange(`GET /api/public/v1/folder/list HTTP/1.1\r\nauthorization: Bearer ${key}\r\nconnection: close\r\n\r\n`));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ folders: [] });
    const noKey = parseRaw(await rawExchange("GET /api/public/v1/folder/list HTTP/1.1\r\nconnection: close\r\n\r\n"));
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.body).details[0].code).toBe("invalid_api_key");
  });

  it("answers CONNECT with a JSON 405 instead of dropping the socket", async () => {
    const r = parseRaw(await rawExchange("CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n"));
    expect(r.status).toBe(405);
    expect(r.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(r.body).details[0].code).toBe("method_not_allowed");
  });

  it("answers 408 in JSON when the headers do not arrive in time", async () => {
    const r = parseRaw(await rawExchange("GET /api/public/v1/folder/list HTTP/1.1\r\nhost: x\r\n", { waitMs: 1 }));
    expect(r.status).toBe(408);
    expect(JSON.parse(r.body).details[0].code).toBe("request_timeout");
  });

  it("answers 431 in JSON for headers over node's limit, and 400 in JSON for a malformed request line", async () => {
    const big = parseRaw(await rawExchange(`GET /api/public/v1/folder/list HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`));
    expect(big.status).toBe(431);
    expect(JSON.parse(big.body).details[0].code).toBe("invalid_value");
    const bad = parseRaw(await rawExchange("NOT A REQUEST\r\n\r\n"));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).details[0].code).toBe("invalid_value");
  });

  it("refuses a body declared as something other than JSON with 415, after the key check", async () => {
    const post = (contentType: string, k: string | null = key) =>
      fetch(`${server.baseUrl}/folder/create`, {
        method: "POST",
        headers: { "content-type": contentType, ...(k ? { authorization: `Bearer ${k}` } : {}) },
        body: JSON.stringify({ name: "typed" }),
      });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const r = await post(type);
      expect([type, r.status]).toEqual([type, 415]);
      expect(((await r.json()) as { details: Array<{ code: string }> }).details[0]!.code).toBe("unsupported_media_type");
    }
    expect((await post("text/plain", null)).status).toBe(401);
    expect((await post("application/json; charset=utf-8")).status).toBe(201);
    expect((await post("application/merge-patch+json")).status).toBe(201);
    // Nothing was created by the refused requests.
    const list = (await (await fetch(`${server.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${key}` } })).json()) as { folders: unknown[] };
    expect(list.folders).toHaveLength(2);
  });

  it("acceptsAsJson: JSON types and an absent type pass, everything else does not", () => {
    expect(acceptsAsJson(undefined)).toBe(true);
    expect(acceptsAsJson("")).toBe(true);
    expect(acceptsAsJson("Application/JSON")).toBe(true);
    expect(acceptsAsJson("application/vnd.api+json; charset=utf-8")).toBe(true);
    expect(acceptsAsJson("text/json")).toBe(false);
    expect(acceptsAsJson("text/plain")).toBe(false);
  });
});
