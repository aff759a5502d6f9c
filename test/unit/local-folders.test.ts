import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiError } from "../../src/engine/errors.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

let t: TestInstance;
let assetsRoot: string;
let videosRoot: string;
let otherSpaceFolder: string;

beforeAll(async () => {
  t = openTestInstance({ worker: "none", rateLimit: { limit: 10_000, windowMs: 60_000 } });
  assetsRoot = (await t.api.folderCreate({ name: "assets-root" })).id;
  videosRoot = (await t.api.folderCreate({ name: "videos-root", type: "videos" })).id;
  const other = t.createSpace({ name: "other", plan: "PRO", credits: 0 });
  otherSpaceFolder = (await t.engine(other.api_key).folderCreate({ name: "theirs" })).id;
});
afterAll(() => t.close());

type Case = { name: string; input: () => Record<string, unknown>; status: number; code: string; field: string };

const rejected: Case[] = [
  { name: "name absent", input: () => ({}), status: 400, code: "missing_field", field: "name" },
  { name: "name null", input: () => ({ name: null }), status: 400, code: "missing_field", field: "name" },
  { name: "name empty", input: () => ({ name: "" }), status: 400, code: "missing_field", field: "name" },
  { name: "name blank", input: () => ({ name: "   " }), status: 400, code: "missing_field", field: "name" },
  { name: "name a number", input: () => ({ name: 42 }), status: 400, code: "invalid_value", field: "name" },
  { name: "name an array", input: () => ({ name: ["a"] }), status: 400, code: "invalid_value", field: "name" },
  { name: "type unknown", input: () => ({ name: "x", type: "images" }), status: 400, code: "invalid_value", field: "type" },
  { name: "type wrong case", input: () => ({ name: "x", type: "Assets" }), status: 400, code: "invalid_value", field: "type" },
  { name: "type not a string", input: () => ({ name: "x", type: 1 }), status: 400, code: "invalid_value", field: "type" },
  {
    name: "parent unknown",
    input: () => ({ name: "x", parent_folder_id: "ffffffffffffffffffffffff" }),
    status: 400,
    code: "invalid_value",
    field: "parent_folder_id",
  },
  {
    name: "parent of another space",
    input: () => ({ name: "x", parent_folder_id: otherSpaceFolder }),
    status: 400,
    code: "invalid_value",
    field: "parent_folder_id",
  },
  {
    name: "parent of the other type (videos parent for assets)",
    input: () => ({ name: "x", parent_folder_id: videosRoot }),
    status: 400,
    code: "invalid_value",
    field: "parent_folder_id",
  },
  {
    name: "parent of the other type (assets parent for videos)",
    input: () => ({ name: "x", type: "videos", parent_folder_id: assetsRoot }),
    status: 400,
    code: "invalid_value",
    field: "parent_folder_id",
  },
  {
    name: "parent not a string",
    input: () => ({ name: "x", parent_folder_id: 7 }),
    status: 400,
    code: "invalid_value",
    field: "parent_folder_id",
  },
  { name: "name checked before type", input: () => ({ type: "bogus" }), status: 400, code: "missing_field", field: "name" },
];

describe("folderCreate rejects", () => {
  test.each(rejected)("$name → $status $code ($field) through the engine", async (c) => {
    const err = await t.api.folderCreate(c.input() as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect([e.status, e.code, e.field]).toEqual([c.status, c.code, c.field]);
    expect(e.body).toMatchObject({ details: [{ code: c.code, field: c.field }] });
    expect(typeof (e.body as { error: unknown }).error).toBe("string");
  });

  test.each(rejected)("$name → $status through service.dispatch", async (c) => {
    const res = await t.service.dispatch(`Bearer ${t.key}`, "folderCreate", c.input(), { urls: t.fileUrls() });
    expect(res.status).toBe(c.status);
    expect(res.body).toMatchObject({ details: [{ code: c.code, field: c.field }] });
  });

  test("the missing name says so", async () => {
    const res = await t.service.dispatch(`Bearer ${t.key}`, "folderCreate", {}, { urls: t.fileUrls() });
    expect(res.body).toEqual({ error: "name is required", details: [{ code: "missing_field", message: "name is required", field: "name" }] });
  });

  test("a rejected create writes nothing", async () => {
    const before = (await t.api.folderList()).folders.length;
    await t.api.folderCreate({ name: "x", parent_folder_id: videosRoot }).catch(() => undefined);
    expect((await t.api.folderList()).folders.length).toBe(before);
  });
});

describe("folderCreate accepts", () => {
  const accepted: { name: string; input: () => Record<string, unknown>; type: string; parent: () => string | null }[] = [
    { name: "default type assets", input: () => ({ name: "a1" }), type: "assets", parent: () => null },
    { name: "explicit assets", input: () => ({ name: "a2", type: "assets" }), type: "assets", parent: () => null },
    { name: "videos", input: () => ({ name: "v1", type: "videos" }), type: "videos", parent: () => null },
    { name: "null parent is root", input: () => ({ name: "a3", parent_folder_id: null }), type: "assets", parent: () => null },
    { name: "assets child", input: () => ({ name: "a4", parent_folder_id: assetsRoot }), type: "assets", parent: () => assetsRoot },
    {
      name: "videos child",
      input: () => ({ name: "v2", type: "videos", parent_folder_id: videosRoot }),
      type: "videos",
      parent: () => videosRoot,
    },
  ];

  test.each(accepted)("$name → 201 Folder", async (c) => {
    const res = await t.service.dispatch(`Bearer ${t.key}`, "folderCreate", c.input(), { urls: t.fileUrls() });
    expect(res.status).toBe(201);
    const f = res.body as Record<string, unknown>;
    expect(f).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: c.input().name,
      type: c.type,
      parent_folder_id: c.parent(),
      created_at: expect.any(String),
    });
    expect(new Date(f.created_at as string).toISOString()).toBe(f.created_at);
  });

  test("the engine returns the same record the list shows", async () => {
    const f = await t.api.folderCreate({ name: "listed" });
    const { folders } = await t.api.folderList();
    expect(folders.find((x) => x.id === f.id)).toEqual(f);
  });
});

describe("folderList", () => {
  test("creation order, filtered by type, own space only", async () => {
    const u = openTestInstance({ worker: "none" });
    try {
      const made = [];
      for (const [name, type] of [
        ["one", "assets"],
        ["two", "videos"],
        ["three", "assets"],
        ["four", "videos"],
      ] as const) {
        made.push(await u.api.folderCreate({ name, type }));
      }
      const other = u.createSpace({ plan: "ENTREPRISE", credits: 0 });
      await u.engine(other.api_key).folderCreate({ name: "not mine" });

      expect((await u.api.folderList()).folders.map((f) => f.name)).toEqual(["one", "two", "three", "four"]);
      expect((await u.api.folderList({ type: "assets" })).folders.map((f) => f.name)).toEqual(["one", "three"]);
      expect((await u.api.folderList({ type: "videos" })).folders.map((f) => f.name)).toEqual(["two", "four"]);
      expect((await u.api.folderList({ type: "" })).folders).toHaveLength(4);
      expect(await u.api.folderList()).toEqual({ folders: made });
    } finally {
      await u.close();
    }
  });

  test.each([["images"], ["ASSETS"], [3]])("type %j → 400 invalid_value (type)", async (type) => {
    const res = await t.service.dispatch(`Bearer ${t.key}`, "folderList", { type }, { urls: t.fileUrls() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ details: [{ code: "invalid_value", field: "type" }] });
    // Deliberately invalid types: the cast lets them past the strict request type.
    const err = (await t.api.folderList({ type: type as never }).catch((e: unknown) => e)) as ApiError;
    expect([err.status, err.code, err.field]).toEqual([400, "invalid_value", "type"]);
  });

  test("200 status through dispatch", async () => {
    const res = await t.service.dispatch(`Bearer ${t.key}`, "folderList", {}, { urls: t.fileUrls() });
    expect(res.status).toBe(200);
    expect(Array.isArray((res.body as { folders: unknown[] }).folders)).toBe(true);
  });
});
