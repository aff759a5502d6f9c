import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { CATALOG_VOICES } from "../../src/features/voice/emulator/catalog.js";
import { addSpaceVoice } from "../../src/features/voice/emulator/public/lookup.js";
import { apiError, forBothTargets } from "./harness.js";

const tierIds = (tiers: string[]) => CATALOG_VOICES.filter((v) => tiers.includes(v.tier)).map((v) => v.id);

async function bytesOf(url: string): Promise<Buffer> {
  if (url.startsWith("file:")) return fs.readFileSync(fileURLToPath(url));
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

forBothTargets("voices", (t) => {
  it.each([
    ["PRO", ["free", "start", "pro"]],
    ["ENTREPRISE", ["free", "start", "pro", "enterprise"]],
  ])("the %s plan lists the catalog voices of tiers %j", async (plan, tiers) => {
    const engine = t.engine({ plan });
    const voices = await engine.voiceList();
    expect(voices.map((v) => v.id)).toEqual(tierIds(tiers));
    for (const v of voices) expect(Object.keys(v).sort()).toEqual(["gender", "id", "language", "name", "source", "tags"]);
  });

  it.each(["free", "start"])("a %s space is refused before any listing (403 plan_required)", async (plan) => {
    const e = await apiError(t.engine({ plan }).voiceList());
    expect([e.status, e.code]).toEqual([403, "plan_required"]);
  });

  it("space voices first, onlyPublic, filter combinations, and another space does not see them", async () => {
    const key = t.newKey({ plan: "PRO" });
    const spaceId = t.instance.spaceForKey(key)!.id;
    const mine = await addSpaceVoice(t.instance, spaceId, {
      name: "Studio me",
      language: "en",
      accent: "Irish",
      gender: "female",
      tags: ["custom", "warm"],
      tts: "en-gb+f1",
    });
    const engine = t.engineFor(key);
    const all = await engine.voiceList();
    expect(all.map((v) => v.id)).toEqual([mine.id, ...tierIds(["free", "start", "pro"])]);
    expect(all[0]).toMatchObject({ id: mine.id, source: "space" });
    expect((await engine.voiceList({ onlyPublic: true })).map((v) => v.id)).toEqual(tierIds(["free", "start", "pro"]));
    expect((await engine.voiceList({ tags: "warm", gender: "female" })).map((v) => v.id)).toEqual([mine.id, "vc_emma", "vc_giulia"]);
    expect((await engine.voiceList({ tags: "warm", gender: "female", onlyPublic: "true" })).map((v) => v.id)).toEqual(["vc_emma", "vc_giulia"]);
    expect((await engine.voiceList({ language: "en", gender: "male" })).map((v) => v.id)).toEqual(["vc_noah", "vc_george"]);
    expect((await engine.voiceList({ language: "es", tags: "ads,friendly" })).map((v) => v.id)).toEqual(["vc_sofia", "vc_mateo"]);
    expect((await engine.voiceList({ language: "pt", tags: "ads,friendly" })).map((v) => v.id)).toEqual(["vc_ana"]);
    // The spec's language is one code: a list is refused, as a bad gender is.
    await expect(engine.voiceList({ language: "es,pt" })).rejects.toMatchObject({ status: 400, code: "invalid_value", field: "language" });
    expect(await engine.voiceGet({ id: mine.id })).toMatchObject({ id: mine.id, source: "space" });
    const other = t.engine();
    expect((await other.voiceList()).map((v) => v.id)).not.toContain(mine.id);
    const e = await apiError(other.voiceGet({ id: mine.id }));
    expect([e.status, e.body]).toEqual([404, { error: "Voice not found", code: "NOT_FOUND" }]);
  });

  it("resources: accent and a real preview instead of source; filtered by plan", async () => {
    const engine = t.engine({ plan: "PRO" });
    const res = await engine.resourceVoices({ language: "fr" });
    expect(res.map((v) => v.id)).toEqual(["vc_camille", "vc_louis", "vc_lea"]);
    for (const v of res) {
      expect(Object.keys(v).sort()).toEqual(["accent", "gender", "id", "language", "name", "preview", "tags"]);
      const wav = await bytesOf(v.preview!);
      expect(wav.toString("ascii", 0, 4)).toBe("RIFF");
      expect(wav.toString("ascii", 8, 12)).toBe("WAVE");
      expect(wav.length).toBeGreaterThan(10_000);
    }
    expect(res[2]).toMatchObject({ accent: "Belgian" });
    const ent = await t.engine({ plan: "ENTREPRISE" }).resourceVoices({ gender: "male", tags: "ads" });
    expect(ent.map((v) => v.id)).toEqual(["vc_marcus", "vc_luca"]);
  });

  it("get: a catalog voice, NOT_FOUND for an unknown one or one above the plan", async () => {
    const engine = t.engine({ plan: "PRO" });
    expect(await engine.voiceGet({ id: "vc_giulia" })).toEqual({
      id: "vc_giulia",
      name: "Giulia",
      language: "it",
      gender: "female",
      tags: ["warm", "storytelling"],
      source: "config",
    });
    for (const id of ["vc_luca", "vc_nobody"]) {
      const e = await apiError(engine.voiceGet({ id }));
      expect([e.status, e.body]).toEqual([404, { error: "Voice not found", code: "NOT_FOUND" }]);
    }
    expect(await t.engine({ plan: "ENTREPRISE" }).voiceGet({ id: "vc_luca" })).toMatchObject({ id: "vc_luca" });
  });

  it("a bad gender filter is a 400 invalid_value on gender", async () => {
    const e = await apiError(t.engine().voiceList({ gender: "robot" }));
    expect([e.status, e.code, e.field]).toEqual([400, "invalid_value", "gender"]);
  });
});
