/**
 * The start validator as a pure function: what it resolves (defaults, slots, settings, names) and
 * the plan rule for plans that cannot reach it over the API (free/start spaces are stopped earlier by
 * plan_required). The HTTP-visible rules are covered table by table in test/scenarios/assets.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LibraryAsset, StartLookups } from "../../src/features/asset/emulator/public/refs.js";
import { locateUrl } from "../../src/features/asset/emulator/public/refs.js";
import { priceParamsOf, validateStart } from "../../src/features/asset/emulator/validate.js";
import { apiErrorOf } from "../helpers/errors.js";
import type { Plan } from "../../src/contract/plans.js";
import { throughDoor } from "../helpers/door.js";

/** Judged as the local dispatch judges it: the contract at the door, then the model's and the space's rules. */
const judged = (body: Record<string, unknown>, plan: Plan, l: StartLookups) => throughDoor("assetStart", body, (input) => validateStart(input, plan, l));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
const png = path.join(dir, "a.png");
fs.writeFileSync(png, "not checked here");

const library: Record<string, LibraryAsset> = {
  "0000000000000000000000aa": {
    id: "0000000000000000000000aa",
    type: "video",
    status: "completed",
    file: "/m/a.mp4",
    width: 1280,
    height: 720,
    duration_seconds: 6.2,
    folder_id: "f1",
  },
  "0000000000000000000000bb": {
    id: "0000000000000000000000bb",
    type: "image",
    status: "generating",
    file: null,
    width: null,
    height: null,
    duration_seconds: null,
    folder_id: null,
  },
};
const lookups: StartLookups = {
  asset: (id) => library[id],
  avatarThumbnail: (id) => (id === "av_1" ? "/m/av_1.jpg" : undefined),
  folder: (id) => (id === "f1" ? { type: "assets" } : id === "v1" ? { type: "videos" } : undefined),
  fileExists: (p) => p === png,
  cwd: dir,
  allowLocalFiles: true,
};
/** The same lookups as a request over HTTP sees them (serve without --allow-local-files). */
const overHttp: StartLookups = { ...lookups, allowLocalFiles: false };

describe("validateStart", () => {
  it("applies the model's defaults and settings", () => {
    const v = judged({ type: "video", model: "vidA-3", prompt: "  waves  " }, "PRO", lookups);
    expect(v).toMatchObject({
      prompt: "waves",
      aspectRatio: "9:16",
      resolution: "720p",
      duration: 8,
      generationCount: 1,
      settings: { generateAudio: true },
      audio: true,
      fileName: "waves",
      folderId: null,
      references: [],
    });
    const off = judged({ type: "video", model: "vidA-3", prompt: "w", model_settings: { generateAudio: false } }, "PRO", lookups);
    expect(off.audio).toBe(false);
  });

  it.each([
    ["free", 403],
    ["start", 403],
    ["PRO", undefined],
    ["ENTREPRISE", undefined],
  ] as const)("plan %s on the PRO/ENTREPRISE model → %s", (plan, status) => {
    const body = { type: "video", model: "vidD-omni", prompt: "x" };
    if (status === undefined) expect(() => judged(body, plan, lookups)).not.toThrow();
    else {
      const e = apiErrorOf(() => judged(body, plan, lookups));
      expect([e.status, e.code, e.field]).toEqual([403, "not_eligible", "model"]);
      expect(e.message).toMatch(/PRO or ENTREPRISE/);
    }
  });

  it("resolves relative local paths against the working directory", () => {
    const v = judged({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: "a.png" }] }, "PRO", lookups);
    expect(v.references[0]).toMatchObject({ item: { url: "a.png" }, kind: "image", source: png });
  });

  it("takes the source length from a library asset (upscale pricing)", () => {
    const v = judged({ type: "video", model: "vidC-upscale", source_video: { asset_id: "0000000000000000000000aa" } }, "PRO", lookups);
    expect(v.sourceSeconds).toBe(6.2);
    expect(v.prompt).toBe("");
    expect(priceParamsOf(v)).toMatchObject({ sourceSeconds: 6.2, referenceCount: 1 });
  });

  it("refuses an asset that is not completed yet", () => {
    const e = apiErrorOf(() => judged({ type: "image", model: "imgA-4", prompt: "x", references: [{ asset_id: "0000000000000000000000bb" }] }, "PRO", lookups));
    expect([e.code, e.field]).toEqual(["invalid_value", "references[0].asset_id"]);
  });

  it("inherits the parent's folder and ignores folder_id (even an invalid one)", () => {
    const v = judged({ type: "image", model: "imgA-4", prompt: "x", parent_media_id: "0000000000000000000000aa", folder_id: "v1" }, "PRO", lookups);
    expect([v.folderId, v.parentMediaId]).toEqual(["f1", "0000000000000000000000aa"]);
  });

  it("maps references onto the empty slots in order", () => {
    const v = judged(
      { type: "video", model: "vidB-motion", prompt: "x", motion_video: { asset_id: "0000000000000000000000aa" }, references: [{ avatar_id: "av_1" }] },
      "PRO",
      lookups,
    );
    expect(Object.keys(v.slots)).toEqual(["start_image", "motion_video"]);
    expect(v.references.map((r) => r.item)).toEqual([{ avatar_id: "av_1" }, { asset_id: "0000000000000000000000aa" }]);
  });

  it("matches @name mentions as whole names", () => {
    const el = (prompt: string) => ({
      type: "video",
      model: "vidD-omni",
      prompt,
      elements: [{ name: "hero", images: [{ url: png }, { avatar_id: "av_1" }] }],
    });
    expect(judged(el("@hero, then rest"), "PRO", lookups).elements[0]!.name).toBe("hero");
    expect(apiErrorOf(() => judged(el("@heroes"), "PRO", lookups)).field).toBe("elements[0].name");
    expect(apiErrorOf(() => judged(el("hero"), "PRO", lookups)).field).toBe("elements[0].name");
  });

  it("reports a non-object element on its name (the spec has only .name and .images)", () => {
    for (const el of ["hero", 42, null, [{ url: png }]]) {
      const e = apiErrorOf(() => judged({ type: "video", model: "vidD-omni", prompt: "@hero", elements: [el] }, "PRO", lookups));
      expect([e.code, e.field]).toEqual(["invalid_value", "elements[0].name"]);
    }
  });

  it("matches @mentions without regard to case, as duplicate names are", () => {
    const images = [{ url: png }, { avatar_id: "av_1" }];
    const v = judged(
      {
        type: "video",
        model: "vidD-omni",
        prompt: "@HERO meets @Dog",
        elements: [
          { name: "hero", images },
          { name: "dog", images },
        ],
      },
      "PRO",
      lookups,
    );
    expect(v.elements.map((e) => e.name)).toEqual(["hero", "dog"]);
  });

  it("rejects a duplicate element name", () => {
    const images = [{ url: png }, { url: png }];
    const e = apiErrorOf(() =>
      judged(
        {
          type: "video",
          model: "vidD-omni",
          prompt: "@a @A",
          elements: [
            { name: "a", images },
            { name: "A", images },
          ],
        },
        "PRO",
        lookups,
      ),
    );
    expect(e.field).toBe("elements[1].name");
  });
});

// The handler's rule for files on this machine, called directly (as before the door judged once):
// `file://a.png` has no extension at the door, which refuses it for that first over HTTP.
describe("local files over HTTP (allowLocalFiles false)", () => {
  const REFUSED = /local files are not accepted over HTTP; use an http\(s\) URL or an asset id/;
  const missing = path.join(dir, "no-such-file.png");
  /** Every media input of start, each given the local path `p`, with the field its refusal names. */
  const inputs = (p: string): [string, Record<string, unknown>][] => [
    ["references[0].url", { type: "image", model: "imgA-4", prompt: "x", references: [{ url: p }] }],
    ["references[1].url", { type: "image", model: "imgA-4", prompt: "x", references: [{ avatar_id: "av_1" }, { url: `file://${p}` }] }],
    ["start_image.url", { type: "video", model: "vidB-2-5-frames", prompt: "x", start_image: { url: p } }],
    ["references[0].url", { type: "video", model: "vidB-2-5-frames", prompt: "x", references: [{ url: p }] }],
    ["first_frame.url", { type: "video", model: "vidA-3-frames", prompt: "x", first_frame: { url: p }, last_frame: { avatar_id: "av_1" } }],
    ["source_video.url", { type: "video", model: "vidC-upscale", source_video: { url: p.replace(/\.png$/, ".mp4") } }],
    ["elements[0].images", { type: "video", model: "vidD-omni", prompt: "@hero", elements: [{ name: "hero", images: [{ avatar_id: "av_1" }, { url: p }] }] }],
  ];

  it.each([
    ["an existing absolute path", png],
    ["a missing absolute path", missing],
    ["a relative path", "a.png"],
  ])("%s is refused on its field, the same way whether it exists or not", (_n, p) => {
    for (const [field, body] of inputs(p)) {
      const e = apiErrorOf(() => validateStart(body as never, "PRO", overHttp));
      expect([e.status, e.code, e.field]).toEqual([400, "invalid_value", field]);
      expect(e.message).toMatch(REFUSED);
      expect(e.message).not.toMatch(/not found/);
    }
  });

  it("http(s) URLs, asset ids and avatar ids are still accepted", () => {
    const v = validateStart(
      { type: "image", model: "imgA-4", prompt: "x", references: [{ url: "https://cdn.example.com/a.png" }, { avatar_id: "av_1" }] },
      "PRO",
      overHttp,
    );
    expect(v.references.map((r) => r.source)).toEqual(["https://cdn.example.com/a.png", "/m/av_1.jpg"]);
    const up = validateStart({ type: "video", model: "vidC-upscale", source_video: { asset_id: "0000000000000000000000aa" } }, "PRO", overHttp);
    expect(up.slots.source_video!.source).toBe("/m/a.mp4");
  });

  it("in process (allowLocalFiles true) the same local inputs are accepted", () => {
    const v = validateStart({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: png }, { url: `file://${png}` }] }, "PRO", lookups);
    expect(v.references.map((r) => r.source)).toEqual([png, png]);
  });
});

describe("locateUrl", () => {
  it.each([
    ["https://cdn.example.com/x.png?sig=1", { remote: "https://cdn.example.com/x.png?sig=1" }],
    ["file:///tmp/x.png", { local: "/tmp/x.png" }],
    ["/abs/x.png", { local: "/abs/x.png" }],
    ["rel/x.png", { local: "/base/rel/x.png" }],
    ["data:image/png;base64,AAAA", undefined],
    ["s3://bucket/x.png", undefined],
  ])("%s", (value, expected) => {
    expect(locateUrl(value, "/base")).toEqual(expected);
  });
});
