import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { avatarHandlers } from "../../src/features/avatar/emulator/local.js";
import type { Handler } from "../../src/local/types.js";
import type { LookJobPayload } from "../../src/features/avatar/emulator/job.js";
import { contextFor, expectError, pngSizeOf, rejection, spaceRow, writeImage } from "./avatar-fixtures.js";

const edit = avatarHandlers.avatarEdit as Handler<"avatarEdit">;

let t: TestInstance;
let base: { avatar_id: string; look_id: string };

beforeAll(async () => {
  t = openTestInstance();
  base = await t.api.avatarCreate({ prompt: "a man in an office with glasses" });
  await t.api.avatarCreate({ prompt: "a woman at the beach" }); // a second avatar in the space
  await t.runUntilIdle();
});

function spaceId(): string {
  return t.spaceForKey(t.key)!.id;
}

function jobPayload(lookId: string): LookJobPayload {
  const row = t.db.prepare("SELECT payload FROM jobs WHERE kind = 'look' AND ref = ?").get(lookId) as { payload: string };
  return JSON.parse(row.payload) as LookJobPayload;
}

describe("avatar edit", () => {
  it("makes a new pending look that becomes ready; the source look is unchanged; 2 credits", async () => {
    const sourceBefore = await t.api.avatarLook(base);
    const sourceBytes = fs.readFileSync(new URL(sourceBefore.thumbnail!));
    const before = t.ledger.balance(spaceId());
    const res = await t.api.avatarEdit({ ...base, prompt: "now outdoors in a park" });
    expect(res.avatar_id).toBe(base.avatar_id);
    expect(res.look_id).not.toBe(base.look_id);
    expect(t.ledger.balance(spaceId())).toBe(before - 2000);
    const pending = await t.api.avatarLook(res);
    expect(["pending", "ready"]).toContain(pending.status);
    await t.runUntilIdle();
    const look = await t.api.avatarLook(res);
    expect(look).toMatchObject({ status: "ready", format: "vertical", accessories: ["glasses"], place: "office" });
    expect(pngSizeOf(look.thumbnail!)).toEqual({ width: 1152, height: 2048 });
    expect(await t.api.avatarLook(base)).toEqual(sourceBefore);
    expect(fs.readFileSync(new URL(sourceBefore.thumbnail!)).equals(sourceBytes)).toBe(true);
    const avatar = await t.api.avatarGet({ avatar_id: base.avatar_id });
    expect(avatar.looks!.map((l) => l.id)).toEqual([base.look_id, res.look_id]);
  });

  it("draws the source look's picture first, then imageUrls", async () => {
    const extra = await writeImage(path.join(t.home, "in", "extra.png"), 30, 30);
    const res = await t.api.avatarEdit({ ...base, prompt: "with a product", imageUrls: [extra] });
    const p = jobPayload(res.look_id);
    const src = t.db.prepare("SELECT image_path FROM looks WHERE id = ?").get(base.look_id) as { image_path: string };
    expect(p.source).toBe(src.image_path);
    expect(p.references).toEqual([extra]);
    await t.runUntilIdle();
    expect((await t.api.avatarStatus(res)).status).toBe("completed");
  });

  it("4K horizontal costs 4 and renders 3840x2160; style podcast moves the place", async () => {
    const before = t.ledger.balance(spaceId());
    const res = await t.api.avatarEdit({ ...base, prompt: "on a show", resolution: "4K", format: "horizontal", style: "podcast" });
    expect(t.ledger.balance(spaceId())).toBe(before - 4000);
    await t.runUntilIdle();
    const look = await t.api.avatarLook(res);
    expect(look).toMatchObject({ format: "horizontal", place: "podcast" });
    expect(pngSizeOf(look.thumbnail!)).toEqual({ width: 3840, height: 2160 });
  });

  it("edits a catalog look: the new look belongs to this space only", async () => {
    const res = await t.api.avatarEdit({ avatar_id: "av_maya", look_id: "lk_maya_kitchen", prompt: "in a bakery" });
    await t.runUntilIdle();
    const mine = await t.api.avatarGet({ avatar_id: "av_maya" });
    expect(mine.looks!.map((l) => l.id)).toContain(res.look_id);
    expect(mine.created_at).toBeNull();
    const look = await t.api.avatarLook(res);
    expect(look).toMatchObject({ avatar_id: "av_maya", avatar_name: "Maya", status: "ready", place: "kitchen", accessories: ["apron"] });
    const ctx = contextFor(t, "PRO", 10);
    const get = avatarHandlers.avatarGet as Handler<"avatarGet">;
    const theirs = await get(ctx, { avatar_id: "av_maya" });
    expect(theirs.looks!.map((l) => l.id)).not.toContain(res.look_id);
  });

  it("sends the avatar_edit webhook, and GENERATION_FAILED with a refund when it fails", async () => {
    const before = t.ledger.balance(spaceId());
    const ok = await t.api.avatarEdit({ ...base, prompt: "good", webhook_url: "http://127.0.0.1:9/hook" });
    const bad = await t.api.avatarEdit({ ...base, prompt: "bad", webhook_url: "http://127.0.0.1:9/hook" }, { simulate: "fail" });
    await t.runUntilIdle();
    const payloads = t.webhookDeliveries().map((d) => d.payload as Record<string, unknown>);
    expect(payloads.find((p) => p.look_id === ok.look_id)).toMatchObject({
      task: "avatar_edit",
      status: "completed",
      avatar_id: base.avatar_id,
      result: { id: ok.look_id, status: "ready" },
    });
    expect(payloads.find((p) => p.look_id === bad.look_id)).toEqual({
      task: "avatar_edit",
      status: "failed",
      avatar_id: base.avatar_id,
      look_id: bad.look_id,
      error: { code: "GENERATION_FAILED", message: expect.any(String) },
    });
    expect(t.ledger.balance(spaceId())).toBe(before - 2000);
  });
});

describe("avatar edit: X-Local-Simulate and local files", () => {
  it.each([["explode"], ["fail:bad code!"]])("X-Local-Simulate %j → 400 invalid_value on the header, nothing debited", async (simulate) => {
    const ctx = contextFor(t, "PRO", 10, simulate);
    const e = await rejection(() => edit(ctx, { avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "p" }));
    expect([e.status, e.code, e.field]).toEqual([400, "invalid_value", "X-Local-Simulate"]);
    expect(t.ledger.balance(ctx.space.id)).toBe(10_000);
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM looks WHERE space_id = ?").get(ctx.space.id)).toEqual({ n: 0 });
  });

  it("fail:<CODE> fails the new look with that code on the status endpoint", async () => {
    const ctx = contextFor(t, "PRO", 10, "fail:EDIT_DOWN");
    const res = await edit(ctx, { avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "p" });
    await t.runUntilIdle();
    const status = avatarHandlers.avatarStatus as Handler<"avatarStatus">;
    expect((await status(ctx, res)).error).toEqual({ code: "EDIT_DOWN", message: expect.any(String) });
    expect(t.ledger.balance(ctx.space.id)).toBe(10_000);
  });

  it("imageUrls naming local files are refused over HTTP, whether they exist or not; accepted in process", async () => {
    const extra = await writeImage(path.join(t.home, "in", "edit-extra.png"), 20, 20);
    const overHttp = contextFor(t, "PRO", 10, undefined, false);
    for (const ref of [extra, `file://${extra}`, path.join(t.home, "in", "nothing.png")]) {
      const e = await rejection(() => edit(overHttp, { avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "p", imageUrls: [ref] }));
      expectError(e, 400, { error: "imageUrls[0]: local files are not accepted over HTTP; use an http(s) URL", code: "INVALID_VALUE" });
    }
    expect(t.ledger.balance(overHttp.space.id)).toBe(10_000);
    const inProcess = contextFor(t, "PRO", 10);
    const res = await edit(inProcess, { avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "p", imageUrls: [extra] });
    expect(jobPayload(res.look_id).references).toEqual([extra]);
  });
});

describe("avatar edit errors", () => {
  it.each([
    [{}, 400, { error: expect.any(String), code: "MISSING_AVATAR_ID" }],
    [{ avatar_id: "av_maya" }, 400, { error: expect.any(String), code: "MISSING_LOOK_ID" }],
    [{ avatar_id: "av_maya", look_id: "lk_maya_kitchen" }, 400, { error: expect.any(String), code: "MISSING_PROMPT" }],
    [{ avatar_id: "av_maya", look_id: "lk_maya_kitchen", prompt: "p", webhook_url: "x" }, 400, { error: expect.any(String), code: "INVALID_WEBHOOK_URL" }],
    [{ avatar_id: "av_nobody", look_id: "lk_maya_kitchen", prompt: "p" }, 404, { error: "Avatar not found" }],
    [{ avatar_id: "av_maya", look_id: "lk_nope", prompt: "p" }, 404, { error: expect.any(String), code: "LOOK_NOT_FOUND" }],
    [{ avatar_id: "av_maya", look_id: "lk_james_car", prompt: "p" }, 404, { error: expect.any(String), code: "LOOK_NOT_FOUND" }],
  ])("%j → %i %j", async (body, status, errBody) => {
    const before = t.ledger.balance(spaceId());
    expectError(await rejection(t.api.avatarEdit(body)), status, errBody);
    expect(t.ledger.balance(spaceId())).toBe(before);
  });

  it("an avatar of another space is AVATAR_NOT_FOUND with only {error}", async () => {
    const ctx = contextFor(t, "PRO", 10);
    expectError(await rejection(() => edit(ctx, { ...base, prompt: "p" })), 404, { error: "Avatar not found" });
  });

  it("NO_IMAGE_AVAILABLE when the source has no picture and no imageUrls; imageUrls make it possible", async () => {
    const idle = openTestInstance({ worker: "none" });
    const pending = await idle.api.avatarCreate({ prompt: "still generating" });
    const e = await rejection(idle.api.avatarEdit({ ...pending, prompt: "p" }));
    expectError(e, 400, { error: expect.any(String), code: "NO_IMAGE_AVAILABLE" });
    const extra = await writeImage(path.join(idle.home, "in", "x.png"), 20, 20);
    const res = await idle.api.avatarEdit({ ...pending, prompt: "p", imageUrls: [extra] });
    const row = idle.db.prepare("SELECT payload FROM jobs WHERE ref = ?").get(res.look_id) as { payload: string };
    expect(JSON.parse(row.payload)).toMatchObject({ source: null, references: [extra] });
    await idle.close();
  });

  it("short of credits → 402 with required and available", async () => {
    const ctx = contextFor(t, "PRO", 3);
    expectError(await rejection(() => edit(ctx, { avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "p", resolution: "4K" })), 402, {
      error: expect.any(String),
      code: "INSUFFICIENT_CREDITS",
      required: 4,
      available: 3,
    });
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM looks WHERE space_id = ?").get(ctx.space.id)).toEqual({ n: 0 });
  });

  it("a space that no longer exists → 404 SPACE_NOT_FOUND", async () => {
    const ctx = contextFor(t, "PRO", 10);
    const ghost = { ...ctx, space: { ...spaceRow(t, ctx.space.id), id: "sp_gone" } };
    expectError(await rejection(() => edit(ghost, { avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "p" })), 404, {
      error: expect.any(String),
      code: "SPACE_NOT_FOUND",
    });
  });

  it("a store that refuses the write → 500 FAILED_TO_PERSIST, credits untouched", async () => {
    const ctx = contextFor(t, "PRO", 10);
    t.db.exec(`CREATE TRIGGER refuse_edit BEFORE INSERT ON looks BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    try {
      const e = await rejection(() => edit(ctx, { avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "p" }));
      expectError(e, 500, { error: expect.any(String), code: "FAILED_TO_PERSIST" });
      expect(t.ledger.balance(ctx.space.id)).toBe(10_000);
    } finally {
      t.db.exec(`DROP TRIGGER refuse_edit`);
    }
  });
});
