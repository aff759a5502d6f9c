import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestInstance, waitFor, type TestInstance } from "../helpers/local.js";
import { avatarHandlers } from "../../src/features/avatar/emulator/local.js";
import type { Handler } from "../../src/local/types.js";
import { contextFor, expectError, insertAvatar, pngSizeOf, rejection, spaceRow, writeImage } from "./avatar-fixtures.js";

const create = avatarHandlers.avatarCreate as Handler<"avatarCreate">;

let t: TestInstance;
let hooks: { body: Record<string, unknown> }[] = [];
let hookServer: http.Server;
let hookUrl: string;

beforeAll(async () => {
  t = openTestInstance();
  hookServer = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      hooks.push({ body: JSON.parse(data) as Record<string, unknown> });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await new Promise((r) => hookServer.close(r));
});

function balance(spaceId: string): number {
  return t.ledger.balance(spaceId) / 1000;
}

function defaultSpaceId(): string {
  return t.spaceForKey(t.key)!.id;
}

describe("prompt-based create", () => {
  it("answers {avatar_id, look_id}, debits 2 at 2K, and the look becomes ready with a real picture", async () => {
    const spaceId = defaultSpaceId();
    const before = balance(spaceId);
    const res = await t.api.avatarCreate({ prompt: "friendly barista, warm light" });
    expect(Object.keys(res).sort()).toEqual(["avatar_id", "look_id"]);
    expect(balance(spaceId)).toBe(before - 2);
    await t.runUntilIdle();
    const status = await t.api.avatarStatus(res);
    expect(status.status).toBe("completed");
    expect(status.result).toMatchObject({ id: res.look_id, format: "vertical", place: "cafe", emotion: "happy" });
    expect(pngSizeOf(status.result!.thumbnail!)).toEqual({ width: 1152, height: 2048 });
    expect(balance(spaceId)).toBe(before - 2);
    const avatar = await t.api.avatarGet({ avatar_id: res.avatar_id });
    expect(avatar.looks).toHaveLength(1);
    expect(avatar.looks![0]!).toMatchObject({ id: res.look_id, status: "ready" });
    expect(avatar.thumbnail).toBe(status.result!.thumbnail);
    expect(avatar.name).toBe("Friendly barista");
    expect(avatar.created_at).toEqual(expect.any(String));
  });

  it("4K horizontal costs 4 and renders 3840x2160; name, place, style are applied", async () => {
    const spaceId = defaultSpaceId();
    const before = balance(spaceId);
    const res = await t.api.avatarCreate({
      prompt: "a woman hosting a show",
      resolution: "4K",
      format: "horizontal",
      style: "podcast",
      name: "Host",
    });
    expect(balance(spaceId)).toBe(before - 4);
    await t.runUntilIdle();
    const look = await t.api.avatarLook(res);
    expect(look).toMatchObject({
      status: "ready",
      format: "horizontal",
      place: "podcast",
      avatar_name: "Host",
      look_name: "Host",
      gender: "female",
      error_message: null,
    });
    expect(pngSizeOf(look.thumbnail!)).toEqual({ width: 3840, height: 2160 });
  });

  it("selfie style marks the look selfie; explicit place wins over the style", async () => {
    const res = await t.api.avatarCreate({ prompt: "a man", style: "selfie", place: "rooftop" });
    await t.runUntilIdle();
    expect(await t.api.avatarLook(res)).toMatchObject({ selfie: true, place: "rooftop" });
  });

  it("element images (or their alias elements) are drawn into the picture", async () => {
    const logo = await writeImage(path.join(t.home, "in", "logo.png"), 64, 64);
    const a = await t.api.avatarCreate({ prompt: "barista with our logo", elementImages: [logo] });
    const b = await t.api.avatarCreate({ prompt: "barista with our logo", elements: [logo] });
    await t.runUntilIdle();
    const [sa, sb] = [await t.api.avatarStatus(a), await t.api.avatarStatus(b)];
    expect([sa.status, sb.status]).toEqual(["completed", "completed"]);
    const plain = await t.api.avatarCreate({ prompt: "barista with our logo" });
    await t.runUntilIdle();
    const sp = await t.api.avatarStatus(plain);
    const bytes = (u: string) => fs.readFileSync(new URL(u));
    expect(bytes(sa.result!.thumbnail!).equals(bytes(sb.result!.thumbnail!))).toBe(true);
    expect(bytes(sa.result!.thumbnail!).equals(bytes(sp.result!.thumbnail!))).toBe(false);
  });

  it("sends the avatar_create webhook with the ready look", async () => {
    hooks = [];
    const res = await t.api.avatarCreate({ prompt: "chef in a kitchen", webhook_url: hookUrl });
    await waitFor(() => hooks.length > 0, 15_000);
    expect(hooks[0]!.body).toMatchObject({
      task: "avatar_create",
      status: "completed",
      avatar_id: res.avatar_id,
      look_id: res.look_id,
      result: { id: res.look_id, status: "ready", place: "kitchen" },
    });
    expect(pngSizeOf((hooks[0]!.body.result as { thumbnail: string }).thumbnail)).toEqual({ width: 1152, height: 2048 });
  });

  it("a failed generation (simulated) ends failed, refunds, and reports GENERATION_FAILED by webhook", async () => {
    hooks = [];
    const spaceId = defaultSpaceId();
    const before = balance(spaceId);
    const res = await t.api.avatarCreate({ prompt: "doomed", webhook_url: hookUrl }, { simulate: "fail" });
    expect(balance(spaceId)).toBe(before - 2);
    await waitFor(() => hooks.length > 0, 15_000);
    expect(hooks[0]!.body).toEqual({
      task: "avatar_create",
      status: "failed",
      avatar_id: res.avatar_id,
      look_id: res.look_id,
      error: { code: "GENERATION_FAILED", message: expect.any(String) },
    });
    expect(balance(spaceId)).toBe(before);
    const status = await t.api.avatarStatus(res);
    expect(status).toEqual({
      avatar_id: res.avatar_id,
      look_id: res.look_id,
      status: "failed",
      error: { code: "LOOK_GENERATION_FAILED", message: expect.any(String) },
    });
    const look = await t.api.avatarLook(res);
    expect(look).toMatchObject({ status: "error", error_message: expect.any(String) });
    // A URL or absent, never "" (spec: thumbnail is a URL).
    expect(look).not.toHaveProperty("thumbnail");
    const refunds = t.ledger(spaceId).filter((e) => e.ref === res.look_id);
    expect(refunds.map((e) => [e.kind, e.amount])).toEqual([
      ["debit", -2],
      ["refund", 2],
    ]);
  });

  it("fail:<CODE> shows that code on the status endpoint; the webhook still says GENERATION_FAILED", async () => {
    const res = await t.api.avatarCreate({ prompt: "doomed", webhook_url: hookUrl }, { simulate: "fail:CUSTOM_CODE" });
    await t.runUntilIdle();
    expect((await t.api.avatarStatus(res)).error?.code).toBe("CUSTOM_CODE");
    const d = t.webhookDeliveries().find((w) => (w.payload as { look_id?: string }).look_id === res.look_id);
    expect((d!.payload as { error: { code: string } }).error.code).toBe("GENERATION_FAILED");
    expect((await t.api.avatarLook(res)).error_message).toMatch(/simulated/);
  });

  it("without a name, the avatar and its look are named by the prompt's first clause", async () => {
    const res = await t.api.avatarCreate({ prompt: "a tall man, in a grey suit" });
    expect(await t.api.avatarLook(res)).toMatchObject({ avatar_name: "A tall man", look_name: "A tall man" });
    const named = await t.api.avatarCreate({ prompt: "a tall man, in a grey suit", name: "  Host " });
    expect(await t.api.avatarLook(named)).toMatchObject({ avatar_name: "Host", look_name: "Host" });
  });

  it("an element image that cannot be fetched fails the look at once and refunds", async () => {
    const spaceId = defaultSpaceId();
    const before = balance(spaceId);
    const res = await t.api.avatarCreate({ prompt: "x", elementImages: [path.join(t.home, "missing.png")] });
    await t.runUntilIdle();
    const s = await t.api.avatarStatus(res);
    expect(s.status).toBe("failed");
    expect(s.error!.message).toMatch(/could not be fetched/);
    expect(balance(spaceId)).toBe(before);
    const job = t.db.prepare("SELECT attempts, status FROM jobs WHERE kind = 'look' AND ref = ?").get(res.look_id);
    expect(job).toEqual({ attempts: 1, status: "done" });
  });
});

describe("X-Local-Simulate on create", () => {
  it.each([["explode"], ["fail:bad code!"], ["fail:"], ["FAIL"]])("%j → 400 invalid_value on X-Local-Simulate, nothing written or debited", async (simulate) => {
    const ctx = contextFor(t, "PRO", 10, simulate);
    const img = await writeImage(path.join(t.home, "in", "sim.png"), 20, 20);
    for (const body of [{ prompt: "x" }, { images: [img] }]) {
      const e = await rejection(() => create(ctx, body));
      expect([e.status, e.code, e.field]).toEqual([400, "invalid_value", "X-Local-Simulate"]);
    }
    expect(t.ledger.balance(ctx.space.id)).toBe(10_000);
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM avatars WHERE space_id = ?").get(ctx.space.id)).toEqual({ n: 0 });
  });

  it("an image-based create starts no generation: fail is refused with 400, not silently ignored", async () => {
    const ctx = contextFor(t, "PRO", 10, "fail");
    const img = await writeImage(path.join(t.home, "in", "sim2.png"), 20, 20);
    const e = await rejection(() => create(ctx, { images: [img] }));
    expect([e.status, e.code, e.field]).toEqual([400, "invalid_value", "X-Local-Simulate"]);
    expect(e.message).toMatch(/image-based/);
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM avatars WHERE space_id = ?").get(ctx.space.id)).toEqual({ n: 0 });
    // Without the header it is made as usual.
    expect((await create({ ...ctx, simulate: undefined }, { images: [img] })).look_id).toMatch(/^lk_/);
  });
});

describe("local files over HTTP (dispatch with allowLocalFiles false)", () => {
  const REFUSED = (field: string) => ({ error: `${field}: local files are not accepted over HTTP; use an http(s) URL`, code: "INVALID_VALUE" });

  async function dispatch(body: Record<string, unknown>, allowLocalFiles: boolean) {
    return t.service.dispatch(`Bearer ${t.key}`, "avatarCreate", body, { urls: t.fileUrls(), allowLocalFiles });
  }

  it("images and elementImages that name local files → 400, the same whether the file exists or not", async () => {
    const img = await writeImage(path.join(t.home, "in", "over-http.png"), 20, 20);
    const missing = path.join(t.home, "in", "never-made.png");
    const spaceId = defaultSpaceId();
    const before = balance(spaceId);
    const count = t.db.prepare("SELECT COUNT(*) AS n FROM avatars").get();
    for (const ref of [img, `file://${img}`, missing, `file://${missing}`]) {
      expect(await dispatch({ images: [ref] }, false)).toMatchObject({ status: 400, body: REFUSED("images[0]") });
      expect(await dispatch({ prompt: "x", elementImages: [ref] }, false)).toMatchObject({ status: 400, body: REFUSED("elementImages[0]") });
      expect(await dispatch({ prompt: "x", elements: ["https://cdn.example.com/ok.png", ref] }, false)).toMatchObject({ status: 400, body: REFUSED("elements[1]") });
    }
    expect(balance(spaceId)).toBe(before);
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM avatars").get()).toEqual(count);
  });

  it("in process (allowLocalFiles true) the same request is served", async () => {
    const img = await writeImage(path.join(t.home, "in", "in-process.png"), 20, 20);
    const res = await dispatch({ images: [img] }, true);
    expect(res).toMatchObject({ status: 201, body: { avatar_id: expect.any(String), look_id: expect.any(String) } });
  });
});

describe("image-based create", () => {
  it("makes ready looks at once, free, one per image, format from the image", async () => {
    const spaceId = defaultSpaceId();
    const before = balance(spaceId);
    const tall = await writeImage(path.join(t.home, "in", "tall.jpg"), 90, 160);
    const wide = await writeImage(path.join(t.home, "in", "wide.png"), 160, 90);
    const res = await t.api.avatarCreate({ images: [tall, `file://${wide}`], name: "Me" });
    expect(balance(spaceId)).toBe(before);
    const avatar = await t.api.avatarGet({ avatar_id: res.avatar_id });
    expect(avatar.name).toBe("Me");
    expect(avatar.looks!.map((l) => [l.status, l.format])).toEqual([
      ["ready", "vertical"],
      ["ready", "horizontal"],
    ]);
    expect(avatar.looks![0]!.id!).toBe(res.look_id);
    expect(fs.readFileSync(new URL(avatar.looks![1]!.thumbnail!)).equals(fs.readFileSync(wide))).toBe(true);
    expect(await t.api.avatarStatus(res)).toMatchObject({ status: "completed" });
  });

  it("fetches http(s) images; a missing one is INVALID_VALUE", async () => {
    const img = fs.readFileSync(await writeImage(path.join(t.home, "in", "served.png"), 50, 30));
    const server = http.createServer((req, res) => {
      if (req.url === "/a.png") res.writeHead(200, { "content-type": "image/png" }).end(img);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await t.api.avatarCreate({ images: [`${base}/a.png`] });
      const look = await t.api.avatarLook(res);
      expect(look).toMatchObject({ status: "ready", format: "horizontal" });
      expect(fs.readFileSync(new URL(look.thumbnail!)).equals(img)).toBe(true);
      const e = await rejection(t.api.avatarCreate({ images: [`${base}/gone.png`] }));
      expectError(e, 400, { error: expect.stringMatching(/images\[0\] could not be fetched/), code: "INVALID_VALUE" });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("sends a completed webhook right away", async () => {
    hooks = [];
    const img = await writeImage(path.join(t.home, "in", "hook.png"), 40, 60);
    const res = await t.api.avatarCreate({ images: [img], webhook_url: hookUrl });
    await waitFor(() => hooks.length > 0, 15_000);
    expect(hooks[0]!.body).toMatchObject({ task: "avatar_create", status: "completed", look_id: res.look_id, result: { status: "ready" } });
  });

  it.each([
    ["a missing file", (home: string) => path.join(home, "nope.png"), /could not be fetched/],
    ["a text file named .png", (home: string) => (fs.writeFileSync(path.join(home, "fake.png"), "hello"), path.join(home, "fake.png")), /not a PNG, JPEG or WebP/],
  ])("%s → 400 INVALID_VALUE and nothing is created", async (_n, make, message) => {
    const before = t.db.prepare("SELECT COUNT(*) AS n FROM avatars").get();
    const e = await rejection(t.api.avatarCreate({ images: [make(t.home)] }));
    expectError(e, 400, { error: expect.stringMatching(message), code: "INVALID_VALUE" });
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM avatars").get()).toEqual(before);
  });
});

describe("create errors", () => {
  it.each([[{ prompt: "x", webhook_url: "nope" }], [{ prompt: "x", style: "vintage" }], [{ images: ["ftp://example.invalid/a.png"] }]])(
    "%j → 400 {error, code: INVALID_VALUE}",
    async (body) => {
      // Deliberately invalid requests: the cast lets them past the strict request type.
      expectError(await rejection(t.api.avatarCreate(body as never)), 400, { error: expect.any(String), code: "INVALID_VALUE" });
    },
  );

  it("no prompt and no images → 400 validation body naming prompt", async () => {
    const e = await rejection(t.api.avatarCreate({}));
    expectError(e, 400, { error: expect.any(String), details: [{ code: "INVALID_VALUE", message: expect.any(String), field: "prompt" }] });
  });

  it("short of credits → 402 with required and available, nothing written", async () => {
    const ctx = contextFor(t, "PRO", 1.5);
    const e = await rejection(() => create(ctx, { prompt: "x" }));
    expectError(e, 402, { error: expect.any(String), code: "INSUFFICIENT_CREDITS", required: 2, available: 1.5 });
    const e4 = await rejection(() => create(ctx, { prompt: "x", resolution: "4K" }));
    expect(e4.body).toMatchObject({ required: 4, available: 1.5 });
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM avatars WHERE space_id = ?").get(ctx.space.id)).toEqual({ n: 0 });
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM looks WHERE space_id = ?").get(ctx.space.id)).toEqual({ n: 0 });
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE space_id = ?").get(ctx.space.id)).toEqual({ n: 0 });
  });

  it.each([
    ["free", 1],
    ["start", 3],
    ["PRO", 25],
    ["ENTREPRISE", 100],
  ] as const)("the %s plan holds %i custom avatars, then 403 AVATAR_LIMIT_REACHED", async (plan, cap) => {
    const ctx = contextFor(t, plan, 10);
    const img = await writeImage(path.join(t.home, "in", "cap.png"), 20, 20);
    for (let i = 0; i < cap - 1; i++) insertAvatar(t, ctx.space.id, `av_cap_${plan}_${i}`, i % 2 ? "pending" : "ready");
    await create(ctx, { images: [img] });
    const e1 = await rejection(() => create(ctx, { images: [img] }));
    expectError(e1, 403, { error: expect.stringContaining(String(cap)), code: "AVATAR_LIMIT_REACHED" });
    const e2 = await rejection(() => create(ctx, { prompt: "one more" }));
    expect(e2.code).toBe("AVATAR_LIMIT_REACHED");
    expect(t.ledger.balance(ctx.space.id)).toBe(10_000);
  });

  it("an avatar whose only look failed (and was refunded) does not hold a slot; a pending one does", async () => {
    const ctx = contextFor(t, "free", 10); // a cap of 1
    const failed = await create({ ...ctx, simulate: "fail" }, { prompt: "doomed" });
    const capped = { error: expect.any(String), code: "AVATAR_LIMIT_REACHED" };
    expectError(await rejection(() => create(ctx, { prompt: "while the first is pending" })), 403, capped);
    await t.runUntilIdle();
    expect(t.db.prepare("SELECT status FROM looks WHERE id = ?").get(failed.look_id)).toEqual({ status: "error" });
    expect(t.ledger.balance(ctx.space.id)).toBe(10_000);
    const second = await create(ctx, { prompt: "takes the freed slot" });
    expect(second.avatar_id).not.toBe(failed.avatar_id);
    expectError(await rejection(() => create(ctx, { prompt: "one too many" })), 403, capped);
  });

  it("a failed avatar with a ready look (an edit succeeded) holds a slot again", async () => {
    const ctx = contextFor(t, "free", 10);
    insertAvatar(t, ctx.space.id, `av_mixed_${ctx.space.id}`, "error");
    const img = await writeImage(path.join(t.home, "in", "mixed.png"), 20, 20);
    await create(ctx, { images: [img] }); // the failed one holds nothing: this fits the cap of 1
    const ctx2 = contextFor(t, "free", 10);
    insertAvatar(t, ctx2.space.id, `av_mixed2_${ctx2.space.id}`, "error");
    t.db
      .prepare(
        `INSERT INTO looks (id, space_id, avatar_id, task, name, place, accessories, action, emotion, selfie, format, model_available,
           status, cost_milli, created_at, updated_at)
         VALUES (?, ?, ?, 'avatar_edit', 'n', 'studio', '[]', 'talking', 'neutral', 0, 'vertical', '[]', 'ready', 0, 'now', 'now')`,
      )
      .run(`lk_edit_${ctx2.space.id}`, ctx2.space.id, `av_mixed2_${ctx2.space.id}`);
    expect((await rejection(() => create(ctx2, { images: [img] }))).code).toBe("AVATAR_LIMIT_REACHED");
  });

  it("a space that no longer exists → 404 SPACE_NOT_FOUND", async () => {
    const ctx = contextFor(t, "PRO", 10);
    const ghost = { ...ctx, space: { ...spaceRow(t, ctx.space.id), id: "sp_gone" } };
    expectError(await rejection(() => create(ghost, { prompt: "x" })), 404, { error: expect.any(String), code: "SPACE_NOT_FOUND" });
  });

  it("a store that refuses the write → 500 FAILED_TO_PERSIST, credits untouched", async () => {
    const ctx = contextFor(t, "PRO", 10);
    t.db.exec(`CREATE TRIGGER refuse_looks BEFORE INSERT ON looks BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    try {
      const e = await rejection(() => create(ctx, { prompt: "x" }));
      expectError(e, 500, { error: expect.any(String), code: "FAILED_TO_PERSIST" });
      expect(t.ledger.balance(ctx.space.id)).toBe(10_000);
      expect(t.db.prepare("SELECT COUNT(*) AS n FROM avatars WHERE space_id = ?").get(ctx.space.id)).toEqual({ n: 0 });
    } finally {
      t.db.exec(`DROP TRIGGER refuse_looks`);
    }
  });

  it("a media dir that cannot take the image → 500 FAILED_TO_PERSIST", async () => {
    const other = openTestInstance();
    const img = await writeImage(path.join(other.home, "in", "x.png"), 20, 20);
    fs.writeFileSync(path.join(other.mediaDir, "avatars"), "not a directory");
    const e = await rejection(other.api.avatarCreate({ images: [img] }));
    expectError(e, 500, { error: expect.any(String), code: "FAILED_TO_PERSIST" });
    expect(other.db.prepare("SELECT COUNT(*) AS n FROM avatars").get()).toEqual({ n: 0 });
    await other.close();
  });
});
