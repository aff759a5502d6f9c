import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { voiceHandlers } from "../../src/features/voice/emulator/local.js";
import { addSpaceVoice, findVoice } from "../../src/features/voice/emulator/public/lookup.js";
import { CATALOG_VOICES, catalogVoicePreviewRelPath } from "../../src/features/voice/emulator/catalog.js";
import { VOICE_TIERS, type Plan } from "../../src/contract/plans.js";
import type { Handler, RequestContext } from "../../src/local/types.js";
import { contextFor, expectError, rejection, wavDurationMs } from "./avatar-fixtures.js";

const list = voiceHandlers.voiceList as Handler<"voiceList">;
const resources = voiceHandlers.resourceVoices as Handler<"resourceVoices">;
const get = voiceHandlers.voiceGet as Handler<"voiceGet">;

const ids = (tiers: string[]) => CATALOG_VOICES.filter((v) => tiers.includes(v.tier)).map((v) => v.id);

describe("the public voice catalog", () => {
  it("has at least 16 voices over at least 4 languages, both genders, every tier, accents and tags", () => {
    expect(CATALOG_VOICES.length).toBeGreaterThanOrEqual(16);
    expect(new Set(CATALOG_VOICES.map((v) => v.language)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(CATALOG_VOICES.map((v) => v.gender))).toEqual(new Set(["male", "female"]));
    expect(new Set(CATALOG_VOICES.map((v) => v.tier))).toEqual(new Set(VOICE_TIERS));
    for (const v of CATALOG_VOICES) {
      expect(v.accent.length, v.id).toBeGreaterThan(0);
      expect(v.tags.length, v.id).toBeGreaterThan(0);
    }
    expect(new Set(CATALOG_VOICES.map((v) => v.id)).size).toBe(CATALOG_VOICES.length);
  });
});

describe("voice rules", () => {
  let t: TestInstance;
  let ctxOf: Record<Plan, RequestContext>;
  let custom: Awaited<ReturnType<typeof addSpaceVoice>>;
  let custom2: Awaited<ReturnType<typeof addSpaceVoice>>;

  beforeAll(async () => {
    t = openTestInstance();
    ctxOf = {
      free: contextFor(t, "free"),
      start: contextFor(t, "start"),
      PRO: contextFor(t, "PRO"),
      ENTREPRISE: contextFor(t, "ENTREPRISE"),
    };
    custom = await addSpaceVoice(t, ctxOf.free.space.id, {
      name: "My voice",
      language: "en",
      accent: "Irish",
      gender: "male",
      tags: ["custom", "calm"],
      tts: "en-gb+m3",
    });
    custom2 = await addSpaceVoice(t, ctxOf.free.space.id, { name: "Ma voix", language: "fr", gender: "female", tags: ["custom"], tts: "fr+f1" });
  });

  it.each([
    ["free", ["free"]],
    ["start", ["free", "start"]],
    ["PRO", ["free", "start", "pro"]],
    ["ENTREPRISE", ["free", "start", "pro", "enterprise"]],
  ] as const)("the %s plan sees the catalog voices of tiers %j", async (plan, tiers) => {
    const got = await list(ctxOf[plan], { onlyPublic: true });
    expect(got.map((v) => v.id)).toEqual(ids([...tiers]));
    expect(got.every((v) => v.source === "config")).toBe(true);
  });

  it("space voices come first, in the order they were added, then the catalog", async () => {
    const got = await list(ctxOf.free, {});
    expect(got.map((v) => v.id)).toEqual([custom.id, custom2.id, ...ids(["free"])]);
    expect(got[0]).toEqual({ id: custom.id, name: "My voice", language: "en", gender: "male", tags: ["custom", "calm"], source: "space" });
  });

  it("onlyPublic leaves space voices out", async () => {
    expect((await list(ctxOf.free, { onlyPublic: true })).map((v) => v.id)).toEqual(ids(["free"]));
    expect((await list(ctxOf.free, { onlyPublic: "true" })).map((v) => v.id)).toEqual(ids(["free"]));
  });

  it("another space does not see this space's voices", async () => {
    const got = await list(ctxOf.ENTREPRISE, {});
    expect(got.map((v) => v.id)).not.toContain(custom.id);
  });

  it.each([
    ["ENTREPRISE", { language: "fr" }, ["vc_camille", "vc_louis", "vc_lea"]],
    ["PRO", { language: "FR" }, ["vc_camille", "vc_louis", "vc_lea"]],
    ["start", { language: "fr" }, ["vc_camille", "vc_louis"]],
    ["ENTREPRISE", { gender: "male", language: "es" }, ["vc_mateo"]],
    ["ENTREPRISE", { language: "it", gender: "female" }, ["vc_giulia"]],
    ["ENTREPRISE", { language: "pt-BR", gender: "female" }, ["vc_ana"]],
    ["ENTREPRISE", { language: "pt_br" }, ["vc_ana", "vc_joao"]],
    ["ENTREPRISE", { tags: "ads" }, ["vc_marcus", "vc_sofia", "vc_ana", "vc_luca"]],
    ["ENTREPRISE", { tags: "deep, news", gender: "male" }, ["vc_george", "vc_louis", "vc_lukas"]],
    ["free", { tags: "custom" }, ["SPACE1", "SPACE2"]],
    ["free", { tags: "custom", language: "fr" }, ["SPACE2"]],
    ["free", { tags: "calm", gender: "male" }, ["SPACE1", "vc_noah"]],
    ["free", { tags: "calm", gender: "male", onlyPublic: true }, ["vc_noah"]],
    ["PRO", { language: "ja" }, []],
  ] as const)("%s %j", async (plan, q, expected) => {
    const got = (await list(ctxOf[plan], { ...q })).map((v) => (v.id === custom.id ? "SPACE1" : v.id === custom2.id ? "SPACE2" : v.id));
    expect(got).toEqual(expected);
  });

  it.each([
    [{ gender: "robot" }, "gender"],
    [{ onlyPublic: "nope" }, "onlyPublic"],
    [{ language: "pt,it" }, "language"],
  ])("%j → 400 invalid_value on %s (the contract judges the query before the handler)", async (q, field) => {
    // Deliberately invalid queries: the cast lets them past the strict request type.
    expectError(await rejection(t.api.voiceList(q as never)), 400, {
      error: expect.any(String),
      details: [{ code: "invalid_value", message: expect.any(String), field }],
    });
  });

  describe("GET /resources/voices", () => {
    it("gives accent and preview instead of source, space voices first, filtered by plan", async () => {
      const got = await resources(ctxOf.free, {});
      expect(got.map((v) => v.id)).toEqual([custom.id, custom2.id, ...ids(["free"])]);
      for (const v of got) {
        expect(Object.keys(v).sort()).toEqual(["accent", "gender", "id", "language", "name", "preview", "tags"]);
        expect(wavDurationMs(v.preview!)).toBeGreaterThan(1000);
      }
      expect(got[0]).toMatchObject({ accent: "Irish" });
      expect(got[1]).toMatchObject({ accent: "" });
    });

    it("filters like the list; previews of catalog voices are made once per instance", async () => {
      const got = await resources(ctxOf.ENTREPRISE, { language: "de", gender: "female" });
      expect(got.map((v) => v.id)).toEqual(["vc_hannah"]);
      const file = path.join(t.mediaDir, catalogVoicePreviewRelPath("vc_hannah"));
      const mtime = fs.statSync(file).mtimeMs;
      await resources(ctxOf.ENTREPRISE, {});
      expect(fs.statSync(file).mtimeMs).toBe(mtime);
      const all = await resources(ctxOf.ENTREPRISE, {});
      expect(all).toHaveLength(CATALOG_VOICES.length);
      const sizes = new Set(all.map((v) => fs.statSync(new URL(v.preview!)).size));
      expect(sizes.size).toBeGreaterThan(CATALOG_VOICES.length / 2);
    });
  });

  describe("GET /voice/{id}", () => {
    it("finds a space voice and a catalog voice of the plan's tier", async () => {
      expect(await get(ctxOf.free, { id: custom.id })).toMatchObject({ id: custom.id, source: "space" });
      expect(await get(ctxOf.free, { id: "vc_emma" })).toEqual({
        id: "vc_emma",
        name: "Emma",
        language: "en",
        gender: "female",
        tags: ["narration", "warm"],
        source: "config",
      });
      expect(await get(ctxOf.ENTREPRISE, { id: "vc_luca" })).toMatchObject({ id: "vc_luca" });
    });

    it.each([
      ["free", "vc_olivia"],
      ["start", "vc_george"],
      ["PRO", "vc_luca"],
      ["ENTREPRISE", "vc_nobody"],
      ["ENTREPRISE", ""],
    ] as const)("%s asking for %j → 404 NOT_FOUND", async (plan, id) => {
      expectError(await rejection(() => get(ctxOf[plan], { id })), 404, { error: "Voice not found", code: "NOT_FOUND" });
    });

    it("another space's voice is NOT_FOUND", async () => {
      expectError(await rejection(() => get(ctxOf.ENTREPRISE, { id: custom.id })), 404, { error: "Voice not found", code: "NOT_FOUND" });
    });

    it("findVoice gives generation the espeak voice", () => {
      expect(findVoice(t.db, ctxOf.free.space.id, "free", custom.id)?.tts).toBe("en-gb+m3");
      expect(findVoice(t.db, ctxOf.PRO.space.id, "PRO", "vc_george")?.tts).toBe("en-gb+m1");
      expect(findVoice(t.db, ctxOf.free.space.id, "free", "vc_george")).toBeUndefined();
    });
  });

  it("through the engine (PRO default space): list, resources and get agree", async () => {
    const listed = await t.api.voiceList();
    const res = await t.api.resourceVoices();
    expect(res.map((v) => v.id)).toEqual(listed.map((v) => v.id));
    expect(await t.api.voiceGet({ id: listed[0]!.id })).toEqual(listed[0]);
    expectError(await rejection(t.api.voiceGet({ id: "vc_luca" })), 404, { error: "Voice not found", code: "NOT_FOUND" });
  });
});
