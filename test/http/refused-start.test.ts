/**
 * A refused request has no side effect (issue 34, "parse once at the door"): an asset start that
 * `serve` refuses — by the contract at the door, by a rule of the space, or for credits — fetches
 * none of its references and leaves no file under the media dir. The reference is served by a
 * counting server on 127.0.0.1 (`allowPrivateNetwork` lets serve reach it), and the same request made
 * acceptable does fetch it: the count would have seen a fetch.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";

let home: string;
let instance: LocalInstance;
let served: RunningServer;
let media: http.Server;
let source = "";
let hits = 0;

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-refused-"));
  instance = openLocalInstance({ home, worker: "none", rateLimit: { limit: 10_000, windowMs: 60_000 } });
  served = await startServer({ instance, port: 0, allowPrivateNetwork: true });
  media = http.createServer((_req, res) => {
    hits++;
    // Not a playable video: only whether it was asked for matters here.
    res.writeHead(200, { "content-type": "video/mp4" }).end(Buffer.alloc(64));
  });
  await new Promise<void>((r) => media.listen(0, "127.0.0.1", r));
  source = `http://127.0.0.1:${(media.address() as AddressInfo).port}/clip.mp4`;
});

afterAll(async () => {
  await served.close(500);
  await instance.close();
  media.closeAllConnections();
  await new Promise<void>((r) => media.close(() => r()));
  fs.rmSync(home, { recursive: true, force: true });
});

/** Every file under the media dir, relative to it. */
function mediaFiles(): string[] {
  const dir = instance.mediaDir;
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

async function start(key: string, body: Record<string, unknown>) {
  const res = await fetch(`${served.baseUrl}/asset/start`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { details?: { code: string; field?: string }[] } };
}

/** An edit: its source video is fetched and measured at start, before anything is debited. */
const edit = () => ({ type: "video", model: "vidC-edit", prompt: "brighter", source_video: { url: source } });

describe("a refused asset start through serve", () => {
  it.each([
    ["a field the contract does not know", { bogus: 1 }, 1000, 400, "invalid_value", "bogus"],
    ["generation_count out of range", { generation_count: 9 }, 1000, 400, "invalid_value", "generation_count"],
    ["a webhook_url that is not a URL", { webhook_url: "not a url" }, 1000, 400, "invalid_value", "webhook_url"],
    ["a folder that does not exist", { folder_id: "0123456789abcdef01234567" }, 1000, 400, "invalid_value", "folder_id"],
    ["a space without the credits", {}, 1, 402, "not_eligible", undefined],
  ])("%s: fetches no reference and writes no file", async (_name, extra, credits, status, code, field) => {
    const key = instance.createSpace({ plan: "PRO", credits }).api_key;
    const files = mediaFiles();
    const before = hits;
    const r = await start(key, { ...edit(), ...extra });
    expect([r.status, r.body.details?.[0]?.code, r.body.details?.[0]?.field], JSON.stringify(r.body)).toEqual([status, code, field]);
    expect(hits).toBe(before);
    expect(mediaFiles()).toEqual(files);
    expect(instance.spaceForKey(key)!.credits).toBe(credits);
  });

  it("the same start made acceptable does fetch its source (the count sees a fetch)", async () => {
    const key = instance.createSpace({ plan: "PRO", credits: 1000 }).api_key;
    const before = hits;
    await start(key, edit());
    expect(hits).toBeGreaterThan(before);
  });
});
