/**
 * The address policy applies to every use of a URL, cached or not: once an in-process command (or a
 * `serve --allow-private-urls`) has fetched a loopback URL into the reference cache, a default
 * `serve` must still refuse it — in every spelling the URL parser maps to the same address.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MediaFetchError } from "../../src/media/errors.js";
import { resolveMedia } from "../../src/media/fetch.js";
import { renderImage } from "../../src/media/index.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

let t: TestInstance;
let server: http.Server;
let port = 0;
let cacheDir: string;

beforeAll(async () => {
  t = openTestInstance();
  const png = path.join(t.home, "secret.png");
  await renderImage({ out: png, width: 16, height: 16, prompt: "internal" });
  server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "image/png" });
    fs.createReadStream(png).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  cacheDir = path.join(t.home, "local", "cache", "references");
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
});

const spellings = () => [
  `http://127.0.0.1:${port}/secret.png`,
  `http://2130706433:${port}/secret.png`,
  `http://0x7f000001:${port}/secret.png`,
  `http://127.1:${port}/secret.png`,
  `http://0177.0.0.1:${port}/secret.png`,
  `http://[::ffff:127.0.0.1]:${port}/secret.png`,
  `http://[::ffff:7f00:1]:${port}/secret.png`,
  `http://localhost:${port}/secret.png`,
];

describe("the reference cache and the address policy", () => {
  it("refuses a cached loopback URL to a public-only use, in every spelling", async () => {
    for (const url of spellings()) {
      // The machine's owner may fetch it (and so fills the cache)…
      if (!url.includes("[::ffff")) await resolveMedia(url, { cacheDir, allowPrivateNetwork: true });
      // …a remote caller's use may not have it, cached or not.
      let err: unknown;
      try {
        await resolveMedia(url, { cacheDir, allowPrivateNetwork: false });
      } catch (e) {
        err = e;
      }
      expect(err, url).toBeInstanceOf(MediaFetchError);
      expect((err as MediaFetchError).message).toMatch(/^could not fetch /);
    }
  });

  it("a served asset start naming a cached loopback URL fails, refunded, and gets nothing of it", async () => {
    const url = `http://2130706433:${port}/secret.png`;
    await resolveMedia(url, { cacheDir, allowPrivateNetwork: true });
    const space = t.spaceForKey(t.key)!.id;
    const before = t.ledger.balance(space);
    const res = await t.service.dispatch(
      `Bearer ${t.key}`,
      "assetStart",
      { type: "image", model: "imgA-4", prompt: "x", references: [{ url }] },
      {
        urls: t.fileUrls(),
        allowLocalFiles: false,
        allowPrivateNetwork: false,
      },
    );
    expect(res.status).toBe(201);
    await t.runUntilIdle(20_000);
    const st = await t.api.assetStatus({ assetId: (res.body as { asset_ids: string[] }).asset_ids[0]! });
    expect(st).toMatchObject({ status: "failed", error: { code: "reference_unavailable" } });
    expect(t.ledger.balance(space)).toBe(before);
  });
});
