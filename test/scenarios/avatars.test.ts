import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { waitFor } from "../helpers/local.js";
import { CATALOG_AVATARS } from "../../src/features/avatar/emulator/public/catalog.js";
import type { Engine } from "../../src/engine/engine.js";
import { apiError, forBothTargets, type TargetHarness } from "./harness.js";

const CATALOG_LOOKS = CATALOG_AVATARS.flatMap((a) => a.looks.map((l) => l.id));

/** The bytes behind a media URL: file:// in process, signed http under serve. */
async function bytesOf(url: string): Promise<Buffer> {
  if (url.startsWith("file:")) return fs.readFileSync(fileURLToPath(url));
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function pngSize(url: string): Promise<{ width: number; height: number } | undefined> {
  const b = await bytesOf(url);
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47) return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function space(t: TargetHarness, opts: { plan?: string; credits?: number } = {}): { engine: Engine; id: string; credits: () => number } {
  const key = t.newKey(opts);
  const id = t.instance.spaceForKey(key)!.id;
  return { engine: t.engineFor(key), id, credits: () => t.instance.ledger.balance(id) / 1000 };
}

async function settle(engine: Engine, ref: { avatar_id: string; look_id: string }) {
  return waitFor(async () => {
    const s = await engine.avatarStatus(ref);
    return s.status === "completed" || s.status === "failed" ? s : undefined;
  }, 15_000);
}

const hooks: Record<string, unknown>[] = [];
let hookServer: http.Server;
let hookUrl: string;
beforeAll(async () => {
  hookServer = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      hooks.push(JSON.parse(data) as Record<string, unknown>);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise((r) => hookServer.close(r)));

forBothTargets("avatars", (t) => {
  it("prompt create: 2 credits, pending → completed with a real 1152x2048 picture, webhook with the look", async () => {
    const s = space(t);
    const res = await s.engine.avatarCreate({ prompt: "friendly barista, warm light", webhook_url: hookUrl });
    expect(Object.keys(res).sort()).toEqual(["avatar_id", "look_id"]);
    expect(s.credits()).toBe(998);
    const done = await settle(s.engine, res);
    expect(done).toMatchObject({ status: "completed", result: { id: res.look_id, format: "vertical", place: "cafe" } });
    expect(await pngSize(done.result!.thumbnail!)).toEqual({ width: 1152, height: 2048 });
    const hook = await waitFor(() => hooks.find((h) => h.look_id === res.look_id), 15_000);
    expect(hook).toMatchObject({ task: "avatar_create", status: "completed", avatar_id: res.avatar_id, result: { id: res.look_id, status: "ready" } });
    expect(s.credits()).toBe(998);
  });

  it("4K costs 4; image-based create is free and ready at once", async () => {
    const s = space(t);
    const res = await s.engine.avatarCreate({ prompt: "a man presenting", resolution: "4K", format: "horizontal" });
    expect(s.credits()).toBe(996);
    const done = await settle(s.engine, res);
    expect(done).toMatchObject({ status: "completed" });
    expect(await pngSize(done.result!.thumbnail!)).toEqual({ width: 3840, height: 2160 });
    // The look's own URL (file:// in process, signed http when served) is an image this target accepts.
    const img = await s.engine.avatarCreate({ images: [done.result!.thumbnail!] });
    expect(s.credits()).toBe(996);
    expect(await s.engine.avatarStatus(img)).toMatchObject({ status: "completed", result: { format: "horizontal" } });
  });

  it("a failed generation: status failed (LOOK_GENERATION_FAILED), refund, webhook GENERATION_FAILED", async () => {
    const s = space(t);
    const res = await s.engine.avatarCreate({ prompt: "x", webhook_url: hookUrl }, { simulate: "fail" });
    const done = await settle(s.engine, res);
    expect(done).toEqual({ ...res, status: "failed", error: { code: "LOOK_GENERATION_FAILED", message: expect.any(String) } });
    const hook = await waitFor(() => hooks.find((h) => h.look_id === res.look_id), 15_000);
    expect(hook).toEqual({ task: "avatar_create", status: "failed", ...res, error: { code: "GENERATION_FAILED", message: expect.any(String) } });
    await waitFor(() => s.credits() === 1000);
  });

  it("X-Local-Simulate is checked on create and edit; fail:<CODE> shows on the status, not the webhook", async () => {
    const s = space(t);
    for (const call of [
      () => s.engine.avatarCreate({ prompt: "x" }, { simulate: "explode" }),
      () => s.engine.avatarCreate({ prompt: "x" }, { simulate: "fail:bad code!" }),
      () => s.engine.avatarEdit({ avatar_id: "av_maya", look_id: "lk_maya_beach", prompt: "p" }, { simulate: "explode" }),
    ]) {
      const e = await apiError(call());
      expect([e.status, e.code, e.field]).toEqual([400, "invalid_value", "X-Local-Simulate"]);
    }
    expect(s.credits()).toBe(1000);
    const res = await s.engine.avatarCreate({ prompt: "x", webhook_url: hookUrl }, { simulate: "fail:PROVIDER_DOWN" });
    expect(await settle(s.engine, res)).toMatchObject({ status: "failed", error: { code: "PROVIDER_DOWN" } });
    const hook = await waitFor(() => hooks.find((h) => h.look_id === res.look_id), 15_000);
    expect(hook).toMatchObject({ status: "failed", error: { code: "GENERATION_FAILED" } });
  });

  it("create errors with the spec's statuses and bodies", async () => {
    const s = space(t, { credits: 1 });
    const missing = await apiError(s.engine.avatarCreate({}));
    expect([missing.status, missing.body]).toEqual([
      400,
      { error: expect.any(String), details: [{ code: "INVALID_VALUE", message: expect.any(String), field: "prompt" }] },
    ]);
    // `raw` is a style the docs give (hosted-facts.md); images are URLs without an extension rule.
    for (const body of [{ prompt: "x", style: "vintage" }, { prompt: "x", webhook_url: "nope" }, { images: ["ftp://example.com/a.png"] }]) {
      // Deliberately invalid requests: the cast lets them past the strict request type.
      const e = await apiError(s.engine.avatarCreate(body as never));
      expect([e.status, e.body]).toEqual([400, { error: expect.any(String), code: "INVALID_VALUE" }]);
    }
    const poor = await apiError(s.engine.avatarCreate({ prompt: "x" }));
    expect([poor.status, poor.body]).toEqual([402, { error: expect.any(String), code: "INSUFFICIENT_CREDITS", required: 2, available: 1 }]);

    const full = space(t);
    const insertAvatar = t.instance.db.prepare(
      "INSERT INTO avatars (id, space_id, name, gender, age, age_range, ethnicity, hair_color, created_at) VALUES (?, ?, 'n', 'male', '30', 'adult', 'x', 'x', 'now')",
    );
    const insertLook = t.instance.db.prepare(
      `INSERT INTO looks (id, space_id, avatar_id, task, name, place, accessories, action, emotion, selfie, format, model_available, status,
         cost_milli, created_at, updated_at)
       VALUES (?, ?, ?, 'avatar_create', 'n', 'studio', '[]', 'talking', 'neutral', 0, 'vertical', '[]', ?, 0, 'now', 'now')`,
    );
    // 24 avatars with a usable look and one whose only look failed: the failed one holds no slot.
    for (let i = 0; i < 25; i++) {
      const id = `av_full_${t.target}_${i}`;
      insertAvatar.run(id, full.id);
      insertLook.run(`lk_full_${t.target}_${i}`, full.id, id, i === 0 ? "error" : "ready");
    }
    const last = await full.engine.avatarCreate({ prompt: "the 25th" });
    expect(last.avatar_id).toMatch(/^av_/);
    const cap = await apiError(full.engine.avatarCreate({ prompt: "x" }));
    expect([cap.status, cap.body]).toEqual([403, { error: expect.any(String), code: "AVATAR_LIMIT_REACHED" }]);
    expect(full.credits()).toBe(998);
  });

  it("FAILED_TO_PERSIST when the store refuses the write", async () => {
    const s = space(t);
    t.instance.db.exec(`CREATE TRIGGER refuse_${t.target} BEFORE INSERT ON avatars BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    try {
      const e = await apiError(s.engine.avatarCreate({ prompt: "x" }));
      expect([e.status, e.body]).toEqual([500, { error: expect.any(String), code: "FAILED_TO_PERSIST" }]);
      expect(s.credits()).toBe(1000);
    } finally {
      t.instance.db.exec(`DROP TRIGGER refuse_${t.target}`);
    }
  });

  it("edit: a new look, the source unchanged, webhook avatar_edit; its errors", async () => {
    const s = space(t);
    const base = await s.engine.avatarCreate({ prompt: "a woman with glasses" });
    await settle(s.engine, base);
    const source = await s.engine.avatarLook(base);
    const res = await s.engine.avatarEdit({ ...base, prompt: "in a park", webhook_url: hookUrl });
    expect(res.avatar_id).toBe(base.avatar_id);
    expect(s.credits()).toBe(996);
    expect((await settle(s.engine, res)).status).toBe("completed");
    // Signed URLs (serve) carry an expiry, so the source is compared field by field and by its bytes.
    const after = await s.engine.avatarLook(base);
    expect({ ...after, thumbnail: "" }).toEqual({ ...source, thumbnail: "" });
    expect((await bytesOf(after.thumbnail!)).equals(await bytesOf(source.thumbnail!))).toBe(true);
    const hook = await waitFor(() => hooks.find((h) => h.look_id === res.look_id), 15_000);
    expect(hook).toMatchObject({ task: "avatar_edit", status: "completed", avatar_id: base.avatar_id });

    const cases: [Record<string, unknown>, number, unknown][] = [
      [{}, 400, { error: expect.any(String), code: "MISSING_AVATAR_ID" }],
      [{ avatar_id: base.avatar_id }, 400, { error: expect.any(String), code: "MISSING_LOOK_ID" }],
      [{ ...base }, 400, { error: expect.any(String), code: "MISSING_PROMPT" }],
      [{ ...base, prompt: "p", webhook_url: "ftp://x" }, 400, { error: expect.any(String), code: "INVALID_WEBHOOK_URL" }],
      [{ avatar_id: "av_nobody", look_id: base.look_id, prompt: "p" }, 404, { error: "Avatar not found" }],
      [{ avatar_id: base.avatar_id, look_id: "lk_maya_kitchen", prompt: "p" }, 404, { error: expect.any(String), code: "LOOK_NOT_FOUND" }],
    ];
    for (const [body, status, errBody] of cases) {
      const e = await apiError(s.engine.avatarEdit(body));
      expect([e.status, e.body], JSON.stringify(body)).toEqual([status, errBody]);
    }
    const poor = space(t, { credits: 3 });
    const e = await apiError(poor.engine.avatarEdit({ avatar_id: "av_maya", look_id: "lk_maya_beach", prompt: "p", resolution: "4K" }));
    expect([e.status, e.body]).toEqual([402, { error: expect.any(String), code: "INSUFFICIENT_CREDITS", required: 4, available: 3 }]);
  });

  it("NO_IMAGE_AVAILABLE for a source look without a picture", async () => {
    const s = space(t);
    const failed = await s.engine.avatarCreate({ prompt: "x" }, { simulate: "fail" });
    await settle(s.engine, failed);
    const e = await apiError(s.engine.avatarEdit({ ...failed, prompt: "p" }));
    expect([e.status, e.body]).toEqual([400, { error: expect.any(String), code: "NO_IMAGE_AVAILABLE" }]);
  });

  it("status errors: INVALID_VALUE for a missing parameter, {error} alone when not found", async () => {
    const { engine } = space(t);
    const cases: [Record<string, unknown>, number, unknown][] = [
      [{ look_id: "lk_maya_beach" }, 400, { error: expect.any(String), code: "INVALID_VALUE" }],
      [{ avatar_id: "av_maya" }, 400, { error: expect.any(String), code: "INVALID_VALUE" }],
      [{ avatar_id: "av_nobody", look_id: "lk_maya_beach" }, 404, { error: "Avatar not found" }],
      [{ avatar_id: "av_maya", look_id: "lk_nope" }, 404, { error: "Look not found" }],
    ];
    for (const [q, status, body] of cases) {
      const e = await apiError(engine.avatarStatus(q));
      expect([e.status, e.body], JSON.stringify(q)).toEqual([status, body]);
    }
  });

  it("get and look: catalog or space; NOT_FOUND for unknown ids and foreign looks", async () => {
    const s = space(t);
    const a = await s.engine.avatarGet({ avatar_id: "av_zoe" });
    expect(a).toMatchObject({ id: "av_zoe", name: "Zoe", created_at: null });
    expect(a.looks!.map((l) => l.id)).toEqual(["lk_zoe_beach", "lk_zoe_podcast"]);
    expect(await pngSize(a.thumbnail!)).toEqual({ width: 960, height: 540 });
    const look = await s.engine.avatarLook({ avatar_id: "av_zoe", look_id: "lk_zoe_podcast" });
    expect(look).toMatchObject({ avatar_id: "av_zoe", avatar_name: "Zoe", look_name: "Zoe on the podcast", error_message: null, status: "ready" });
    for (const [call, error] of [
      [s.engine.avatarGet({ avatar_id: "av_nobody" }), "Avatar not found"],
      [s.engine.avatarLook({ avatar_id: "av_zoe", look_id: "lk_maya_beach" }), "Look not found"],
      [s.engine.avatarLook({ avatar_id: "av_nobody", look_id: "lk_maya_beach" }), "Avatar not found"],
    ] as const) {
      const e = await apiError(call);
      expect([e.status, e.body]).toEqual([404, { error, code: "NOT_FOUND" }]);
    }
    const mine = await s.engine.avatarCreate({ prompt: "x" });
    const other = space(t);
    const e = await apiError(other.engine.avatarGet({ avatar_id: mine.avatar_id }));
    expect(e.status).toBe(404);
  });

  it("list: space looks first, filters and combinations, onlyPublic", async () => {
    const s = space(t);
    const mine = await s.engine.avatarCreate({ prompt: "a smiling man cooking in a kitchen" });
    await settle(s.engine, mine);
    expect((await s.engine.avatarList()).map((i) => i.id)).toEqual([mine.look_id, ...CATALOG_LOOKS]);
    expect((await s.engine.avatarList({ onlyPublic: true })).map((i) => i.id)).toEqual(CATALOG_LOOKS);
    const kitchenMen = (await s.engine.avatarList({ gender: "male", place: "kitchen" })).map((i) => i.id);
    expect(kitchenMen).toEqual([mine.look_id, "lk_robert_kitchen", "lk_marco_kitchen"]);
    const combo = await s.engine.avatarList({ place: "podcast,studio", emotion: "confident", selfie: false, onlyPublic: true });
    expect(combo.map((i) => i.id)).toEqual(["lk_lena_studio", "lk_zoe_podcast"]);
    const acc = await s.engine.avatarList({ accessories: "headphones", age_range: "adolescent,young_adult" });
    expect(acc.map((i) => i.id)).toEqual(["lk_kenji_bedroom", "lk_priya_bedroom"]);
    const bad = await apiError(s.engine.avatarList({ gender: "x" }));
    expect([bad.status, bad.code, bad.field]).toEqual([400, "invalid_value", "gender"]);
  });
});
