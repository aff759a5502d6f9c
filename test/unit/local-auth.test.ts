import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiError } from "../../src/engine/errors.js";
import { LocalAdminError, openLocalInstance } from "../../src/features/local.js";
import { generateApiKey, hashApiKey, isApiKeyFormat } from "../../src/local/keys.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

let t: TestInstance;
const urls = () => t.fileUrls();
const call = (authorization: string | undefined) => t.service.dispatch(authorization, "folderList", {}, { urls: urls() });

beforeAll(() => {
  t = openTestInstance({ worker: "none" });
});
afterAll(() => t.close());

describe("key format", () => {
  test("generated keys are mg_live_ + 64 lowercase hex and all differ", () => {
    const keys = new Set(Array.from({ length: 50 }, generateApiKey));
    expect(keys.size).toBe(50);
    for (const k of keys) expect(k).toMatch(/^mg_live_[0-9a-f]{64}$/);
  });

  test.each([
    ["mg_live_" + "a".repeat(64), true],
    ["mg_live_" + "A".repeat(64), false],
    ["mg_live_" + "a".repeat(63), false],
    ["mg_live_" + "a".repeat(65), false],
    ["mg_test_" + "a".repeat(64), false],
    ["mg_live_" + "g".repeat(64), false],
    ["", false],
  ])("%s → %s", (key, ok) => {
    expect(isApiKeyFormat(key)).toBe(ok);
  });
});

describe("authentication (401 invalid_api_key, messages differ)", () => {
  const unknown = "mg_live_" + "0".repeat(64);
  test.each([
    ["missing header", undefined, "Missing API key"],
    ["empty header", "", "Missing API key"],
    ["no Bearer scheme", `Token ${"mg_live_" + "0".repeat(64)}`, "Invalid API key format"],
    ["Bearer without key", "Bearer", "Invalid API key format"],
    ["wrong prefix", "Bearer sk_live_" + "0".repeat(64), "Invalid API key format"],
    ["upper-case hex", "Bearer mg_live_" + "A".repeat(64), "Invalid API key format"],
    ["too short", "Bearer mg_live_abc", "Invalid API key format"],
    ["unknown key", `Bearer ${unknown}`, "Invalid API key"],
  ])("%s", async (_name, header, error) => {
    const res = await call(header);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error, details: [{ code: "invalid_api_key" }] });
    expect(res.rateLimit).toBeUndefined();
  });

  test("the three messages are distinct", async () => {
    const messages = await Promise.all([undefined, "Bearer nope", `Bearer ${unknown}`].map(async (h) => (await call(h)).body as { details: { message: string }[] }));
    expect(new Set(messages.map((m) => m.details[0]!.message)).size).toBe(3);
  });

  test("the scheme is case-insensitive", async () => {
    expect((await call(`bearer ${t.key}`)).status).toBe(200);
  });

  test("through the engine it is an ApiError 401", async () => {
    const err = (await t
      .engine(unknown)
      .folderList()
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.code]).toEqual([401, "invalid_api_key"]);
  });
});

describe("revoke and regenerate", () => {
  test("a revoked key is 401 with its own message", async () => {
    const { api_key } = t.createSpace({ plan: "PRO", credits: 0 });
    expect((await call(`Bearer ${api_key}`)).status).toBe(200);
    t.revokeKey(api_key);
    const res = await call(`Bearer ${api_key}`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ details: [{ code: "invalid_api_key", message: "The API key has been revoked" }] });
    expect(t.spaceForKey(api_key)).toBeUndefined();
  });

  test("regenerate: the old key is refused at once, the new one works for the same space", async () => {
    const { api_key, space } = t.createSpace({ name: "regen", plan: "PRO", credits: 3 });
    const fresh = t.regenerateKey(api_key);
    expect(fresh).not.toBe(api_key);
    expect(isApiKeyFormat(fresh)).toBe(true);
    expect((await call(`Bearer ${api_key}`)).status).toBe(401);
    expect((await call(`Bearer ${fresh}`)).status).toBe(200);
    expect(t.spaceForKey(fresh)?.id).toBe(space.id);
    expect(t.getSpace(space.id)?.keys).toBe(1);
    const row = t.db.prepare("SELECT replaced_by FROM api_keys WHERE key_hash = ?").get(hashApiKey(api_key)) as {
      replaced_by: string;
    };
    const freshRow = t.db.prepare("SELECT id FROM api_keys WHERE key_hash = ?").get(hashApiKey(fresh)) as { id: string };
    expect(row.replaced_by).toBe(freshRow.id);
  });

  test("regenerating the default key rewrites the default key file", () => {
    const u = openTestInstance({ worker: "none" });
    const fresh = u.regenerateKey(u.key);
    expect(u.defaultKey()).toBe(fresh);
    void u.close();
  });

  const badKeys: [string, () => string, "invalid" | "not_found"][] = [
    ["malformed", () => "nope", "invalid"],
    ["unknown", () => "mg_live_" + "1".repeat(64), "not_found"],
    [
      "already revoked",
      () => {
        const { api_key } = t.createSpace({ plan: "PRO", credits: 0 });
        t.revokeKey(api_key);
        return api_key;
      },
      "invalid",
    ],
  ];
  test.each(badKeys)("revoke/regenerate of a %s key → LocalAdminError %s", (_n, key, kind) => {
    const k = key();
    for (const op of [() => t.revokeKey(k), () => t.regenerateKey(k)]) {
      let err: unknown;
      try {
        op();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(LocalAdminError);
      expect((err as LocalAdminError).kind).toBe(kind);
    }
  });
});

describe("plans", () => {
  test.each([
    ["free", 403],
    ["start", 403],
    ["PRO", 200],
    ["ENTREPRISE", 200],
  ] as const)("%s → %i", async (plan, status) => {
    const { api_key } = t.createSpace({ plan, credits: 0 });
    const res = await call(`Bearer ${api_key}`);
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(res.body).toMatchObject({ details: [{ code: "plan_required" }] });
      expect(res.rateLimit).toMatchObject({ limit: 100, remaining: 100 });
      const err = (await t
        .engine(api_key)
        .folderList()
        .catch((e: unknown) => e)) as ApiError;
      expect([err.status, err.code]).toEqual([403, "plan_required"]);
    }
  });

  test("plan names are accepted case-insensitively by createSpace, junk is refused", () => {
    expect(t.createSpace({ plan: "pro", credits: 0 }).space.plan).toBe("PRO");
    expect(t.createSpace({ plan: "enterprise", credits: 0 }).space.plan).toBe("ENTREPRISE");
    expect(() => t.createSpace({ plan: "gold", credits: 0 })).toThrow(LocalAdminError);
    expect(() => t.createSpace({ plan: "PRO", credits: -1 })).toThrow(LocalAdminError);
    expect(() => t.createSpace({ plan: "PRO", credits: Number.NaN })).toThrow(LocalAdminError);
  });
});

describe("storage", () => {
  test("only hashes are stored: no key appears in the database files", async () => {
    const u = openTestInstance({ worker: "none" });
    const made = [u.key, u.createSpace({ plan: "PRO", credits: 1 }).api_key];
    made.push(u.regenerateKey(made[1]!));
    await u.api.folderList();
    const bytes = [u.dbPath, `${u.dbPath}-wal`]
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f).toString("latin1"))
      .join("");
    for (const k of made) {
      expect(bytes.includes(k)).toBe(false);
      expect(bytes.includes(k.slice(8))).toBe(false);
      expect(bytes.includes(hashApiKey(k))).toBe(true);
    }
    await u.close();
  });

  test("the default key file is 0600 in a 0700 dir, and later calls read it back", () => {
    const u = openTestInstance({ worker: "none" });
    expect(fs.statSync(u.defaultKeyPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(u.localDir).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(u.defaultKeyPath, "utf8").trim()).toBe(u.key);
    expect(u.defaultKey()).toBe(u.key);
    const space = u.spaceForKey(u.key)!;
    expect(space).toMatchObject({ name: "default", plan: "PRO", credits: 1000, is_default: true, keys: 1 });
    void u.close();
  });

  test("a default key that was revoked is replaced by a new key of the same default space", () => {
    const u = openTestInstance({ worker: "none" });
    const space = u.spaceForKey(u.key)!;
    u.revokeKey(u.key);
    const next = u.defaultKey();
    expect(next).not.toBe(u.key);
    expect(u.spaceForKey(next)?.id).toBe(space.id);
    expect(u.listSpaces().filter((s) => s.is_default)).toHaveLength(1);
    void u.close();
  });
});

describe("cached verdicts never outlive a key", () => {
  test("a key revoked through another connection is refused on the very next request", async () => {
    const { api_key } = t.createSpace({ plan: "PRO", credits: 1 });
    const header = `Bearer ${api_key}`;
    expect((await call(header)).status).toBe(200);
    expect((await call(header)).status).toBe(200); // now served from the cache

    const other = openLocalInstance({ home: t.home, worker: "none" });
    try {
      other.revokeKey(api_key);
    } finally {
      await other.close();
    }
    const after = await call(header);
    expect(after.status).toBe(401);
    expect((after.body as { details: { code: string }[] }).details[0]!.code).toBe("invalid_api_key");
  });

  test("a key revoked or regenerated through this instance is refused at once", async () => {
    const a = t.createSpace({ plan: "PRO", credits: 1 }).api_key;
    expect((await call(`Bearer ${a}`)).status).toBe(200);
    t.revokeKey(a);
    expect((await call(`Bearer ${a}`)).status).toBe(401);

    const b = t.createSpace({ plan: "PRO", credits: 1 }).api_key;
    expect((await call(`Bearer ${b}`)).status).toBe(200);
    const c = t.regenerateKey(b);
    expect((await call(`Bearer ${b}`)).status).toBe(401);
    expect((await call(`Bearer ${c}`)).status).toBe(200);
  });
});
