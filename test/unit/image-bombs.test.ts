/**
 * Decompression bombs: a picture whose header declares more than 8192 pixels a side or 40 MP is
 * refused before anything decodes it — at start (400 on the field) when the file is known then
 * (local files, library assets, avatar create images, local generation media), as a refunded
 * failure when only the job fetches it (a URL). The bombs here are real PNGs (a few KB each).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkImageFile, ImageTooLargeError, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, readImageFileSize } from "../../src/media/image-header.js";
import { probe } from "../../src/media/probe.js";
import { renderImage } from "../../src/media/index.js";
import { bombPng, jpegHeader } from "../helpers/bomb-images.js";
import { startFixtureServer, type FixtureServer } from "../helpers/fixture-server.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

let t: TestInstance;
let dir: string;
let server: FixtureServer;
let wide: string; // 9000×10: over the side limit, tiny in pixels
let big: string; // 7000×7000: under the side limit, 49 MP
let fine: string;

beforeAll(async () => {
  t = openTestInstance();
  dir = path.join(t.home, "in");
  fs.mkdirSync(dir, { recursive: true });
  wide = path.join(dir, "wide.png");
  big = path.join(dir, "big.png");
  fine = path.join(dir, "fine.png");
  bombPng(wide, 9000, 10);
  bombPng(big, 7000, 7000);
  await renderImage({ out: fine, width: 32, height: 32, prompt: "fine" });
  server = await startFixtureServer(dir);
});

afterAll(async () => {
  await server.close();
  await t.close();
});

const spaceId = () => t.spaceForKey(t.key)!.id;
const dispatch = (op: "assetStart" | "avatarCreate" | "generationStart", body: Record<string, unknown>) =>
  t.service.dispatch(`Bearer ${t.key}`, op, body, { urls: t.fileUrls() });

describe("the header parser", () => {
  it("reads a JPEG's size past an EXIF segment longer than 64 KiB", () => {
    const file = path.join(dir, "exif.jpg");
    fs.writeFileSync(file, jpegHeader(12000, 9000, 200_000));
    expect(readImageFileSize(file)).toEqual({ type: "jpeg", width: 12000, height: 9000 });
    expect(() => checkImageFile(file, "f")).toThrow(ImageTooLargeError);
  });

  it("refuses past either limit and names the field and the limits", () => {
    for (const f of [wide, big]) {
      let err: unknown;
      try {
        checkImageFile(f, "references[0].url");
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ImageTooLargeError);
      expect((err as ImageTooLargeError).field).toBe("references[0].url");
      expect((err as Error).message).toContain(`at most ${MAX_IMAGE_SIDE} pixels a side and ${MAX_IMAGE_PIXELS / 1e6} MP`);
    }
    expect(checkImageFile(fine, "x")).toEqual({ type: "png", width: 32, height: 32 });
  });

  it("refuses a file that is not a PNG, JPEG or WebP whatever its extension", () => {
    const fake = path.join(dir, "fake.png");
    fs.writeFileSync(fake, "BM not really a bitmap");
    expect(() => checkImageFile(fake, "images[0]")).toThrow(/not a PNG, JPEG or WebP/);
  });

  it("probing a bomb does not decode it (the prober is bounded too)", async () => {
    const info = await probe(big);
    expect(info.width ?? 0).toBe(0);
  });
});

describe("asset start", () => {
  it("refuses a local bomb with 400 invalid_value on the reference's field, nothing debited", async () => {
    const before = t.ledger.balance(spaceId());
    for (const [field, body] of [
      ["references[0].url", { type: "image", model: "imgA-4", prompt: "x", references: [{ url: wide }] }],
      ["references[1].url", { type: "image", model: "imgA-4", prompt: "x", references: [{ url: fine }, { url: `file://${big}` }] }],
      ["last_frame.url", { type: "video", model: "vidA-3-frames", prompt: "x", first_frame: { url: fine }, last_frame: { url: big } }],
      ["elements[0].images", { type: "video", model: "vidD-omni", prompt: "@hero", elements: [{ name: "hero", images: [{ url: fine }, { url: wide }] }] }],
    ] as const) {
      const res = await dispatch("assetStart", body);
      expect(res.status, field).toBe(400);
      expect(res.body, field).toMatchObject({ details: [{ code: "invalid_value", field, message: expect.stringMatching(/pixels/) }] });
    }
    expect(t.ledger.balance(spaceId())).toBe(before);
  });

  it("a bomb behind a URL fails the generation in the job, refunded, without decoding it", async () => {
    const before = t.ledger.balance(spaceId());
    const res = await dispatch("assetStart", { type: "image", model: "imgA-4", prompt: "x", references: [{ url: `${server.origin}/media/big.png` }] });
    expect(res.status).toBe(201);
    const id = (res.body as { asset_ids: string[] }).asset_ids[0]!;
    await t.runUntilIdle(20_000);
    const status = await t.api.assetStatus({ assetId: id });
    expect(status.status).toBe("failed");
    expect(status.error).toEqual({ code: "reference_too_large", message: expect.stringMatching(/references\[0\].*7000×7000.*at most 8192/) });
    expect(t.ledger.balance(spaceId())).toBe(before);
  });
});

describe("avatar create with images", () => {
  it("does not accept a bomb: 400 INVALID_VALUE naming the image, no avatar made", async () => {
    const avatars = () => (t.db.prepare("SELECT COUNT(*) AS n FROM avatars").get() as { n: number }).n;
    const n = avatars();
    for (const ref of [big, `${server.origin}/media/wide.png`]) {
      const res = await dispatch("avatarCreate", { name: "bomb", images: [fine, ref] });
      expect(res.status, ref).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(/images\[1\].*pixels/);
    }
    expect(avatars()).toBe(n);
  });
});

describe("generation media", () => {
  it("refuses a local bomb at start on its field", async () => {
    const res = await dispatch("generationStart", { prompt: "a talk", duration: 10, avatar_url: big });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_VALUE" });
    expect(JSON.stringify(res.body)).toMatch(/avatar_url.*pixels/);
  });

  it("fails (refunded) a generation whose URL media is a bomb", async () => {
    const before = t.ledger.balance(spaceId());
    const res = await dispatch("generationStart", { prompt: "a talk", duration: 10, avatar_url: `${server.origin}/media/big.png` });
    expect(res.status).toBe(201);
    await t.runUntilIdle(60_000);
    const job = (await t.api.generationStatus({ job_id: (res.body as { job_id: string }).job_id })) as { status: string; error?: { message: string } };
    expect(job.status).toBe("failed");
    expect(job.error?.message).toMatch(/avatar_url.*pixels/);
    expect(t.ledger.balance(spaceId())).toBe(before);
  });
});
