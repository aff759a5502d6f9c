import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MODEL_AVAILABLE } from "../../src/features/avatar/contract.js";
import { CATALOG_AVATARS, catalogLookRelPath } from "../../src/features/avatar/emulator/public/catalog.js";
import { avatarThumbnailPath, ensureAvatarThumbnail } from "../../src/features/avatar/emulator/public/lookup.js";
import { openTestInstance } from "../helpers/local.js";
import { pngSizeOf, writeImage } from "./avatar-fixtures.js";

describe("the public avatar catalog", () => {
  it("has at least 8 avatars of both genders with 2 to 4 looks each and unique ids", () => {
    expect(CATALOG_AVATARS.length).toBeGreaterThanOrEqual(8);
    expect(new Set(CATALOG_AVATARS.map((a) => a.gender))).toEqual(new Set(["male", "female"]));
    for (const a of CATALOG_AVATARS) expect(a.looks.length, a.id).toBeGreaterThanOrEqual(2);
    for (const a of CATALOG_AVATARS) expect(a.looks.length, a.id).toBeLessThanOrEqual(4);
    const ids = CATALOG_AVATARS.flatMap((a) => [a.id, ...a.looks.map((l) => l.id)]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("varies format, place, action, emotion and accessories, with models from the spec's list", () => {
    const looks = CATALOG_AVATARS.flatMap((a) => a.looks);
    expect(new Set(looks.map((l) => l.format))).toEqual(new Set(["vertical", "horizontal"]));
    expect(new Set(looks.map((l) => l.place)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(looks.map((l) => l.action)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(looks.map((l) => l.emotion)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(looks.flatMap((l) => l.accessories)).size).toBeGreaterThanOrEqual(8);
    expect(looks.some((l) => l.selfie) && looks.some((l) => !l.selfie)).toBe(true);
    for (const l of looks) {
      expect(l.model_available.length, l.id).toBeGreaterThan(0);
      for (const m of l.model_available) expect(MODEL_AVAILABLE).toContain(m);
    }
  });

  it("uses the hosted vocabulary for age range and hair colour", () => {
    for (const a of CATALOG_AVATARS) {
      expect(["senior", "adult", "young_adult", "adolescent"]).toContain(a.age_range);
      expect(["black", "brown", "blonde", "red", "gray", "white", "bald"]).toContain(a.hair_color);
    }
  });
});

describe("catalog thumbnails", () => {
  it("are rendered on first need at their format's size, and not again", async () => {
    const t = openTestInstance();
    const file = path.join(t.mediaDir, catalogLookRelPath("lk_maya_office"));
    expect(fs.existsSync(file)).toBe(false);
    const look = await t.api.avatarLook({ avatar_id: "av_maya", look_id: "lk_maya_office" });
    expect(pngSizeOf(look.thumbnail!)).toEqual({ width: 960, height: 540 });
    expect(fs.existsSync(path.join(t.mediaDir, catalogLookRelPath("lk_maya_kitchen")))).toBe(false);
    const mtime = fs.statSync(file).mtimeMs;
    await t.api.avatarGet({ avatar_id: "av_maya" });
    expect(pngSizeOf(path.join(t.mediaDir, catalogLookRelPath("lk_maya_kitchen")))).toEqual({ width: 540, height: 960 });
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    await t.close();
  });

  it("avatarThumbnailPath: catalog first look, space first ready look, unknown undefined", async () => {
    const t = openTestInstance();
    const spaceId = t.spaceForKey(t.key)!.id;
    const catalogPath = avatarThumbnailPath(t, spaceId, "av_james");
    expect(catalogPath).toBe(path.join(t.mediaDir, catalogLookRelPath("lk_james_podcast")));
    expect(await ensureAvatarThumbnail(t, spaceId, "av_james")).toBe(catalogPath);
    expect(pngSizeOf(catalogPath!)).toEqual({ width: 960, height: 540 });

    const img = await writeImage(path.join(t.home, "in", "me.png"), 40, 80);
    const mine = await t.api.avatarCreate({ images: [img] });
    const own = avatarThumbnailPath(t, spaceId, mine.avatar_id);
    expect(own && fs.readFileSync(own).equals(fs.readFileSync(img))).toBe(true);

    expect(avatarThumbnailPath(t, spaceId, "av_nobody")).toBeUndefined();
    expect(avatarThumbnailPath(t, "sp_other", mine.avatar_id)).toBeUndefined();
    await t.close();
  });

  it("avatarThumbnailPath is undefined while a space avatar has no ready look", async () => {
    const t = openTestInstance({ worker: "none" });
    const spaceId = t.spaceForKey(t.key)!.id;
    const res = await t.api.avatarCreate({ prompt: "pending" });
    expect(avatarThumbnailPath(t, spaceId, res.avatar_id)).toBeUndefined();
    expect(await ensureAvatarThumbnail(t, spaceId, res.avatar_id)).toBeUndefined();
    await t.close();
  });

  it("ensureAvatarThumbnail takes the job's signal: an aborted job stops waiting; the picture is made for the next caller", async () => {
    const t = openTestInstance({ worker: "none" });
    const spaceId = t.spaceForKey(t.key)!.id;
    const ctrl = new AbortController();
    ctrl.abort(new Error("lease lost"));
    await expect(ensureAvatarThumbnail(t, spaceId, "av_zoe", ctrl.signal)).rejects.toThrow("lease lost");
    const file = path.join(t.mediaDir, catalogLookRelPath("lk_zoe_beach"));
    expect(fs.existsSync(file)).toBe(false);
    expect(await ensureAvatarThumbnail(t, spaceId, "av_zoe", new AbortController().signal)).toBe(file);
    expect(pngSizeOf(file)).toEqual({ width: 960, height: 540 });

    // Aborted while the shared render runs: this caller is released, the render still lands its file.
    const running = new AbortController();
    const waiting = ensureAvatarThumbnail(t, spaceId, "av_priya", running.signal);
    const other = ensureAvatarThumbnail(t, spaceId, "av_priya");
    await new Promise((r) => setImmediate(r));
    running.abort(new Error("stopping"));
    await expect(waiting).rejects.toThrow("stopping");
    const made = await other;
    expect(pngSizeOf(made!)).toEqual({ width: 540, height: 960 });
    await t.close();
  });
});
