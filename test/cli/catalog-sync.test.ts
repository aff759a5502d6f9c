/**
 * `mediagen local catalog sync --from-hosted` against a stub hosted service on 127.0.0.1 whose
 * catalog differs from the built-in one: a known model at another price, a new model of a known
 * class (other durations, its own prices), and a model of a class the local renderer does not know.
 * After the sync the local instance lists, validates and prices as the stub does, skips and lists
 * the unknown one, renders the new model, debits the stub's price; `reset` goes back to the built-in.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MODELS } from "../../src/features/asset/emulator/catalog/models.js";
import { modelDetail } from "../../src/features/asset/emulator/catalog/model-schema.js";
import { newHome, run } from "./helpers.js";

type Json = Record<string, unknown>;

/** The stub's catalog: imgA-4-fast at 0.5 flat, vidZ-1 (text-to-video, 3 or 9 s, 1 or 2 credits a second), lipsync-1 (unknown class). */
function stubCatalog(): { details: Json[]; price(req: Json): number | undefined } {
  const fast = { ...(modelDetail(MODELS.find((m) => m.name === "imgA-4-fast")!) as Json), base_cost: 0.5 };
  const base = modelDetail(MODELS.find((m) => m.name === "vidB-2-fast")!) as Json;
  const schema = structuredClone(base.input_schema) as { properties: Json; required: string[] };
  schema.properties.duration = { type: "integer", enum: [3, 9], default: 3 };
  schema.properties.resolution = { type: "string", enum: ["720p", "1080p"], default: "720p" };
  const vidZ = {
    ...base,
    name: "vidZ-1",
    label: "VidZ 1",
    provider: "zeta",
    tags: ["text-to-video", "new"],
    base_cost: 3,
    settings: [],
    capabilities: {
      ...(base.capabilities as Json),
      supported_durations: [3, 9],
      default_duration: 3,
    },
    input_schema: { ...schema, properties: Object.fromEntries(Object.entries(schema.properties).filter(([k]) => k !== "model_settings")) },
  };
  const lipsync = structuredClone(vidZ) as Json & { input_schema: { properties: Json } };
  lipsync.name = "lipsync-1";
  lipsync.input_schema.properties.audio_url = { type: "string", format: "uri" };
  return {
    details: [fast, vidZ, lipsync],
    price(req) {
      const n = typeof req.generation_count === "number" ? req.generation_count : 1;
      if (req.model === "imgA-4-fast") return 0.5 * n;
      if (req.model === "vidZ-1" || req.model === "lipsync-1") {
        const d = req.duration === 9 ? 9 : 3;
        return (req.resolution === "1080p" ? 2 : 1) * d * n;
      }
      return undefined;
    },
  };
}

let server: http.Server;
let baseUrl: string;
let home: string;
const catalog = stubCatalog();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      const send = (status: number, body: unknown) => {
        res.writeHead(status, {
          "content-type": "application/json",
          "x-ratelimit-limit": "100",
          "x-ratelimit-remaining": "99",
          "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 60),
        });
        res.end(JSON.stringify(body));
      };
      const p = url.pathname.replace(/^\/api\/public\/v1/, "");
      if (req.method === "GET" && p === "/asset/models") {
        const models = catalog.details.map((d) => {
          const { settings: _s, input_schema: _i, max_prompt_length: _m, restricted_countries: _r, ...summary } = d;
          return summary;
        });
        return send(200, { models, count: models.length });
      }
      const one = /^\/asset\/models\/([^/]+)$/.exec(p);
      if (req.method === "GET" && one) {
        const d = catalog.details.find((x) => x.name === decodeURIComponent(one[1]!));
        return d ? send(200, d) : send(404, { error: "Model not found", details: [{ code: "model_not_found", message: "Model not found" }] });
      }
      if (req.method === "GET" && p === "/voice/list") {
        return send(200, [
          { id: "vc_hosted_ava", name: "Ava", language: "en", gender: "female", tags: ["warm"], source: "config" },
          { id: "vc_hosted_min", name: "Min", language: "ko", gender: "female", tags: [], source: "config" },
        ]);
      }
      if (req.method === "GET" && p === "/resources/voices") {
        return send(200, [{ id: "vc_hosted_ava", name: "Ava", language: "en", accent: "Californian", gender: "female", tags: ["warm"], preview: "https://x/ava.mp3" }]);
      }
      if (req.method === "POST" && p === "/asset/pricing") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Json;
        const total = catalog.price(body);
        if (total === undefined) return send(404, { error: "Model not found", details: [{ code: "model_not_found", message: "Model not found" }] });
        const n = typeof body.generation_count === "number" ? body.generation_count : 1;
        return send(200, { model: body.model, cost_per_generation: total / n, total_cost: total, currency: "credits", generation_count: n });
      }
      send(404, { error: "Not found", details: [{ code: "not_found", message: "Not found" }] });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  home = newHome();
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

const hosted = () => ({ MEDIAGEN_BASE_URL: baseUrl, MEDIAGEN_API_KEY: `mg_live_${"a".repeat(64)}` });

describe("local catalog sync --from-hosted", () => {
  it("copies the hosted models: local listing, validation and pricing follow; the unknown class is listed and skipped", async () => {
    const before = await run(["asset", "price", "--model", "imgA-4-fast", "--json"], { home });
    expect(before.json<{ total_cost: number }>().total_cost).toBe(0.1);

    const sync = await run(["local", "catalog", "sync", "--from-hosted", "--json"], { home, env: hosted() });
    expect(sync.exitCode, sync.stderr).toBe(0);
    const synced = sync.json<{ models: string[]; skipped: { name: string; reason: string }[]; source: string; warnings: string[] }>();
    expect(synced.models).toEqual(["imgA-4-fast", "vidZ-1"]);
    expect(synced.skipped).toEqual([{ name: "lipsync-1", reason: "it takes audio_url, which the local renderer does not know" }]);
    expect(synced.source).toBe(`hosted ${baseUrl}/api/public/v1`);
    expect(synced.warnings).toEqual([]);

    // Listing and input_schema: the hosted ones.
    const models = (await run(["asset", "models", "--json"], { home })).json<{ models: { name: string; base_cost: number }[] }>();
    expect(models.models.map((m) => [m.name, m.base_cost])).toEqual([
      ["imgA-4-fast", 0.5],
      ["vidZ-1", 3],
    ]);
    const detail = (await run(["asset", "model", "vidZ-1", "--json"], { home })).json<{ input_schema: { properties: { duration: { enum: number[] } } } }>();
    expect(detail.input_schema.properties.duration.enum).toEqual([3, 9]);

    // Pricing: the hosted figures.
    expect((await run(["asset", "price", "--model", "imgA-4-fast", "--json"], { home })).json<{ total_cost: number }>().total_cost).toBe(0.5);
    expect(
      (await run(["asset", "price", "--model", "vidZ-1", "--duration", "9", "--resolution", "1080p", "--json"], { home })).json<{ total_cost: number }>().total_cost,
    ).toBe(18);

    // Validation: the hosted durations; a model the hosted catalog lacks is unknown here too.
    const badDuration = await run(["asset", "start", "--type", "video", "--model", "vidZ-1", "--prompt", "waves", "--duration", "4", "--json"], { home });
    expect(badDuration.exitCode).toBe(2);
    expect(badDuration.errorLine()).toMatchObject({ code: "invalid_value", field: "duration" });
    const gone = await run(["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "waves", "--json"], { home });
    expect(gone.exitCode).toBe(2);
    expect(gone.errorLine()?.field).toBe("model");
    const skipped = await run(["asset", "price", "--model", "lipsync-1", "--json"], { home });
    expect(skipped.errorLine()?.code).toBe("model_not_found");

    // The new model renders and is charged the hosted price.
    const out = path.join(home, "clip");
    const made = await run(["asset", "start", "--type", "video", "--model", "vidZ-1", "--prompt", "waves", "--duration", "3", "--watch", "--download", out, "-q"], {
      home,
      timeoutMs: 60_000,
    });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(fs.statSync(made.stdout.trim()).size).toBeGreaterThan(0);
    const spaces = (await run(["local", "spaces", "list", "--json"], { home })).json<{ is_default: boolean; credits: number }[]>();
    expect(spaces.find((s) => s.is_default)!.credits).toBe(1000 - 3);

    const status = (await run(["local", "catalog", "status", "--json"], { home })).json<{ source: string; models: number; skipped: unknown[]; synced_at: string }>();
    expect(status).toMatchObject({ source: `hosted ${baseUrl}/api/public/v1`, models: 2, skipped: [{ name: "lipsync-1" }] });
    expect(Date.parse(status.synced_at)).not.toBeNaN();
  });

  it("reset goes back to the built-in catalog; a file source works without the service", async () => {
    const reset = await run(["local", "catalog", "reset"], { home });
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect((await run(["local", "catalog", "status", "--json"], { home })).json<{ source: string }>().source).toBe("built-in");
    expect((await run(["asset", "price", "--model", "imgA-4-fast", "--json"], { home })).json<{ total_cost: number }>().total_cost).toBe(0.1);
    expect((await run(["asset", "price", "--model", "vidZ-1", "--json"], { home })).exitCode).toBe(4);

    const file = path.join(home, "models.json");
    fs.writeFileSync(file, JSON.stringify({ models: catalog.details }));
    const sync = await run(["local", "catalog", "sync", "--from", file, "--json"], { home });
    expect(sync.exitCode, sync.stderr).toBe(0);
    expect(sync.json<{ models: string[] }>().models).toEqual(["imgA-4-fast", "vidZ-1"]);
    // Without the pricing endpoint, base_cost at default parameters is spread per second.
    expect((await run(["asset", "price", "--model", "vidZ-1", "--duration", "9", "--json"], { home })).json<{ total_cost: number }>().total_cost).toBe(9);

    const bad = await run(["local", "catalog", "sync"], { home });
    expect(bad.exitCode).toBe(2);
  });

  it("--voices also replaces the public voices: the hosted ones, spoken by a local voice of their language", async () => {
    const h = newHome();
    const sync = await run(["local", "catalog", "sync", "--from-hosted", "--voices", "--json"], { home: h, env: hosted() });
    expect(sync.exitCode, sync.stderr).toBe(0);
    const synced = sync.json<{ voices: string[]; skipped: { name: string; reason: string }[] }>();
    expect(synced.voices).toEqual(["vc_hosted_ava"]);
    expect(synced.skipped).toContainEqual({ name: "voice vc_hosted_min", reason: 'the local speech has no voice for language "ko"' });
    const voices = (await run(["voice", "list", "--json"], { home: h })).json<{ id: string }[]>();
    expect(voices.map((v) => v.id)).toEqual(["vc_hosted_ava"]);
    const resources = (await run(["voice", "resources", "--json"], { home: h })).json<{ id: string; language: string; gender: string; accent: string }[]>();
    expect(resources).toEqual([expect.objectContaining({ id: "vc_hosted_ava", language: "en", gender: "female", accent: "Californian" })]);
    // It speaks: a generation with it completes; a built-in voice is no longer offered.
    const g = await run(["generate", "--script", "Hello there.", "--voice", "vc_hosted_ava", "--avatar", "lk_zoe_podcast", "--watch", "--json"], {
      home: h,
      timeoutMs: 60_000,
    });
    expect(g.exitCode, g.stderr).toBe(0);
    const old = await run(["generate", "--script", "Hello there.", "--voice", "vc_emma", "--avatar", "lk_zoe_podcast", "--json"], { home: h });
    expect(old.exitCode).toBe(2);
    expect(old.errorLine()?.code).toMatch(/invalid_voice_id/i);
    expect((await run(["local", "catalog", "status", "--json"], { home: h })).json<{ voices: number }>().voices).toBe(1);
    await run(["local", "catalog", "reset"], { home: h });
    expect((await run(["voice", "list", "--json"], { home: h })).json<{ id: string }[]>().map((v) => v.id)).toContain("vc_emma");
  });
});
