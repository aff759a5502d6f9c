/**
 * Server-local files as asset inputs, through the service's front door: refused when the request
 * context says local files are not allowed (a served instance without --allow-local-files), with
 * the same answer whether the file exists or not and nothing debited; accepted in process.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderImage } from "../../src/media/index.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

let t: TestInstance;
let png: string;
let missing: string;

beforeAll(async () => {
  t = openTestInstance({ worker: "none" });
  png = path.join(t.home, "in", "a.png");
  missing = path.join(t.home, "in", "never-made.png");
  fs.mkdirSync(path.dirname(png), { recursive: true });
  await renderImage({ out: png, width: 64, height: 64, prompt: "fixture" });
});

afterAll(() => t.close());

const spaceId = () => t.spaceForKey(t.key)!.id;
const assetRows = () => (t.db.prepare("SELECT COUNT(*) AS n FROM assets").get() as { n: number }).n;

function start(body: Record<string, unknown>, allowLocalFiles: boolean) {
  return t.service.dispatch(`Bearer ${t.key}`, "assetStart", body, { urls: t.fileUrls(), allowLocalFiles });
}

/** Every kind of media input of asset start, each naming `ref`, and the field a refusal names. */
function bodies(ref: string): [string, Record<string, unknown>][] {
  const video = ref.replace(/\.png$/, ".mp4");
  return [
    ["references[0].url", { type: "image", model: "imgA-4", prompt: "x", references: [{ url: ref }] }],
    ["start_image.url", { type: "video", model: "vidB-motion", prompt: "x", start_image: { url: ref }, motion_video: { url: "https://cdn.example.com/m.mp4" } }],
    ["motion_video.url", { type: "video", model: "vidB-motion", prompt: "x", start_image: { avatar_id: "av_maya" }, motion_video: { url: video } }],
    ["source_video.url", { type: "video", model: "vidC-upscale", source_video: { url: video } }],
    ["last_frame.url", { type: "video", model: "vidA-3-frames", prompt: "x", first_frame: { avatar_id: "av_maya" }, last_frame: { url: `file://${ref}` } }],
    ["elements[0].images", { type: "video", model: "vidD-omni", prompt: "@hero", elements: [{ name: "hero", images: [{ avatar_id: "av_maya" }, { url: ref }] }] }],
  ];
}

describe("asset start with allowLocalFiles false", () => {
  it("refuses a local path or file:// URL in every media input, before any debit", async () => {
    const before = t.ledger.balance(spaceId());
    const rows = assetRows();
    for (const [field, body] of bodies(png)) {
      const res = await start(body, false);
      expect(res.status, field).toBe(400);
      expect(res.body).toEqual({
        error: expect.any(String),
        details: [{ code: "invalid_value", field, message: expect.stringMatching(/^\S+: local files are not accepted over HTTP; use an http\(s\) URL or an asset id$/) }],
      });
    }
    expect(t.ledger.balance(spaceId())).toBe(before);
    expect(assetRows()).toBe(rows);
  });

  it("answers the same for a file that exists and one that does not", async () => {
    for (const [[field, present], [, absent]] of bodies(png).map((b, i) => [b, bodies(missing)[i]!] as const)) {
      const a = await start(present, false);
      const b = await start(absent, false);
      expect([a.status, b.status], field).toEqual([400, 400]);
      expect(JSON.stringify(a.body)).toBe(JSON.stringify(b.body));
    }
  });

  it("still takes http(s) URLs, asset ids and avatar ids", async () => {
    const res = await start({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: "https://cdn.example.com/a.png" }, { avatar_id: "av_maya" }] }, false);
    expect(res.status).toBe(201);
  });
});

describe("asset start in process (allowLocalFiles true)", () => {
  it("takes the same local file, and reports a missing one as not found", async () => {
    const ok = await start({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: png }, { url: `file://${png}` }] }, true);
    expect(ok.status).toBe(201);
    const gone = await start({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: missing }] }, true);
    expect(gone).toMatchObject({ status: 400, body: { details: [{ code: "invalid_value", field: "references[0].url", message: expect.stringMatching(/not found/) }] } });
  });
});
