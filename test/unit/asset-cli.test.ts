/** Flag parsing of `mediagen asset`: one flag per request field, `--body` overridden by flags. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PRICE_FLAGS, formatDurations, parseElement, parseRef, parseSettings, priceBody, startBody } from "../../src/features/asset/client/cli.js";
import { CliError } from "../../src/cli/types.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
const local = path.join(dir, "face.png");
fs.writeFileSync(local, "x");

describe("parseRef", () => {
  it.each([
    ["asset:65f0c2a1b3e4d5f6a7b8c9d0", { asset_id: "65f0c2a1b3e4d5f6a7b8c9d0" }],
    ["ASSET: 65f0", { asset_id: "65f0" }],
    ["avatar:av_maya", { avatar_id: "av_maya" }],
    ["https://cdn.example.com/a.png", { url: "https://cdn.example.com/a.png" }],
    ["file:///tmp/a.png", { url: "file:///tmp/a.png" }],
    [local, { url: local }],
    ["does/not/exist.png", { url: "does/not/exist.png" }],
  ])("%s", (value, expected) => {
    expect(parseRef(value)).toEqual(expected);
  });

  it("makes an existing relative file absolute", () => {
    const rel = path.relative(process.cwd(), local);
    expect(parseRef(rel)).toEqual({ url: local });
  });

  it("refuses an empty reference", () => {
    expect(() => parseRef("  ", "--start-image")).toThrow(CliError);
  });
});

describe("settings and elements", () => {
  it("turns true/false into booleans and keeps other values as strings", () => {
    expect(parseSettings(["generateAudio=false", "quality=high", "camera_fixed=true", "note=a=b"])).toEqual({
      generateAudio: false,
      quality: "high",
      camera_fixed: true,
      note: "a=b",
    });
    expect(() => parseSettings(["quality"])).toThrow(/key=value/);
    expect(() => parseSettings(["=x"])).toThrow(CliError);
  });

  it("keeps __proto__ and constructor as keys the service then refuses, never as the object's prototype", () => {
    const s = parseSettings(["__proto__=x", "constructor=1"]);
    expect(Object.getPrototypeOf(s)).toBe(Object.prototype);
    expect(Object.keys(s)).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(startBody({ type: "image", model: "imgA-4", prompt: "p", setting: ["__proto__=x"] }))).toBe(
      '{"type":"image","model":"imgA-4","prompt":"p","model_settings":{"__proto__":"x"}}',
    );
  });

  it("reads name=ref,ref", () => {
    expect(parseElement("hero=https://x/a.png, asset:abc ,avatar:av_1")).toEqual({
      name: "hero",
      images: [{ url: "https://x/a.png" }, { asset_id: "abc" }, { avatar_id: "av_1" }],
    });
    expect(() => parseElement("hero")).toThrow(CliError);
  });
});

describe("startBody", () => {
  it("maps every flag to its request field", () => {
    expect(
      startBody({
        type: "video",
        model: "vidD-omni",
        prompt: "@hero",
        ref: ["asset:a1", "https://x/b.mp4"],
        element: ["hero=https://x/1.png,https://x/2.png"],
        count: "2",
        aspectRatio: "1:1",
        resolution: "480p",
        duration: "6",
        setting: ["camera_fixed=true"],
        parent: "p1",
        folder: "f1",
        avatarDescription: "tall",
        webhookUrl: "https://hooks.example.com/x",
        fileName: "Shot 1",
        startImage: "asset:s",
        endImage: "avatar:e",
        motionVideo: "https://x/m.mp4",
        sourceVideo: "asset:v",
        firstFrame: "https://x/f.png",
        lastFrame: "https://x/l.png",
      }),
    ).toEqual({
      type: "video",
      model: "vidD-omni",
      prompt: "@hero",
      references: [{ asset_id: "a1" }, { url: "https://x/b.mp4" }],
      elements: [{ name: "hero", images: [{ url: "https://x/1.png" }, { url: "https://x/2.png" }] }],
      generation_count: 2,
      aspect_ratio: "1:1",
      resolution: "480p",
      duration: 6,
      model_settings: { camera_fixed: true },
      parent_media_id: "p1",
      folder_id: "f1",
      avatar_description: "tall",
      webhook_url: "https://hooks.example.com/x",
      file_name: "Shot 1",
      start_image: { asset_id: "s" },
      end_image: { avatar_id: "e" },
      motion_video: { url: "https://x/m.mp4" },
      source_video: { asset_id: "v" },
      first_frame: { url: "https://x/f.png" },
      last_frame: { url: "https://x/l.png" },
    });
  });

  it("lets flags override a body and merges settings key by key", () => {
    const body = { type: "image", model: "imgA-4", prompt: "old", model_settings: { quality: "low", other: 1 }, generation_count: 3 };
    expect(startBody({ prompt: "new", setting: ["quality=high"] }, body)).toEqual({
      type: "image",
      model: "imgA-4",
      prompt: "new",
      model_settings: { quality: "high", other: 1 },
      generation_count: 3,
    });
  });

  it.each([
    [{ count: "two" }, "--count"],
    [{ count: "1.5" }, "--count"],
    [{ duration: "6s" }, "--duration"],
  ])("rejects %j as a usage error on %s", (flags, flag) => {
    try {
      startBody(flags);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CliError);
      expect((e as CliError).field).toBe(flag);
      expect((e as CliError).exitCode).toBe(2);
    }
  });
});

describe("priceBody", () => {
  it("takes whole-second durations (the spec's pricing duration is an integer) and sends the reference count as image_count", () => {
    expect(priceBody({ model: "vidC-upscale", duration: "12", imageCount: "3", count: "2" })).toEqual({
      model: "vidC-upscale",
      duration: 12,
      image_count: 3,
      generation_count: 2,
    });
  });

  it("has no flag for the settings object (pricing's name for it is not documented): --set sends it under the name given", () => {
    expect(Object.values(PRICE_FLAGS.decl).map((o) => o.flag)).not.toContain("--setting <key=value>");
    expect(priceBody({ model: "vidA-3", set: ["settings.generateAudio=false", "image_count=2"] })).toEqual({
      model: "vidA-3",
      settings: { generateAudio: false },
      image_count: 2,
    });
  });

  it("refuses a fractional duration, naming the flag", () => {
    expect(() => priceBody({ model: "vidC-upscale", duration: "4.2" })).toThrow(/--duration: expected a whole number, got "4.2"/);
  });
});

describe("formatDurations", () => {
  it.each([
    [[4, 6, 8], "4,6,8"],
    [[4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], "4-15"],
    [[5, 10], "5,10"],
    [[1, 2, 4, 5, 6], "1,2,4-6"],
    [[], ""],
  ])("%j → %s", (ds, out) => {
    expect(formatDurations(ds)).toBe(out);
  });
});
