import { beforeAll, describe, expect, it } from "vitest";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { avatarHandlers, statusOf } from "../../src/features/avatar/emulator/local.js";
import { CATALOG_AVATARS } from "../../src/features/avatar/emulator/public/catalog.js";
import type { Handler } from "../../src/local/types.js";
import { contextFor, expectError, pngSizeOf, rejection, spaceRow } from "./avatar-fixtures.js";
import { withCatalogPictures } from "../helpers/catalog-pictures.js";

const LOOK_KEYS = ["id", "name", "place", "accessories", "action", "emotion", "selfie", "format", "thumbnail", "preview", "status", "model_available"];
const DETAIL_KEYS = [...LOOK_KEYS, "avatar_id", "avatar_name", "look_name", "gender", "age_range", "ethnicity", "hair_color", "error_message"];
const LIST_KEYS = [
  "id",
  "avatar_id",
  "avatar_name",
  "look_name",
  "gender",
  "age_range",
  "ethnicity",
  "hair_color",
  "place",
  "accessories",
  "action",
  "emotion",
  "selfie",
  "format",
  "thumbnail",
  "preview",
  "model_available",
  // The docs' items may carry tags (hosted-facts.md); every look here has a list, maybe empty.
  "tags",
];
const CATALOG_LOOKS = CATALOG_AVATARS.flatMap((a) => a.looks.map((l) => l.id));

describe("status mapping", () => {
  it.each([
    ["pending", "queued", "pending"],
    ["pending", undefined, "pending"],
    ["pending", "running", "processing"],
    ["ready", "done", "completed"],
    ["ready", undefined, "completed"],
    ["error", "done", "failed"],
    ["error", "failed", "failed"],
  ] as const)("look %s with job %s → %s", (look, job, status) => {
    expect(statusOf({ status: look }, job)).toBe(status);
  });

  it("walks pending → processing → completed on a real look", async () => {
    const t = openTestInstance({ worker: "none" });
    const res = await t.api.avatarCreate({ prompt: "a barista" });
    expect(await t.api.avatarStatus(res)).toEqual({ ...res, status: "pending" });
    t.db.prepare("UPDATE jobs SET status = 'running' WHERE ref = ?").run(res.look_id);
    expect(await t.api.avatarStatus(res)).toEqual({ ...res, status: "processing" });
    t.db.prepare("UPDATE jobs SET status = 'queued' WHERE ref = ?").run(res.look_id);
    await t.runUntilIdle();
    const done = await t.api.avatarStatus(res);
    expect(done.status).toBe("completed");
    expect(Object.keys(done.result!).sort()).toEqual(
      ["id", "avatar_name", "look_name", "gender", "place", "accessories", "action", "emotion", "selfie", "format", "thumbnail", "model_available"].sort(),
    );
    expect(done.error).toBeUndefined();
    await t.close();
  });

  it("a catalog look is completed", async () => {
    const t = openTestInstance();
    const s = await t.api.avatarStatus({ avatar_id: "av_lena", look_id: "lk_lena_gym" });
    expect(s).toMatchObject({ status: "completed", result: { id: "lk_lena_gym", avatar_name: "Lena", look_name: "Lena at the gym" } });
    expect(pngSizeOf(s.result!.thumbnail!)).toEqual({ width: 540, height: 960 });
    await t.close();
  });
});

describe("reads", () => {
  let t: TestInstance;
  let mine: { avatar_id: string; look_id: string };
  let failed: { avatar_id: string; look_id: string };

  beforeAll(async () => {
    t = openTestInstance();
    // The catalog's pictures drawn once per test process, not by the first list here ("a catalog look is completed" draws one).
    await withCatalogPictures(t.home);
    mine = await t.api.avatarCreate({ prompt: "friendly barista, warm light, woman with glasses" });
    failed = await t.api.avatarCreate({ prompt: "never", place: "kitchen" }, { simulate: "fail" });
    await t.runUntilIdle();
  });

  describe("GET /avatar/status errors", () => {
    it.each([
      [{}, 400, { error: expect.any(String), code: "INVALID_VALUE" }],
      [{ avatar_id: "av_maya" }, 400, { error: expect.any(String), code: "INVALID_VALUE" }],
      [{ look_id: "lk_maya_beach" }, 400, { error: expect.any(String), code: "INVALID_VALUE" }],
      [{ avatar_id: "av_nobody", look_id: "lk_maya_beach" }, 404, { error: "Avatar not found" }],
      [{ avatar_id: "av_maya", look_id: "lk_nope" }, 404, { error: "Look not found" }],
      [{ avatar_id: "av_maya", look_id: "lk_james_car" }, 404, { error: "Look not found" }],
    ])("%j → %i %j", async (q, status, body) => {
      expectError(await rejection(t.api.avatarStatus(q)), status, body);
    });

    it("a space that no longer exists → 404 {error} only", async () => {
      const ctx = contextFor(t, "PRO");
      const ghost = { ...ctx, space: { ...spaceRow(t, ctx.space.id), id: "sp_gone" } };
      const status = avatarHandlers.avatarStatus as Handler<"avatarStatus">;
      expectError(await rejection(() => status(ghost, { avatar_id: "av_maya", look_id: "lk_maya_beach" })), 404, { error: "Space not found" });
    });
  });

  describe("GET /avatar/{id}", () => {
    it("a catalog avatar with all its looks, created_at null, thumbnail its first look", async () => {
      const a = await t.api.avatarGet({ avatar_id: "av_robert" });
      expect(a).toMatchObject({ id: "av_robert", name: "Robert", gender: "male", age: "68", age_range: "senior", hair_color: "gray", created_at: null });
      expect(a.looks!.map((l) => l.id)).toEqual(["lk_robert_home", "lk_robert_outdoor", "lk_robert_kitchen", "lk_robert_office"]);
      for (const l of a.looks!) {
        expect(Object.keys(l).sort()).toEqual([...LOOK_KEYS].sort());
        expect(l).toMatchObject({ status: "ready", preview: null });
        expect(pngSizeOf(l.thumbnail!)).toEqual(l.format === "vertical" ? { width: 540, height: 960 } : { width: 960, height: 540 });
      }
      expect(a.thumbnail).toBe(a.looks![0]!.thumbnail!);
    });

    it("a space avatar, its failed look included with no thumbnail", async () => {
      const a = await t.api.avatarGet({ avatar_id: failed.avatar_id });
      expect(a).not.toHaveProperty("thumbnail");
      expect(a.looks).toEqual([expect.objectContaining({ id: failed.look_id, status: "error" })]);
      expect(a.looks![0]!).not.toHaveProperty("thumbnail");
    });

    it.each([["av_nobody"], [""]])("%j → 404 NOT_FOUND", async (id) => {
      // The rule itself: engines may refuse an empty path parameter before it is reached.
      const get = avatarHandlers.avatarGet as Handler<"avatarGet">;
      expectError(await rejection(() => get(contextFor(t, "PRO"), { avatar_id: id })), 404, { error: "Avatar not found", code: "NOT_FOUND" });
    });

    it("another space's avatar → 404 NOT_FOUND", async () => {
      const ctx = contextFor(t, "PRO");
      const get = avatarHandlers.avatarGet as Handler<"avatarGet">;
      expectError(await rejection(() => get(ctx, { avatar_id: mine.avatar_id })), 404, { error: "Avatar not found", code: "NOT_FOUND" });
    });
  });

  describe("GET /avatar/{id}/look/{look_id}", () => {
    it("the single-look record carries the avatar's fields and error_message", async () => {
      const l = await t.api.avatarLook(mine);
      expect(Object.keys(l).sort()).toEqual([...DETAIL_KEYS].sort());
      expect(l).toMatchObject({
        id: mine.look_id,
        avatar_id: mine.avatar_id,
        avatar_name: "Friendly barista",
        look_name: "Friendly barista",
        gender: "female",
        accessories: ["glasses"],
        status: "ready",
        error_message: null,
      });
      const f = await t.api.avatarLook(failed);
      expect(f).toMatchObject({ status: "error", error_message: expect.stringMatching(/failed/i), place: "kitchen" });
    });

    it.each([
      [{ avatar_id: "av_maya", look_id: "lk_james_car" }, "Look not found"],
      [{ avatar_id: "av_maya", look_id: "lk_nope" }, "Look not found"],
      [{ avatar_id: "av_nobody", look_id: "lk_maya_beach" }, "Avatar not found"],
    ])("%j → 404 NOT_FOUND (%s)", async (q, error) => {
      expectError(await rejection(t.api.avatarLook(q)), 404, { error, code: "NOT_FOUND" });
    });

    it("a space look asked under a catalog avatar is NOT_FOUND", async () => {
      expectError(await rejection(t.api.avatarLook({ avatar_id: "av_maya", look_id: mine.look_id })), 404, { error: "Look not found", code: "NOT_FOUND" });
    });
  });

  describe("GET /avatar/list", () => {
    it("space looks first, then the whole catalog; failed looks are not listed", async () => {
      const all = await t.api.avatarList();
      expect(all.map((i) => i.id)).toEqual([mine.look_id, ...CATALOG_LOOKS]);
      for (const i of all) expect(Object.keys(i).sort()).toEqual([...LIST_KEYS].sort());
      expect(all[0]).toMatchObject({ avatar_id: mine.avatar_id, place: "cafe", preview: null });
      expect(pngSizeOf(all[1]!.thumbnail!)).toBeDefined();
    });

    it("onlyPublic leaves the space's looks out (boolean or string)", async () => {
      expect((await t.api.avatarList({ onlyPublic: true })).map((i) => i.id)).toEqual(CATALOG_LOOKS);
      expect((await t.api.avatarList({ onlyPublic: "true" })).map((i) => i.id)).toEqual(CATALOG_LOOKS);
      expect((await t.api.avatarList({ onlyPublic: "false" })).map((i) => i.id)).toEqual([mine.look_id, ...CATALOG_LOOKS]);
    });

    it.each([
      [{ gender: "male", place: "kitchen" }, ["lk_robert_kitchen", "lk_marco_kitchen"]],
      [{ place: "kitchen,cafe" }, ["MINE", "lk_maya_kitchen", "lk_robert_kitchen", "lk_marco_kitchen"]],
      [{ place: "KITCHEN", onlyPublic: true }, ["lk_maya_kitchen", "lk_robert_kitchen", "lk_marco_kitchen"]],
      [{ accessories: "microphone" }, ["lk_james_podcast", "lk_zoe_podcast"]],
      [{ accessories: "tie,towel" }, ["lk_robert_office", "lk_marco_bathroom"]],
      [{ age_range: "senior" }, ["lk_robert_home", "lk_robert_outdoor", "lk_robert_kitchen", "lk_robert_office"]],
      [{ age_range: "adolescent,senior", action: "studying" }, ["lk_priya_home"]],
      [{ hair_color: "bald", selfie: true }, ["lk_marco_bathroom", "lk_marco_car"]],
      [{ hair_color: "bald", selfie: "false" as const }, ["lk_marco_kitchen"]],
      [{ ethnicity: "east_asian", emotion: "happy" }, ["lk_kenji_bedroom"]],
      [{ gender: "female", emotion: "excited", selfie: true }, ["lk_priya_bedroom"]],
      [{ emotion: "happy", accessories: "glasses", gender: "female" }, ["MINE"]],
      [{ place: "moon" }, []],
    ])("%j", async (q, ids) => {
      const got = (await t.api.avatarList(q)).map((i) => (i.id === mine.look_id ? "MINE" : i.id));
      expect(got).toEqual(ids);
    });

    it.each([
      [{ gender: "other" }, "gender"],
      [{ selfie: "maybe" }, "selfie"],
      [{ onlyPublic: "yes" }, "onlyPublic"],
    ])("%j → 400 invalid_value on %s", async (q, field) => {
      // Deliberately invalid queries: the cast lets them past the strict request type.
      expectError(await rejection(t.api.avatarList(q as never)), 400, {
        error: expect.any(String),
        details: [{ code: "invalid_value", message: expect.any(String), field }],
      });
    });
  });
});
