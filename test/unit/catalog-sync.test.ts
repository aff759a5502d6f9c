/**
 * The catalog sync's conversion (src/features/asset/emulator/public/catalog-sync.ts): every built-in model, published
 * as the service publishes it (GET /asset/models/{name}) and priced through POST /asset/pricing,
 * converts back to a definition with the same record, input_schema and prices; a model of a class the
 * local renderer does not know is skipped with the reason, never guessed.
 */
import { describe, expect, it } from "vitest";
import { MODELS } from "../../src/features/asset/emulator/catalog/models.js";
import { modelDetail } from "../../src/features/asset/emulator/catalog/model-schema.js";
import { quote } from "../../src/features/asset/emulator/catalog/pricing.js";
import { convertModel } from "../../src/features/asset/emulator/public/catalog-sync.js";
import { PRICING_FIELDS } from "../../src/contract/asset-rules.js";

const probe = async (req: Record<string, unknown>) => quote(req).total_cost;
const pricedSetting = (m: (typeof MODELS)[number]) => m.settings.find((s) => s.affects_cost);

describe("convertModel", () => {
  for (const m of MODELS) {
    it(`${m.name}: the record, input_schema and prices (at default settings) come back the same; probes send only documented names`, async () => {
      const sent: Record<string, unknown>[] = [];
      const c = await convertModel(JSON.parse(JSON.stringify(modelDetail(m))), async (req) => (sent.push(req), probe(req)));
      if (!("model" in c)) throw new Error(`skipped: ${c.skipped.reason}`);
      expect(modelDetail(c.model)).toEqual(modelDetail(m));
      for (const req of sent) for (const k of Object.keys(req)) expect(PRICING_FIELDS as readonly string[], JSON.stringify(req)).toContain(k);
      const setting = pricedSetting(m);
      if (setting)
        expect(c.warnings).toContain(
          `${m.name}: ${setting.key} changes the price, but the service documents no pricing field for model settings; the local price is the one at its default (${String(setting.default_value)})`,
        );
      const find = (n: string) => (n === m.name ? c.model : undefined);
      const grid: Record<string, unknown>[] = [{}];
      for (const r of m.resolutions) grid.push({ resolution: r });
      for (const d of m.durations) grid.push({ duration: d });
      if (m.references) for (let n = 0; n <= m.references.max; n++) grid.push({ image_count: n });
      if (m.render === "upscale") grid.push({ duration: 3 }, { duration: 30 });
      for (const g of grid) expect(quote({ model: m.name, ...g }, find).total_cost, JSON.stringify(g)).toBe(quote({ model: m.name, ...g }).total_cost);
    });
  }

  it("warns when the hosted prices do not follow a local formula (a fixed fee plus a rate per second)", async () => {
    const m = MODELS.find((x) => x.name === "vidB-2-fast")!;
    const nonLinear = async (req: Record<string, unknown>) => 1 + 0.5 * Number(req.duration ?? m.default_duration);
    const c = await convertModel(JSON.parse(JSON.stringify(modelDetail(m))), nonLinear);
    if (!("model" in c)) throw new Error("skipped");
    expect(c.warnings).toEqual([
      `vidB-2-fast: at ${m.durations[0]} s the hosted price is ${1 + 0.5 * m.durations[0]!}, the local formula gives ${Math.round(((1 + 0.5 * m.default_duration!) / m.default_duration!) * m.durations[0]! * 1000) / 1000}`,
      `vidB-2-fast: at ${m.durations.at(-1)} s the hosted price is ${1 + 0.5 * m.durations.at(-1)!}, the local formula gives ${Math.round(((1 + 0.5 * m.default_duration!) / m.default_duration!) * m.durations.at(-1)! * 1000) / 1000}`,
    ]);
  });

  it("skips a model of a class the renderer does not know, and says why", async () => {
    const detail = { ...modelDetail(MODELS[0]!), name: "lipsync-1" } as Record<string, unknown>;
    const schema = detail.input_schema as { properties: Record<string, unknown>; required: string[] };
    schema.properties = { ...schema.properties, audio_url: { type: "string", format: "uri" } };
    expect(await convertModel(detail, probe)).toEqual({ skipped: { name: "lipsync-1", reason: "it takes audio_url, which the local renderer does not know" } });
    expect(await convertModel({ ...modelDetail(MODELS[0]!), name: "talk-1", type: "audio" })).toEqual({
      skipped: { name: "talk-1", reason: 'type "audio": the local renderer makes images and videos only' },
    });
  });
});
