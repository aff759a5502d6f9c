/**
 * The reference cache cannot be filled by refused requests, stays within its size and age, and
 * errors about a source never show server paths or the prober's output.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTools } from "../../src/media/index.js";
import { pruneCache } from "../../src/media/fetch.js";
import { apiError } from "../scenarios/harness.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { makeVideo, tempDir } from "./media-fixtures.js";

let dir: string;
let server: http.Server;
let origin: string;
let t: TestInstance;
const cacheFiles = () => {
  const d = path.join(t.home, "local", "cache", "references");
  return fs.existsSync(d) ? fs.readdirSync(d) : [];
};

beforeAll(async () => {
  dir = tempDir();
  const clip = makeVideo(await getTools(), path.join(dir, "clip.mp4"), { seconds: 2 });
  server = http.createServer((req, res) => {
    if (req.url?.startsWith("/clip")) {
      res.writeHead(200, { "content-type": "video/mp4" });
      res.end(fs.readFileSync(clip));
    } else {
      res.writeHead(200, { "content-type": "video/mp4" });
      res.end("this is not a video");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = openTestInstance({ worker: "none" });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await t.close();
});

describe("refused requests keep nothing they fetched", () => {
  it("an upscale refused for credits removes the source it downloaded to price it", async () => {
    const broke = t.engine(t.createSpace({ plan: "PRO", credits: 0 }).api_key);
    for (let i = 0; i < 3; i++) {
      const err = await apiError(broke.assetStart({ type: "video", model: "vidC-upscale", source_video: { url: `${origin}/clip-${i}.mp4` } }));
      expect(err.status).toBe(402);
    }
    expect(cacheFiles()).toEqual([]);
  });

  it("a source that is not a video is refused without paths or prober output, and not kept", async () => {
    const err = await apiError(t.api.assetStart({ type: "video", model: "vidC-upscale", source_video: { url: `${origin}/junk.mp4` } }));
    expect([err.status, err.code, err.field]).toEqual([400, "invalid_value", "source_video"]);
    expect(err.message).toBe("source_video: could not read the source video (not a video with a picture and a length)");
    expect(err.message).not.toContain(t.home);
    expect(cacheFiles()).toEqual([]);
  });

  it("an accepted start keeps the download for its worker", async () => {
    const r = await t.api.assetStart({ type: "video", model: "vidC-upscale", source_video: { url: `${origin}/clip-kept.mp4` } });
    expect(r.asset_ids).toHaveLength(1);
    expect(cacheFiles()).toHaveLength(1);
  });
});

describe("pruneCache", () => {
  const NOW = Date.UTC(2026, 0, 10);
  const DAY = 24 * 3600 * 1000;
  function fill(spec: [string, number, number][]): string {
    const d = fs.mkdtempSync(path.join(dir, "cache-"));
    for (const [name, size, ageMs] of spec) {
      const f = path.join(d, name);
      fs.writeFileSync(f, Buffer.alloc(size));
      const when = new Date(NOW - ageMs);
      fs.utimesSync(f, when, when);
    }
    return d;
  }

  it("drops files unused for longer than the age, then the least recently used until the size fits", () => {
    const d = fill([
      ["old", 10, 8 * DAY],
      ["a", 400, 3 * DAY],
      ["b", 400, 2 * DAY],
      ["c", 400, 1 * DAY],
      ["fresh", 400, 60_000],
    ]);
    pruneCache(d, { maxBytes: 1000, maxAgeMs: 7 * DAY, now: NOW });
    expect(fs.readdirSync(d).sort()).toEqual(["c", "fresh"]);
  });

  it("keeps files used in the last minutes and the one just fetched, even over the size", () => {
    const d = fill([
      ["recent", 900, 60_000],
      ["kept", 900, 5 * DAY],
    ]);
    pruneCache(d, { maxBytes: 100, maxAgeMs: 7 * DAY, now: NOW, keep: path.join(d, "kept") });
    expect(fs.readdirSync(d).sort()).toEqual(["kept", "recent"]);
  });
});
