/**
 * Asset generation end to end, on both targets: models, pricing, every rule of asset start (status,
 * code and field, nothing debited when rejected), real renders, status presence rules, failures
 * refunded once, webhooks, lineage and folders.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Asset } from "../../src/features/asset/contract.js";
import { toMilli } from "../../src/contract/credits.js";
import type { Engine } from "../../src/engine/engine.js";
import { MODELS, type ModelDef } from "../../src/features/asset/emulator/catalog/models.js";
import { pngSize } from "../../src/media/inputs.js";
import { getTools, renderImage, renderVideo } from "../../src/media/index.js";
import { apiError, forBothTargets, type TargetHarness } from "./harness.js";
import { startFixtureServer, type FixtureServer } from "../helpers/fixture-server.js";
import { probeOutput } from "../helpers/fixture-ffmpeg.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

// ---- fixtures shared by both targets: media files and an HTTP server (references + webhooks) --------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-assets-"));
const file = (name: string) => path.join(dir, name);
let origin = "";
let fixtures: FixtureServer;

beforeAll(async () => {
  await Promise.all([
    renderImage({ out: file("a.png"), width: 320, height: 240, prompt: "fixture A" }),
    renderImage({ out: file("b.png"), width: 240, height: 320, prompt: "fixture B" }),
    renderImage({ out: file("c.jpg.png"), width: 200, height: 200, prompt: "fixture C" }),
    renderVideo({ out: file("clip.mp4"), width: 320, height: 180, durationSeconds: 2, prompt: "fixture clip", audio: true }),
  ]);
  fs.writeFileSync(file("not-a-video.mp4"), "this is text, not a video");
  // 61 s at one tiny frame a second: longer than any source-following model renders.
  const { ffmpeg } = await getTools();
  execFileSync(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=64x36:r=1:d=61", "-pix_fmt", "yuv420p", file("long.mp4")]);
  fixtures = await startFixtureServer(dir);
  origin = fixtures.origin;
}, 60_000);

afterAll(async () => {
  await fixtures.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// ---- helpers ----------------------------------------------------------------------------------------

interface Space {
  engine: Engine;
  id: string;
  balance: () => number;
}

function space(t: TargetHarness, opts: { plan?: string; credits?: number } = {}): Space {
  const key = t.newKey(opts);
  const id = t.instance.spaceForKey(key)!.id;
  return { engine: t.engineFor(key), id, balance: () => t.instance.ledger.balance(id) };
}

async function finished(engine: Engine, id: string, timeoutMs = 20_000): Promise<Asset> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const a = await engine.assetStatus({ assetId: id });
    if (a.status === "completed" || a.status === "failed") return a;
    if (Date.now() > deadline) throw new Error(`asset ${id} still ${a.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function fileOf(t: TargetHarness, id: string): string {
  const row = t.instance.db.prepare("SELECT file_path FROM assets WHERE id = ?").get(id) as { file_path: string };
  return path.join(t.instance.mediaDir, row.file_path);
}

function assetCount(t: TargetHarness, spaceId: string): number {
  return (t.instance.db.prepare("SELECT COUNT(*) AS n FROM assets WHERE space_id = ?").get(spaceId) as { n: number }).n;
}

/** A valid start request for any model, with non-default parameters wherever the model has choices. */
function requestFor(m: ModelDef, lib: { image: string; video: string }, src: (name: string) => string): Record<string, unknown> {
  const req: Record<string, unknown> = { type: m.type, model: m.name };
  if (!m.promptless) req.prompt = "priced";
  if (m.durations.length) req.duration = m.durations.at(-1);
  if (m.resolutions.length) req.resolution = m.resolutions[0];
  if (m.aspect_ratios.length) req.aspect_ratio = m.aspect_ratios.at(-1);
  if (m.settings.length) {
    req.model_settings = Object.fromEntries(m.settings.map((s) => [s.key, s.type === "boolean" ? !s.default_value : s.options.at(-1)]));
  }
  if (m.references)
    req.references = Array.from({ length: Math.max(m.references.min, Math.min(2, m.references.max)) }, (_, i) => ({ url: src(i % 2 ? "b.png" : "a.png") }));
  for (const slot of m.slots ?? []) {
    if (slot.kind === "image") req[slot.name] = { url: src("a.png") };
    else req[slot.name] = slot.assetOnly ? { asset_id: lib.video } : { url: src("clip.mp4") };
  }
  return req;
}

// ---- the suite --------------------------------------------------------------------------------------

forBothTargets(
  "assets",
  (t) => {
    /**
     * A fixture as a reference URL: a local path in process, an http URL over HTTP (a served instance
     * refuses server-local paths unless started with --allow-local-files).
     */
    const src = (name: string) => (t.target === "local" ? file(name) : `${origin}/media/${name}`);

    /** A space holding one completed image and one completed video, used as library references. */
    let lib: Space & { image: string; video: string; assetsFolder: string; videosFolder: string };

    beforeAll(async () => {
      const s = space(t, { credits: 10_000, plan: "ENTREPRISE" });
      const [img, vid] = await Promise.all([
        s.engine.assetStart({ type: "image", model: "imgA-4-fast", prompt: "library image", aspect_ratio: "16:9" }),
        s.engine.assetStart({ type: "video", model: "vidB-2-fast", prompt: "library video", duration: 4, resolution: "480p" }),
      ]);
      const assetsFolder = (await s.engine.folderCreate({ name: "Lib" })).id;
      const videosFolder = (await s.engine.folderCreate({ name: "Finals", type: "videos" })).id;
      const [a, v] = await Promise.all([finished(s.engine, img.asset_ids[0]!), finished(s.engine, vid.asset_ids[0]!)]);
      expect([a.status, v.status]).toEqual(["completed", "completed"]);
      lib = { ...s, image: a.asset_id!, video: v.asset_id!, assetsFolder, videosFolder };
    }, 60_000);

    // ---- models ---------------------------------------------------------------------------------------

    it("lists every model with type and provider when unfiltered", async () => {
      const r = await lib.engine.assetModels();
      expect(r.count).toBe(MODELS.length);
      expect(r.models).toHaveLength(MODELS.length);
      expect(r).not.toHaveProperty("type");
      for (const m of r.models) expect(m).toMatchObject({ type: expect.any(String), provider: expect.any(String) });
    });

    it("hoists a type or provider filter to the root and counts after filtering", async () => {
      const videos = await lib.engine.assetModels({ type: "video" });
      expect(videos.type).toBe("video");
      expect(videos.count).toBe(MODELS.filter((m) => m.type === "video").length);
      for (const m of videos.models) {
        expect(m).not.toHaveProperty("type");
        expect(m).toHaveProperty("provider");
      }
      const both = await lib.engine.assetModels({ type: "image", provider: "alpha" });
      expect(both).toMatchObject({ type: "image", provider: "alpha", count: 2 });
      for (const m of both.models) expect(Object.keys(m)).not.toContain("provider");
      const tagged = await lib.engine.assetModels({ tag: "upscale" });
      expect(tagged.models.map((m) => m.name)).toEqual(["vidC-upscale"]);
      expect(tagged).not.toHaveProperty("type");
      expect((await lib.engine.assetModels({ tag: "nothing-has-this" })).count).toBe(0);
    });

    it("returns one model with settings and input_schema; 404 model_not_found otherwise", async () => {
      const m = await lib.engine.assetModel({ name: "vidA-3" });
      expect(m).toMatchObject({ name: "vidA-3", base_cost: 32, max_prompt_length: null, restricted_countries: [] });
      expect((m.input_schema!.properties! as Record<string, unknown>).duration).toEqual({ type: "integer", enum: [4, 6, 8], default: 8 });
      const err = await apiError(lib.engine.assetModel({ name: "vidZ-9" }));
      expect([err.status, err.code]).toEqual([404, "model_not_found"]);
    });

    // ---- pricing --------------------------------------------------------------------------------------

    it("prices without debiting, normalising only what it coerced", async () => {
      const s = space(t);
      const before = s.balance();
      expect(await s.engine.assetPricing({ model: "vidA-3", duration: 7 })).toEqual({
        model: "vidA-3",
        cost_per_generation: 32,
        total_cost: 32,
        currency: "credits",
        generation_count: 1,
        normalized: { duration: 8 },
      });
      expect(await s.engine.assetPricing({ model: "imgB-edit", image_count: 2, generation_count: 2 })).toEqual({
        model: "imgB-edit",
        cost_per_generation: 0.5,
        total_cost: 1,
        currency: "credits",
        generation_count: 2,
      });
      const missing = await apiError(s.engine.assetPricing({}));
      expect([missing.status, missing.code, missing.field, missing.message]).toEqual([400, "missing_field", "model", "model is required"]);
      const unknown = await apiError(s.engine.assetPricing({ model: "nope" }));
      expect([unknown.status, unknown.code]).toEqual([404, "model_not_found"]);
      expect(s.balance()).toBe(before);
    });

    // ---- generation ---------------------------------------------------------------------------------------

    it("renders a default image: a PNG of the exact size, with the Asset presence rules", async () => {
      const s = space(t);
      const before = s.balance();
      const started = await s.engine.assetStart({ type: "image", model: "imgA-4", prompt: "a red fox at dawn" });
      expect(started).toEqual({ asset_ids: [expect.stringMatching(/^[0-9a-f]{24}$/)], status: "generating", count: 1, cost_per_generation: 1, total_cost: 1 });
      expect(s.balance()).toBe(before - 1000); // debited up front
      const id = started.asset_ids[0]!;
      const generating = await s.engine.assetStatus({ assetId: id });
      if (generating.status === "generating") {
        expect(generating).not.toHaveProperty("url");
        expect(generating).not.toHaveProperty("error");
        expect(generating.generation_params).toEqual({ model: "imgA-4", prompt: "a red fox at dawn", aspect_ratio: "1:1", resolution: "1K" });
      }
      const a = await finished(s.engine, id);
      expect(Object.keys(a)).toEqual(["asset_id", "status", "type", "url", "width", "height", "cost", "created_at", "generation_params"]);
      expect(a).toMatchObject({ asset_id: id, status: "completed", type: "image", width: 1024, height: 1024, cost: 1 });
      expect(a.created_at).toMatch(ISO);
      expect(a.generation_params).not.toHaveProperty("references");
      expect(pngSize(fileOf(t, id))).toEqual({ width: 1024, height: 1024 });
      expect(a.url).toMatch(/\/a-red-fox-at-dawn\.png(\?|$)/);
      const bytes = a.url!.startsWith("file:") ? fs.readFileSync(new URL(a.url!)) : Buffer.from(await (await fetch(a.url!)).arrayBuffer());
      expect(bytes.equals(fs.readFileSync(fileOf(t, id)))).toBe(true);
      expect(s.balance()).toBe(before - 1000);
    });

    it("renders a video of the exact duration with a thumbnail, and audio exactly when it is on", async () => {
      const s = space(t);
      const on = await s.engine.assetStart({ type: "video", model: "vidA-3-fast", prompt: "waves at night", duration: 4, aspect_ratio: "16:9" });
      const off = await s.engine.assetStart({
        type: "video",
        model: "vidA-3-fast",
        prompt: "waves at night",
        duration: 4,
        aspect_ratio: "16:9",
        model_settings: { generateAudio: false },
      });
      expect([on.cost_per_generation, off.cost_per_generation]).toEqual([8, 4]);
      for (const [res, audio] of [
        [on, true],
        [off, false],
      ] as const) {
        const a = await finished(s.engine, res.asset_ids[0]!);
        expect(a).toMatchObject({ status: "completed", type: "video", width: 1280, height: 720, duration_seconds: 4 });
        expect(a.thumbnail_url).toEqual(expect.any(String));
        expect(a.generation_params).toEqual({ model: "vidA-3-fast", prompt: "waves at night", aspect_ratio: "16:9", resolution: "720p", duration: 4 });
        const info = await probeOutput(fileOf(t, a.asset_id!));
        expect(Math.abs(info.durationSeconds - 4)).toBeLessThanOrEqual(0.1);
        expect([info.width, info.height, info.videoCodec]).toEqual([1280, 720, "h264"]);
        expect(info.audioCodec).toBe(audio ? "aac" : undefined);
        const thumb = t.instance.db.prepare("SELECT thumbnail_path FROM assets WHERE id = ?").get(a.asset_id) as { thumbnail_path: string };
        expect(fs.statSync(path.join(t.instance.mediaDir, thumb.thumbnail_path)).size).toBeGreaterThan(0);
      }
    });

    it("keeps references in submission order (file, http, asset, avatar) and renders with them", async () => {
      const refs = [{ url: src("a.png") }, { url: `${origin}/media/b.png` }, { asset_id: lib.image }, { avatar_id: "av_maya" }];
      const r = await lib.engine.assetStart({ type: "image", model: "imgA-4", prompt: "a collage", references: refs, aspect_ratio: "16:9" });
      const a = await finished(lib.engine, r.asset_ids[0]!);
      expect(a.status).toBe("completed");
      expect(a.generation_params?.references).toEqual(refs);
      expect(pngSize(fileOf(t, a.asset_id!))).toEqual({ width: 1024, height: 576 });
    });

    it("maps references onto named slots in slot order, and reports them in slot order", async () => {
      const s = space(t);
      const frames = await s.engine.assetStart({
        type: "video",
        model: "vidA-3-frames",
        prompt: "day to night",
        duration: 4,
        references: [{ url: src("a.png") }, { url: src("b.png") }],
      });
      // Square (720x720 rather than 1280x720): only the slots and the status of these two are checked.
      const startOnly = await s.engine.assetStart({
        type: "video",
        model: "vidB-2-5-frames",
        prompt: "zoom in",
        aspect_ratio: "1:1",
        end_image: { url: src("b.png") },
        references: [{ url: src("a.png") }],
      });
      const textOnly = await s.engine.assetStart({ type: "video", model: "vidB-2-5-frames", prompt: "no images at all", aspect_ratio: "1:1" });
      const a = await finished(s.engine, frames.asset_ids[0]!);
      expect(a).toMatchObject({ status: "completed", duration_seconds: 4, width: 1280, height: 720 });
      expect(a.generation_params?.references).toEqual([{ url: src("a.png") }, { url: src("b.png") }]);
      const b = await finished(s.engine, startOnly.asset_ids[0]!);
      expect(b.status).toBe("completed");
      // The explicit end_image stays; the reference fills the empty start_image: slot order a, b.
      expect(b.generation_params?.references).toEqual([{ url: src("a.png") }, { url: src("b.png") }]);
      const c = await finished(s.engine, textOnly.asset_ids[0]!);
      expect(c.status).toBe("completed");
      expect(c.generation_params).not.toHaveProperty("references");
    });

    it("motion control, edit and extend use their sources; motion and edit follow the source's length", async () => {
      const motion = await lib.engine.assetStart({
        type: "video",
        model: "vidB-motion",
        prompt: "dance",
        start_image: { url: src("a.png") },
        motion_video: { url: src("clip.mp4") },
      });
      const edit = await lib.engine.assetStart({
        type: "video",
        model: "vidC-edit",
        prompt: "make it snow",
        source_video: { asset_id: lib.video },
        model_settings: { keepAudio: false },
      });
      const extend = await lib.engine.assetStart({ type: "video", model: "vidA-3-extend", prompt: "keep going", source_video: { asset_id: lib.video } });
      // The source was measured at start: the parameters it gives are there while generating already.
      const atStart = await lib.engine.assetStatus({ assetId: motion.asset_ids[0]! });
      const clip = await probeOutput(file("clip.mp4"));
      const m = await finished(lib.engine, motion.asset_ids[0]!);
      expect(m).toMatchObject({ status: "completed", width: 320, height: 180 });
      expect(Math.abs(m.duration_seconds! - clip.durationSeconds)).toBeLessThanOrEqual(0.1);
      // Models that follow their source name what their output is: its ratio, size and whole seconds.
      expect(m.generation_params).toEqual({
        model: "vidB-motion",
        prompt: "dance",
        aspect_ratio: "16:9",
        resolution: "180p",
        duration: Math.round(clip.durationSeconds),
        references: [{ url: src("a.png") }, { url: src("clip.mp4") }],
      });
      expect(atStart.generation_params).toEqual(m.generation_params);
      const e = await finished(lib.engine, edit.asset_ids[0]!);
      expect(e).toMatchObject({ status: "completed", width: 854, height: 480 });
      expect(Math.abs(e.duration_seconds! - 4)).toBeLessThanOrEqual(0.1);
      expect(e.generation_params).toMatchObject({ aspect_ratio: "16:9", resolution: "480p", duration: 4 });
      expect((await probeOutput(fileOf(t, e.asset_id!))).audioCodec).toBeUndefined();
      const x = await finished(lib.engine, extend.asset_ids[0]!);
      expect(x).toMatchObject({ status: "completed", duration_seconds: 7, width: 1280, height: 720 });
      expect(x.generation_params).toMatchObject({ aspect_ratio: "16:9", resolution: "720p", duration: 7 });
      expect(x.generation_params?.references).toEqual([{ asset_id: lib.video }]);
    }, 30_000);

    it("generation_params always names the aspect ratio and resolution used, and a video's duration", async () => {
      const s = lib; // extend takes a library video of this space
      // Literal values for the models without a choice of some parameter: the defaults they render at.
      const expected: Record<string, Record<string, unknown>> = {
        "imgB-edit": { aspect_ratio: "1:1", resolution: "1K" },
        "imgA-4-fast": { aspect_ratio: "1:1", resolution: "1K" },
        "vidB-2-5": { aspect_ratio: "16:9", resolution: "720p", duration: 5 },
        "vidB-2-5-frames": { aspect_ratio: "16:9", resolution: "720p", duration: 5 },
        "vidA-3": { aspect_ratio: "9:16", resolution: "720p", duration: 8 },
        "vidC-upscale": { aspect_ratio: "16:9", resolution: "360p", duration: 2 },
        "vidC-edit": { aspect_ratio: "16:9", resolution: "180p", duration: 2 },
        "vidB-motion": { aspect_ratio: "16:9", resolution: "180p", duration: 2 },
      };
      for (const m of MODELS) {
        const req: Record<string, unknown> = { type: m.type, model: m.name };
        if (!m.promptless) req.prompt = "x";
        if (m.references?.min) req.references = [{ url: src("a.png") }];
        for (const slot of m.slots ?? []) {
          if (!slot.required) continue;
          req[slot.name] = slot.kind === "image" ? { url: src("a.png") } : slot.assetOnly ? { asset_id: lib.video } : { url: src("clip.mp4") };
        }
        const r = await s.engine.assetStart(req as never, { simulate: "fail" });
        const a = await finished(s.engine, r.asset_ids[0]!);
        expect(a.generation_params, m.name).toBeDefined();
        const p = a.generation_params!;
        expect([m.name, typeof p.aspect_ratio, typeof p.resolution, typeof p.duration]).toEqual([
          m.name,
          "string",
          "string",
          m.type === "video" ? "number" : "undefined",
        ]);
        if (expected[m.name]) expect(p, m.name).toMatchObject(expected[m.name]!);
      }
    }, 30_000);

    it("upscale needs no prompt, is priced by the source's length and doubles its size", async () => {
      const clip = await probeOutput(file("clip.mp4"));
      const quote = await lib.engine.assetPricing({ model: "vidC-upscale", duration: clip.durationSeconds });
      const r = await lib.engine.assetStart({ type: "video", model: "vidC-upscale", source_video: { url: `${origin}/media/clip.mp4` } });
      expect(r.cost_per_generation).toBe(quote.cost_per_generation);
      expect(r.cost_per_generation).toBe(0.5 * Math.ceil(clip.durationSeconds));
      const a = await finished(lib.engine, r.asset_ids[0]!);
      expect(a).toMatchObject({ status: "completed", width: 640, height: 360 });
      expect(a.generation_params).toMatchObject({ prompt: "", aspect_ratio: "16:9", resolution: "360p", duration: 2 });
      // The price is the start's answer: this one is not rendered (a 1708x960 upscale nobody looks at).
      const fromAsset = await lib.engine.assetStart({ type: "video", model: "vidC-upscale", source_video: { asset_id: lib.video } }, { simulate: "fail" });
      expect(fromAsset.cost_per_generation).toBe(2); // the 4 s library video
    });

    it("UGC takes avatar_description; elements are named in the prompt", async () => {
      const ugc = await lib.engine.assetStart({
        type: "video",
        model: "vidD-ugc",
        prompt: "reviews a phone",
        avatar_description: "a woman in a red coat",
        duration: 4,
        resolution: "480p",
        // Square (480x480): only the status is checked here.
        aspect_ratio: "1:1",
      });
      const omni = await lib.engine.assetStart({
        type: "video",
        model: "vidD-omni",
        prompt: "@hero walks past @dog",
        duration: 4,
        resolution: "480p",
        aspect_ratio: "1:1",
        references: [{ url: src("clip.mp4") }],
        elements: [
          { name: "hero", images: [{ url: src("a.png") }, { url: src("b.png") }] },
          { name: "dog", images: [{ asset_id: lib.image }, { avatar_id: "av_maya" }] },
        ],
      });
      for (const id of [ugc.asset_ids[0]!, omni.asset_ids[0]!]) expect((await finished(lib.engine, id)).status).toBe("completed");
      expect((await lib.engine.assetStatus({ assetId: omni.asset_ids[0]! })).generation_params?.references).toEqual([{ url: src("clip.mp4") }]);
    }, 30_000);

    it("generation_count makes one asset and one debit per generation", async () => {
      const s = space(t);
      const before = s.balance();
      const r = await s.engine.assetStart({ type: "image", model: "imgA-4-fast", prompt: "three foxes", generation_count: 3 });
      expect(r).toMatchObject({ count: 3, cost_per_generation: 0.1, total_cost: 0.3 });
      expect(new Set(r.asset_ids).size).toBe(3);
      expect(s.balance()).toBe(before - 300);
      const debits = t.instance.ledger.rows(s.id).filter((row) => row.kind === "debit");
      expect(debits.map((d) => d.ref).sort()).toEqual([...r.asset_ids].sort());
      for (const id of r.asset_ids) expect((await finished(s.engine, id)).status).toBe("completed");
    });

    it("folder_id files the asset; a parent_media_id passes its folder on and folder_id is ignored", async () => {
      const folder = (await lib.engine.folderCreate({ name: "Heroes" })).id;
      const parent = await lib.engine.assetStart({ type: "image", model: "imgA-4-fast", prompt: "parent", folder_id: folder }, { simulate: "fail" });
      const child = await lib.engine.assetStart(
        { type: "image", model: "imgA-4-fast", prompt: "child", parent_media_id: parent.asset_ids[0]!, folder_id: lib.videosFolder },
        { simulate: "fail" },
      );
      const orphan = await lib.engine.assetStart(
        { type: "image", model: "imgA-4-fast", prompt: "orphan", parent_media_id: lib.image, folder_id: folder },
        { simulate: "fail" },
      );
      const row = (id: string) => t.instance.db.prepare("SELECT folder_id, parent_media_id FROM assets WHERE id = ?").get(id);
      expect(row(parent.asset_ids[0]!)).toEqual({ folder_id: folder, parent_media_id: null });
      expect(row(child.asset_ids[0]!)).toEqual({ folder_id: folder, parent_media_id: parent.asset_ids[0]! });
      expect(row(orphan.asset_ids[0]!)).toEqual({ folder_id: null, parent_media_id: lib.image });
    });

    it("slugifies file_name and appends the extension; without it the name comes from the prompt", async () => {
      const s = space(t);
      const named = await s.engine.assetStart({ type: "image", model: "imgA-4-fast", prompt: "x", file_name: "My Hero Shot!" });
      const auto = await s.engine.assetStart({ type: "image", model: "imgA-4-fast", prompt: "A Red Fox, at dawn; in snow & fog today" });
      expect((await finished(s.engine, named.asset_ids[0]!)).url).toMatch(/\/my-hero-shot\.png(\?|$)/);
      expect((await finished(s.engine, auto.asset_ids[0]!)).url).toMatch(/\/a-red-fox-at-dawn-in\.png(\?|$)/);
    });

    it("a simulated failure ends failed with the code, refunds exactly once and sends the webhook", async () => {
      const s = space(t);
      const before = s.balance();
      const hook = `${origin}/hook/${t.target}-sim`;
      const r = await s.engine.assetStart({ type: "video", model: "vidA-3", prompt: "doomed", webhook_url: hook, generation_count: 2 }, { simulate: "fail" });
      expect(r.total_cost).toBe(64);
      const custom = await s.engine.assetStart({ type: "image", model: "imgA-4", prompt: "doomed too" }, { simulate: "fail:PROVIDER_DOWN" });
      for (const id of r.asset_ids) {
        const a = await finished(s.engine, id);
        expect(Object.keys(a)).toEqual(["asset_id", "status", "type", "width", "height", "duration_seconds", "cost", "created_at", "generation_params", "error"]);
        expect(a).toMatchObject({ status: "failed", error: { code: "generation_failed", message: expect.any(String) } });
      }
      expect((await finished(s.engine, custom.asset_ids[0]!)).error).toMatchObject({ code: "PROVIDER_DOWN" });
      await t.instance.runUntilIdle();
      expect(s.balance()).toBe(before);
      for (const id of [...r.asset_ids, ...custom.asset_ids]) {
        const rows = t.instance.ledger.rows(s.id).filter((row) => row.ref === id);
        expect(rows.map((row) => row.kind)).toEqual(["debit", "refund"]);
        expect(rows[0]!.amount_milli + rows[1]!.amount_milli).toBe(0);
      }
      const got = fixtures.hooks.filter((h) => h.path === `/hook/${t.target}-sim`).map((h) => h.body);
      expect(got).toHaveLength(2);
      for (const body of got) {
        expect(body).toEqual({
          task: "asset_generation",
          status: "failed",
          asset_id: expect.any(String),
          error: { code: "generation_failed", message: expect.any(String) },
        });
      }
      expect(got.map((b) => b.asset_id).sort()).toEqual([...r.asset_ids].sort());
    });

    it("a real render failure (an unreachable reference) ends failed and is refunded", async () => {
      const s = space(t);
      const before = s.balance();
      const r = await s.engine.assetStart({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: `${origin}/media/gone.png` }] });
      const a = await finished(s.engine, r.asset_ids[0]!);
      expect(a).toMatchObject({ status: "failed", error: { code: "reference_unavailable" } });
      expect(a).not.toHaveProperty("url");
      expect(s.balance()).toBe(before);
      expect(fs.existsSync(fileOf(t, a.asset_id!))).toBe(false);
    });

    it("sends the completion webhook with the hosted payload", async () => {
      const s = space(t);
      const hook = `${origin}/hook/${t.target}-ok`;
      const r = await s.engine.assetStart({ type: "video", model: "vidB-2-fast", prompt: "ok", duration: 4, resolution: "480p", aspect_ratio: "1:1", webhook_url: hook });
      const a = await finished(s.engine, r.asset_ids[0]!);
      await t.instance.runUntilIdle();
      const got = fixtures.hooks.filter((h) => h.path === `/hook/${t.target}-ok`).map((h) => h.body);
      expect(got).toEqual([
        {
          task: "asset_generation",
          status: "completed",
          asset_id: a.asset_id,
          result: { asset_url: expect.stringMatching(/\.mp4(\?|$)/), asset_type: "video", width: 480, height: 480, duration_seconds: 4 },
        },
      ]);
    });

    it("answers asset_not_found for unknown ids and for another space's assets", async () => {
      const s = space(t);
      for (const id of ["0123456789abcdef01234567", lib.image, "not-an-id"]) {
        const err = await apiError(s.engine.assetStatus({ assetId: id }));
        expect([err.status, err.code]).toEqual([404, "asset_not_found"]);
      }
    });

    it("debits exactly the dry-run price for the same parameters, for every model", async () => {
      const clip = await probeOutput(file("clip.mp4"));
      for (const m of MODELS) {
        const req = requestFor(m, lib, src);
        const price: Record<string, unknown> = { model: m.name, generation_count: 2 };
        // Pricing takes no aspect_ratio (the spec names none for it; sent, it is refused).
        for (const k of ["duration", "resolution", "model_settings", "references"] as const) if (req[k] !== undefined) price[k] = req[k];
        if (m.pricing.kind === "per_source_second") price.duration = clip.durationSeconds;
        const quote = await lib.engine.assetPricing(price);
        // Simulated failures refund in the background, so the debit is read from the ledger, not the balance.
        const r = await lib.engine.assetStart({ ...req, generation_count: 2 }, { simulate: "fail" });
        expect({ model: m.name, per: r.cost_per_generation, total: r.total_cost }).toEqual({ model: m.name, per: quote.cost_per_generation, total: quote.total_cost });
        const debits = t.instance.ledger.rows(lib.id).filter((row) => row.kind === "debit" && r.asset_ids.includes(row.ref!));
        expect(debits.map((d) => -d.amount_milli)).toEqual([toMilli(quote.cost_per_generation!), toMilli(quote.cost_per_generation!)]);
      }
    }, 30_000);

    // ---- every rule of start, rejected with nothing debited -------------------------------------------

    type Ctx = { lib: typeof lib; other: string; long: string };
    const rejections: {
      name: string;
      body: (c: Ctx) => Record<string, unknown>;
      status?: number;
      code: string;
      field?: string;
      credits?: number;
      simulate?: string;
      message?: RegExp;
    }[] = [
      { name: "missing type", body: () => ({ model: "imgA-4", prompt: "x" }), code: "missing_field", field: "type" },
      { name: "missing model", body: () => ({ type: "image", prompt: "x" }), code: "missing_field", field: "model" },
      { name: "missing type wins over an unknown model", body: () => ({ model: "nope", prompt: "x" }), code: "missing_field", field: "type" },
      { name: "type not image/video", body: () => ({ type: "audio", model: "imgA-4", prompt: "x" }), code: "invalid_value", field: "type" },
      { name: "unknown model", body: () => ({ type: "image", model: "imgZ-1", prompt: "x" }), code: "invalid_value", field: "model" },
      { name: "type does not match the model", body: () => ({ type: "image", model: "vidA-3", prompt: "x" }), code: "invalid_value", field: "type" },
      {
        name: "model needs a higher plan",
        body: () => ({ type: "video", model: "vidD-omni-max", prompt: "x" }),
        status: 403,
        code: "not_eligible",
        field: "model",
        message: /ENTREPRISE/,
      },
      { name: "plan comes before the prompt", body: () => ({ type: "video", model: "vidD-omni-max" }), status: 403, code: "not_eligible", field: "model" },
      { name: "missing prompt", body: () => ({ type: "image", model: "imgA-4" }), code: "missing_field", field: "prompt" },
      { name: "blank prompt", body: () => ({ type: "image", model: "imgA-4", prompt: "   " }), code: "missing_field", field: "prompt" },
      { name: "prompt not a string", body: () => ({ type: "image", model: "imgA-4", prompt: 42 }), code: "invalid_value", field: "prompt" },
      {
        name: "prompt over the model's cap",
        body: () => ({ type: "video", model: "vidB-2-5", prompt: "x".repeat(2501), references: [{ url: src("a.png") }] }),
        code: "invalid_value",
        field: "prompt",
      },
      { name: "prompt before references", body: () => ({ type: "video", model: "vidB-2-5" }), code: "missing_field", field: "prompt" },
      {
        name: "avatar_description on a non-UGC model",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", avatar_description: "tall" }),
        code: "invalid_value",
        field: "avatar_description",
      },
      { name: "required reference missing", body: () => ({ type: "video", model: "vidB-2-5", prompt: "x" }), code: "missing_field", field: "references" },
      {
        name: "too many references",
        body: () => ({ type: "video", model: "vidA-3", prompt: "x", references: [{ url: src("a.png") }, { url: src("b.png") }] }),
        code: "invalid_value",
        field: "references",
      },
      {
        name: "references not an array",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", references: { url: src("a.png") } }),
        code: "invalid_value",
        field: "references",
      },
      {
        name: "reference with two keys",
        body: (c) => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: src("a.png"), asset_id: c.lib.image }] }),
        code: "invalid_value",
        field: "references[0]",
      },
      {
        name: "reference with no key",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: src("a.png") }, {}] }),
        code: "invalid_value",
        field: "references[1]",
      },
      {
        name: "reference with an unsupported extension",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: `${origin}/media/a.gif` }] }),
        code: "invalid_value",
        field: "references[0].url",
      },
      {
        name: "video reference on an image-only model",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: src("clip.mp4") }] }),
        code: "invalid_value",
        field: "references[0].url",
      },
      {
        name: "reference URL of an unusable scheme",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: "ftp://example.com/a.png" }] }),
        code: "invalid_value",
        field: "references[0].url",
      },
      {
        name: "reference to a missing local file",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ url: file("nope.png") }] }),
        code: "invalid_value",
        field: "references[0].url",
      },
      {
        name: "reference to an unknown asset",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ asset_id: "0123456789abcdef01234567" }] }),
        code: "invalid_value",
        field: "references[0].asset_id",
      },
      {
        name: "reference to another space's asset",
        body: (c) => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ asset_id: c.other }] }),
        code: "invalid_value",
        field: "references[0].asset_id",
      },
      {
        name: "video asset as an image reference",
        body: (c) => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ asset_id: c.lib.video }] }),
        code: "invalid_value",
        field: "references[0].asset_id",
      },
      {
        name: "reference to an unknown avatar",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", references: [{ avatar_id: "av_nobody" }] }),
        code: "invalid_value",
        field: "references[0].avatar_id",
      },
      {
        name: "slot on a model without slots",
        body: () => ({ type: "video", model: "vidA-3", prompt: "x", start_image: { url: src("a.png") } }),
        code: "invalid_value",
        field: "start_image",
      },
      {
        name: "slot the model does not have",
        body: () => ({ type: "video", model: "vidB-2-5-frames", prompt: "x", first_frame: { url: src("a.png") } }),
        code: "invalid_value",
        field: "first_frame",
      },
      {
        name: "end_image without start_image",
        body: () => ({ type: "video", model: "vidB-2-5-frames", prompt: "x", end_image: { url: src("a.png") } }),
        code: "invalid_value",
        field: "end_image",
      },
      {
        name: "required slot missing (motion)",
        body: () => ({ type: "video", model: "vidB-motion", prompt: "x", start_image: { url: src("a.png") } }),
        code: "missing_field",
        field: "motion_video",
      },
      {
        name: "required slot missing (first frame)",
        body: () => ({ type: "video", model: "vidA-3-frames", prompt: "x", last_frame: { url: src("a.png") } }),
        code: "missing_field",
        field: "first_frame",
      },
      {
        name: "extend source given as a URL",
        body: () => ({ type: "video", model: "vidA-3-extend", prompt: "x", source_video: { url: src("clip.mp4") } }),
        code: "invalid_value",
        field: "source_video",
      },
      {
        name: "image in a video slot",
        body: () => ({ type: "video", model: "vidC-edit", prompt: "x", source_video: { url: src("a.png") } }),
        code: "invalid_value",
        field: "source_video.url",
      },
      {
        name: "avatar in a video slot",
        body: () => ({ type: "video", model: "vidC-edit", prompt: "x", source_video: { avatar_id: "av_maya" } }),
        code: "invalid_value",
        field: "source_video.avatar_id",
      },
      {
        name: "more references than free slots",
        body: () => ({ type: "video", model: "vidA-3-frames", prompt: "x", references: [{ url: src("a.png") }, { url: src("b.png") }, { url: src("a.png") }] }),
        code: "invalid_value",
        field: "references",
      },
      {
        name: "elements on a model without the capability",
        body: () => ({ type: "image", model: "imgA-4", prompt: "@hero", elements: [{ name: "hero", images: [{ url: src("a.png") }, { url: src("b.png") }] }] }),
        code: "invalid_value",
        field: "elements",
      },
      {
        name: "element with one image",
        body: () => ({ type: "video", model: "vidD-omni", prompt: "@hero", elements: [{ name: "hero", images: [{ url: src("a.png") }] }] }),
        code: "invalid_value",
        field: "elements[0].images",
      },
      {
        name: "element with a bad image",
        body: () => ({ type: "video", model: "vidD-omni", prompt: "@hero", elements: [{ name: "hero", images: [{ url: src("a.png") }, { url: src("clip.mp4") }] }] }),
        code: "invalid_value",
        field: "elements[0].images",
      },
      {
        name: "element without a name",
        body: () => ({ type: "video", model: "vidD-omni", prompt: "x", elements: [{ images: [{ url: src("a.png") }, { url: src("b.png") }] }] }),
        code: "invalid_value",
        field: "elements[0].name",
      },
      {
        name: "element not referenced in the prompt",
        body: () => ({
          type: "video",
          model: "vidD-omni",
          prompt: "@heroine runs",
          elements: [{ name: "hero", images: [{ url: src("a.png") }, { url: src("b.png") }] }],
        }),
        code: "invalid_value",
        field: "elements[0].name",
      },
      {
        name: "second element invalid",
        body: () => ({
          type: "video",
          model: "vidD-omni",
          prompt: "@a and @b",
          elements: [
            { name: "a", images: [{ url: src("a.png") }, { url: src("b.png") }] },
            { name: "b", images: [] },
          ],
        }),
        code: "invalid_value",
        field: "elements[1].images",
      },
      {
        name: "generation_count 0",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", generation_count: 0 }),
        code: "invalid_value",
        field: "generation_count",
      },
      {
        name: "generation_count 5",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", generation_count: 5 }),
        code: "invalid_value",
        field: "generation_count",
      },
      {
        name: "generation_count 1.5",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", generation_count: 1.5 }),
        code: "invalid_value",
        field: "generation_count",
      },
      {
        name: "aspect ratio outside the model's set",
        body: () => ({ type: "video", model: "vidA-3", prompt: "x", aspect_ratio: "1:1" }),
        code: "invalid_value",
        field: "aspect_ratio",
      },
      {
        name: "resolution outside the model's set",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", resolution: "8K" }),
        code: "invalid_value",
        field: "resolution",
      },
      {
        name: "resolution on a model without any",
        body: () => ({ type: "image", model: "imgB-edit", prompt: "x", resolution: "1K" }),
        code: "invalid_value",
        field: "resolution",
      },
      { name: "duration outside the enum", body: () => ({ type: "video", model: "vidA-3", prompt: "x", duration: 5 }), code: "invalid_value", field: "duration" },
      { name: "duration on an image model", body: () => ({ type: "image", model: "imgA-4", prompt: "x", duration: 4 }), code: "invalid_value", field: "duration" },
      {
        name: "references before enums",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", aspect_ratio: "7:5", references: [{}] }),
        code: "invalid_value",
        field: "references[0]",
      },
      {
        name: "unknown model setting",
        body: () => ({ type: "video", model: "vidA-3", prompt: "x", model_settings: { turbo: true } }),
        code: "invalid_value",
        field: "model_settings.turbo",
      },
      {
        name: "boolean setting given a string",
        body: () => ({ type: "video", model: "vidA-3", prompt: "x", model_settings: { generateAudio: "no" } }),
        code: "invalid_value",
        field: "model_settings.generateAudio",
      },
      {
        name: "select setting outside its options",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", model_settings: { quality: "ultra" } }),
        code: "invalid_value",
        field: "model_settings.quality",
      },
      {
        name: "webhook_url not http(s)",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", webhook_url: "mailto:me@example.com" }),
        code: "invalid_value",
        field: "webhook_url",
      },
      {
        name: "unknown folder",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", folder_id: "0123456789abcdef01234567" }),
        code: "invalid_value",
        field: "folder_id",
      },
      {
        name: "folder of type videos",
        body: (c) => ({ type: "image", model: "imgA-4", prompt: "x", folder_id: c.lib.videosFolder }),
        code: "invalid_value",
        field: "folder_id",
      },
      {
        name: "unknown parent_media_id",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", parent_media_id: "0123456789abcdef01234567" }),
        code: "invalid_value",
        field: "parent_media_id",
      },
      {
        name: "upscale source that is not a video",
        body: () => ({ type: "video", model: "vidC-upscale", source_video: { url: src("not-a-video.mp4") } }),
        code: "invalid_value",
        field: "source_video",
      },
      {
        name: "upscale source longer than the 60 s it would render",
        body: () => ({ type: "video", model: "vidC-upscale", source_video: { url: src("long.mp4") } }),
        code: "invalid_value",
        field: "source_video",
        message: /at most 60 s/,
      },
      {
        name: "upscale of a library video longer than 60 s",
        body: (c) => ({ type: "video", model: "vidC-upscale", source_video: { asset_id: c.long } }),
        code: "invalid_value",
        field: "source_video",
      },
      {
        name: "edit source that cannot be read (measured at start)",
        body: () => ({ type: "video", model: "vidC-edit", prompt: "x", source_video: { url: src("not-a-video.mp4") } }),
        code: "invalid_value",
        field: "source_video",
      },
      {
        name: "motion video that cannot be read (measured at start)",
        body: () => ({ type: "video", model: "vidB-motion", prompt: "x", start_image: { url: src("a.png") }, motion_video: { url: `${origin}/media/gone.mp4` } }),
        code: "invalid_value",
        field: "motion_video",
      },
      {
        name: "element that is not an object (reported on its name)",
        body: () => ({ type: "video", model: "vidD-omni", prompt: "@hero", elements: ["hero"] }),
        code: "invalid_value",
        field: "elements[0].name",
      },
      { name: "credits short", body: () => ({ type: "video", model: "vidA-3", prompt: "x" }), credits: 31.999, status: 402, code: "not_eligible" },
      {
        name: "credits short for the whole count",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", generation_count: 3 }),
        credits: 2.5,
        status: 402,
        code: "not_eligible",
      },
      {
        name: "a bad folder is reported before credits",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x", folder_id: "0123456789abcdef01234567" }),
        credits: 0,
        code: "invalid_value",
        field: "folder_id",
      },
      {
        name: "a malformed simulation header",
        body: () => ({ type: "image", model: "imgA-4", prompt: "x" }),
        simulate: "explode",
        code: "invalid_value",
        field: "X-Local-Simulate",
      },
    ];

    /** An asset of another space (cross-space checks). */
    let otherAsset = "";
    let longVideo = "";
    beforeAll(async () => {
      const s = space(t);
      otherAsset = (await s.engine.assetStart({ type: "image", model: "imgA-4-fast", prompt: "someone else's" }, { simulate: "fail" })).asset_ids[0]!;
      // A library video that says it is 100 s long (the render itself is short: only the record matters).
      const long = await lib.engine.assetStart({ type: "video", model: "vidB-2-fast", prompt: "long", duration: 4, resolution: "480p" });
      expect((await finished(lib.engine, long.asset_ids[0]!)).status).toBe("completed");
      t.instance.db.prepare("UPDATE assets SET duration_seconds = 100 WHERE id = ?").run(long.asset_ids[0]!);
      longVideo = long.asset_ids[0]!;
    });

    for (const r of rejections) {
      const status = r.status ?? 400;
      it(`rejects ${r.name}: ${status} ${r.code}${r.field ? ` on ${r.field}` : ""}, debiting nothing`, async () => {
        const body = r.body({ lib, other: otherAsset, long: longVideo });
        // Library assets and folders belong to the library space: such requests are made there.
        const text = JSON.stringify(body);
        const s = [lib.image, lib.video, lib.videosFolder, longVideo].some((id) => text.includes(id)) ? lib : space(t, { credits: r.credits ?? 1000 });
        const before = s.balance();
        const countBefore = assetCount(t, s.id);
        const err = await apiError(s.engine.assetStart(body as never, r.simulate ? { simulate: r.simulate } : {}));
        expect({ status: err.status, code: err.code, field: err.field }).toEqual({ status, code: r.code, field: r.field });
        expect(err.body).toMatchObject({ error: expect.any(String), details: [{ code: r.code, message: expect.any(String) }] });
        if (r.message) expect(err.message).toMatch(r.message);
        expect(s.balance()).toBe(before);
        expect(assetCount(t, s.id)).toBe(countBefore);
      });
    }
  },
  { rateLimit: { limit: 100_000, windowMs: 60_000 } },
);
