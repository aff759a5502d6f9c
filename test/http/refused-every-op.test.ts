/**
 * A request `serve` refuses at the door has no side effect, for every operation that writes (issue 34,
 * "parse once at the door"): each body below carries the links the operation would fetch (references,
 * images, media, a source video) and the fields that would make it speak (a script, a voice), plus one
 * field the contract refuses. Afterwards the counting server was never asked, the media dir has no new
 * file (no picture, no speech), and no job, ledger row or record was added.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { ROUTES } from "../../src/features/routes.js";
import { startServer, type RunningServer } from "../../src/server/server.js";

let home: string;
let instance: LocalInstance;
let served: RunningServer;
let links: http.Server;
let base = "";
let hits = 0;
let key = "";

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-refused-all-"));
  instance = openLocalInstance({ home, worker: "none", rateLimit: { limit: 10_000, windowMs: 3_600_000 } });
  served = await startServer({ instance, port: 0, allowPrivateNetwork: true });
  links = http.createServer((_req, res) => {
    hits++;
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => links.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(links.address() as AddressInfo).port}`;
  key = instance.createSpace({ plan: "PRO", credits: 1000 }).api_key;
});

afterAll(async () => {
  await served.close(500);
  await instance.close();
  links.closeAllConnections();
  await new Promise<void>((r) => links.close(() => r()));
  fs.rmSync(home, { recursive: true, force: true });
});

function mediaFiles(): string[] {
  const dir = instance.mediaDir;
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

function counts(): Record<string, number> {
  const n = (table: string) => (instance.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  return { jobs: n("jobs"), ledger: n("ledger"), assets: n("assets"), looks: n("looks"), folders: n("folders") };
}

/** Each writing operation: a body with what it would fetch or speak, and one field the contract refuses (named). */
const CASES: Record<string, { body: (u: string) => Record<string, unknown>; field: string }> = {
  assetStart: {
    body: (u) => ({ type: "video", model: "vidC-edit", prompt: "brighter", source_video: { url: `${u}/clip.mp4` }, generation_count: 9 }),
    field: "generation_count",
  },
  assetPricing: { body: () => ({ model: 5 }), field: "model" },
  avatarCreate: { body: (u) => ({ imageUrls: [`${u}/portrait.png`], name: 5 }), field: "name" },
  avatarEdit: {
    body: (u) => ({ avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "at a fair", imageUrls: [`${u}/logo.png`], upscale: "yes" }),
    field: "upscale",
  },
  folderCreate: { body: () => ({ name: 5 }), field: "name" },
  generationStart: {
    body: (u) => ({ script: "Cats purr when they are calm.", voice_id: "vc_emma", media_urls: [`${u}/shot.png`], webhook_url: 5 }),
    field: "webhook_url",
  },
  exportStart: { body: () => ({ video_id: "0123456789abcdef01234567", format: "diagonal" }), field: "format" },
  videoDuplicate: { body: () => ({ video_id: "0123456789abcdef01234567", voice_id: 5 }), field: "voice_id" },
  scriptGenerate: { body: () => ({ prompt: "Three tips for the morning", duration: "long" }), field: "duration" },
};

const writes = Object.entries(ROUTES)
  .filter(([, r]) => r.method === "POST")
  .map(([op]) => op);

describe("a request refused at the door, for every operation that writes", () => {
  it("covers every POST operation of the route table", () => {
    expect(Object.keys(CASES).sort()).toEqual([...writes].sort());
  });

  it.each(writes)("%s: 400 naming the field; nothing fetched, spoken, written or debited", async (op) => {
    const c = CASES[op]!;
    const files = mediaFiles();
    const before = { hits, ...counts() };
    const res = await fetch(`${served.baseUrl}${ROUTES[op as keyof typeof ROUTES].path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(c.body(base)),
    });
    const text = await res.text();
    expect(res.status, text).toBe(400);
    expect(text).toContain(c.field);
    // Give a fetch or a render that was started anyway the time to show.
    await new Promise((r) => setTimeout(r, 200));
    expect({ hits, ...counts() }).toEqual(before);
    expect(mediaFiles()).toEqual(files);
  });
});
