/**
 * `mediagen serve` fetches media URLs on a remote caller's behalf: by default never from loopback,
 * private or link-local addresses (the suite's media server is on 127.0.0.1, which stands for "this
 * machine's own network"); `--allow-private-urls` (allowPrivateNetwork) opens it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { waitFor } from "../helpers/local.js";

let home: string;
let instance: LocalInstance;
let strict: RunningServer;
let open: RunningServer;
let media: http.Server;
let mediaBase: string;
let hits = 0;

/** The fields of the answers these tests read (errors and asset jobs). */
interface FetchedJson {
  code?: string;
  error?: string | { message: string };
  status?: string;
  asset_ids?: string[];
}

async function call(server: RunningServer, key: string, method: string, p: string, body?: unknown) {
  const res = await fetch(server.baseUrl + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as FetchedJson };
}

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  instance = openLocalInstance({ home, worker: "inline", rateLimit: { limit: 10_000, windowMs: 60_000 } });
  strict = await startServer({ instance, port: 0 });
  open = await startServer({ instance, port: 0, allowPrivateNetwork: true });
  media = http.createServer((_req, res) => {
    hits++;
    res.writeHead(200, { "content-type": "image/png" });
    res.end(pngBytes);
  });
  await new Promise<void>((r) => media.listen(0, "127.0.0.1", r));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await strict.close(500);
  await open.close(500);
  await instance.close();
  media.closeAllConnections();
  await new Promise<void>((r) => media.close(() => r()));
  fs.rmSync(home, { recursive: true, force: true });
});

// 1×1 transparent PNG.
const pngBytes = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" + "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);

describe("media URLs fetched by serve", () => {
  it("avatar create from a loopback image: refused by default with one plain message, fetched nothing", async () => {
    const key = instance.createSpace({ plan: "PRO", credits: 10 }).api_key;
    for (const url of [`${mediaBase}/face.png`, `http://2130706433:${new URL(mediaBase).port}/face.png`, "http://169.254.169.254/latest/face.png"]) {
      const r = await call(strict, key, "POST", "/avatar/create", { images: [url] });
      expect([url, r.status, r.json.code]).toEqual([url, 400, "INVALID_VALUE"]);
      expect(r.json.error).toMatch(/images\[0\] could not be fetched: could not fetch http/);
    }
    expect(hits).toBe(0);
  });

  it("asset start with a loopback reference: the generation fails and is refunded, nothing fetched", async () => {
    const key = instance.createSpace({ plan: "PRO", credits: 10 }).api_key;
    const started = await call(strict, key, "POST", "/asset/start", { type: "image", model: "imgA-4", prompt: "a fox", references: [{ url: `${mediaBase}/ref.png` }] });
    expect(started.status).toBe(201);
    const id = started.json.asset_ids![0]!;
    const done = await waitFor(
      async () => {
        const s = await call(strict, key, "GET", `/asset/status/${id}`);
        return s.json.status === "failed" ? s.json : undefined;
      },
      20_000,
      50,
    );
    expect((done.error as { message: string }).message).toMatch(/could not fetch http/);
    expect(instance.spaceForKey(key)!.credits).toBe(10);
    expect(hits).toBe(0);
  });

  it("with --allow-private-urls the same image is fetched and becomes a ready look", async () => {
    const key = instance.createSpace({ plan: "PRO", credits: 10 }).api_key;
    const r = await call(open, key, "POST", "/avatar/create", { images: [`${mediaBase}/face.png`] });
    expect(r.status).toBe(201);
    expect(hits).toBe(1);
  });
});
