/**
 * `mediagen plan validate|schema|price|show` on a fresh local instance. One table of plans, each
 * valid or broken on one rule of the spec's sequence-plan section (plus the service's resolution of
 * ids): `plan validate` names the rule's JSON path (exit 2), and the JSON Schema printed by `plan
 * schema`, compiled with ajv (draft 2020-12), accepts the valid rows and rejects the broken ones,
 * except the rows a JSON Schema cannot judge (marked `schema: false`, with the reason).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { generationCredits } from "../../src/contract/pricing.js";
import { estimateSpeechMs } from "../../src/features/generation/text.js";
import { run } from "./helpers.js";
import { newHomeWithCatalog } from "../helpers/catalog-pictures.js";

interface Report {
  file: string;
  valid: boolean;
  problems: { code: string; field: string; message: string }[];
  warnings: { code: string; field: string }[];
  ids_checked: boolean;
  ids_note?: string;
}

let home: string;
let dir: string;
let assetId: string;

const spoken = (extra: Record<string, unknown> = {}) => ({ voice_id: "vc_emma", look_id: "lk_maya_kitchen", sequences: [{ text: "Hello there.", ...extra }] });
const png = "https://cdn.example.com/pic.png";

interface Row {
  name: string;
  plan: unknown;
  /** The first problem's JSON path; undefined: the plan is valid. */
  field?: string;
  code?: string;
  /** Whether the JSON Schema can judge this row; a string says why not. */
  schema: true | string;
  /** Check ids against the local instance (otherwise --offline: the rules only). */
  ids?: boolean;
  /** Raw file text instead of JSON of `plan`. */
  raw?: string;
}

const ID_REASON = "whether an id exists in the space is known only to the target";
const ROWS = (): Row[] => [
  // valid plans
  {
    name: "two spoken blocks, a silence, media in the four show modes",
    schema: true,
    plan: [
      {
        voice_id: "vc_emma",
        look_id: "lk_maya_kitchen",
        sequences: [
          { text: "Welcome to the kitchen.", look_id: "lk_maya_office", media: { url: png, show: "full" } },
          { text: "Here is how we cook.", action: "smiles", media: { url: "https://cdn.example.com/clip.MP4?sig=1", show: "half", start_at: 1 } },
        ],
      },
      { sequences: [{ text: null, duration_ms: 1500, media: { url: "https://cdn.example.com/c.jpg", show: "background" } }] },
      { voice_id: "vc_noah", sequences: [{ text: "And that is all.", media: { url: "https://cdn.example.com/d.webm", show: "hide" } }] },
    ],
  },
  {
    name: "nulls stand for absent fields",
    schema: true,
    plan: [{ voice_id: null, audio_url: null, sequences: [{ text: null, duration_ms: 60_000, look_id: null, action: null }] }, spoken({ duration_ms: null })],
  },
  { name: "asset_id wins over url: a url beside it is not judged", schema: true, plan: [spoken({ media: { asset_id: "a1", url: "not a url" } })] },
  { name: "block audio in any case, with a query", schema: true, plan: [{ audio_url: "https://x.test/a.M4A?sig=1", sequences: [{ text: "a" }] }] },
  { name: "a local file on the local target", schema: true, plan: [spoken({ media: { url: "/tmp/pic.webp" } })] },
  {
    name: "ids of the space resolve (voice, looks, avatar, asset)",
    schema: true,
    ids: true,
    plan: [
      {
        voice_id: "vc_emma",
        look_id: "lk_maya_kitchen",
        avatar_id: "av_maya",
        sequences: [{ text: "Hi.", look_id: "lk_maya_office", media: { asset_id: "@asset", show: "full" } }],
      },
    ],
  },
  // the plan
  { name: "not an array", plan: { sequences: [] }, field: "sequence_plan", schema: true },
  { name: "no block", plan: [], field: "sequence_plan", schema: true },
  { name: "a block that is not an object", plan: ["x"], field: "sequence_plan[0]", schema: true },
  { name: "a block without sequences", plan: [{ voice_id: "vc_emma" }], field: "sequence_plan[0].sequences", schema: true },
  { name: "sequences not an array", plan: [{ sequences: {} }], field: "sequence_plan[0].sequences", schema: true },
  { name: "no sequence", plan: [{ sequences: [] }], field: "sequence_plan[0].sequences", schema: true },
  { name: "a sequence that is not an object", plan: [spoken(), { sequences: [7] }], field: "sequence_plan[1].sequences[0]", schema: true },
  // text
  { name: "text missing", plan: [{ sequences: [{}] }], field: "sequence_plan[0].sequences[0].text", schema: true },
  { name: "text not a string", plan: [{ sequences: [{ text: 3 }] }], field: "sequence_plan[0].sequences[0].text", schema: true },
  { name: "text blank", plan: [{ sequences: [{ text: "  " }] }], field: "sequence_plan[0].sequences[0].text", schema: true },
  // silences
  { name: "silent without duration_ms", plan: [{ sequences: [{ text: null }] }], field: "sequence_plan[0].sequences[0].duration_ms", schema: true },
  { name: "silent of 0 ms", plan: [{ sequences: [{ text: null, duration_ms: 0 }] }], field: "sequence_plan[0].sequences[0].duration_ms", schema: true },
  { name: "silent of a string", plan: [{ sequences: [{ text: null, duration_ms: "1500" }] }], field: "sequence_plan[0].sequences[0].duration_ms", schema: true },
  { name: "silent over 600 s", plan: [{ sequences: [{ text: null, duration_ms: 600_001 }] }], field: "sequence_plan[0].sequences[0].duration_ms", schema: true },
  { name: "spoken with duration_ms", plan: [spoken({ duration_ms: 2000 })], field: "sequence_plan[0].sequences[0].duration_ms", schema: true },
  {
    name: "silent not alone in its block",
    plan: [{ sequences: [{ text: "Hi." }, { text: null, duration_ms: 500 }] }],
    field: "sequence_plan[0].sequences[1]",
    schema: true,
  },
  {
    name: "silent block with a voice_id",
    plan: [spoken(), { voice_id: "vc_emma", sequences: [{ text: null, duration_ms: 1500 }] }],
    field: "sequence_plan[1].voice_id",
    schema: true,
  },
  {
    name: "silent block with audio",
    plan: [{ audio_url: "https://x.test/a.mp3", sequences: [{ text: null, duration_ms: 1500 }] }],
    field: "sequence_plan[0].audio_url",
    schema: true,
  },
  // ids and action: types
  { name: "voice_id not a string", plan: [{ voice_id: 5, sequences: [{ text: "a" }] }], field: "sequence_plan[0].voice_id", schema: true },
  { name: "block look_id blank", plan: [{ look_id: "", sequences: [{ text: "a" }] }], field: "sequence_plan[0].look_id", schema: true },
  { name: "avatar_id not a string", plan: [{ avatar_id: [], sequences: [{ text: "a" }] }], field: "sequence_plan[0].avatar_id", schema: true },
  { name: "sequence look_id not a string", plan: [{ sequences: [{ text: "a", look_id: 1 }] }], field: "sequence_plan[0].sequences[0].look_id", schema: true },
  { name: "action not a string", plan: [{ sequences: [{ text: "a", action: {} }] }], field: "sequence_plan[0].sequences[0].action", schema: true },
  // media
  { name: "media null", plan: [spoken({ media: null })], field: "sequence_plan[0].sequences[0].media", schema: true },
  { name: "media a string", plan: [spoken({ media: png })], field: "sequence_plan[0].sequences[0].media", schema: true },
  { name: "media with neither asset_id nor url", plan: [spoken({ media: { show: "full" } })], field: "sequence_plan[0].sequences[0].media", schema: true },
  { name: "media asset_id blank", plan: [spoken({ media: { asset_id: "" } })], field: "sequence_plan[0].sequences[0].media.asset_id", schema: true },
  { name: "media url not a string", plan: [spoken({ media: { url: 4 } })], field: "sequence_plan[0].sequences[0].media.url", schema: true },
  { name: "media url of a gif", plan: [spoken({ media: { url: "https://x.test/a.gif" } })], field: "sequence_plan[0].sequences[0].media.url", schema: true },
  { name: "media url over ftp", plan: [spoken({ media: { url: "ftp://x.test/a.png" } })], field: "sequence_plan[0].sequences[0].media.url", schema: true },
  { name: "media url of audio", plan: [spoken({ media: { url: "https://x.test/a.mp3" } })], field: "sequence_plan[0].sequences[0].media.url", schema: true },
  { name: "show not one of the four", plan: [spoken({ media: { url: png, show: "side" } })], field: "sequence_plan[0].sequences[0].media.show", schema: true },
  { name: "start_at negative", plan: [spoken({ media: { url: png, start_at: -1 } })], field: "sequence_plan[0].sequences[0].media.start_at", schema: true },
  {
    name: "block audio not mp3, wav or m4a",
    plan: [{ audio_url: "https://x.test/a.ogg", sequences: [{ text: "a" }] }],
    field: "sequence_plan[0].audio_url",
    schema: true,
  },
  // what a schema cannot say
  {
    name: "over 600 s of video in all",
    plan: Array.from({ length: 3 }, () => ({ sequences: [{ text: null, duration_ms: 250_000 }] })),
    field: "sequence_plan",
    schema: "the length sums speech estimated from the text and the silences of every block",
  },
  { name: "not JSON", plan: null, raw: "[{", field: "sequence_plan", code: "invalid_json", schema: "not JSON: there is nothing to judge" },
  {
    name: "unknown voice",
    ids: true,
    plan: [{ voice_id: "vc_nobody", sequences: [{ text: "a" }] }],
    field: "sequence_plan[0].voice_id",
    code: "PLAN_RESOLUTION_FAILED",
    schema: ID_REASON,
  },
  {
    name: "unknown block look",
    ids: true,
    plan: [{ voice_id: "vc_emma", look_id: "lk_nobody", sequences: [{ text: "a" }] }],
    field: "sequence_plan[0].look_id",
    code: "PLAN_RESOLUTION_FAILED",
    schema: ID_REASON,
  },
  {
    name: "unknown sequence look",
    ids: true,
    plan: [spoken({ look_id: "lk_nobody" })],
    field: "sequence_plan[0].sequences[0].look_id",
    code: "PLAN_RESOLUTION_FAILED",
    schema: ID_REASON,
  },
  {
    name: "unknown avatar",
    ids: true,
    plan: [{ ...spoken(), avatar_id: "av_nobody" }],
    field: "sequence_plan[0].avatar_id",
    code: "PLAN_RESOLUTION_FAILED",
    schema: ID_REASON,
  },
  {
    name: "unknown asset",
    ids: true,
    plan: [spoken({ media: { asset_id: "0123456789abcdef01234567" } })],
    field: "sequence_plan[0].sequences[0].media.asset_id",
    code: "PLAN_RESOLUTION_FAILED",
    schema: ID_REASON,
  },
];

/** The row's plan with `@asset` replaced by a completed image asset of the space. */
function planOf(row: Row): unknown {
  return JSON.parse(JSON.stringify(row.plan).replaceAll('"@asset"', JSON.stringify(assetId)));
}

function fileOf(row: Row, i: number): string {
  const f = path.join(dir, `row-${i}.json`);
  fs.writeFileSync(f, row.raw ?? JSON.stringify(planOf(row)));
  return f;
}

beforeAll(async () => {
  // The catalog's pictures drawn once per test process, not by the first look or avatar a plan names.
  home = await newHomeWithCatalog();
  dir = path.join(home, "plans");
  fs.mkdirSync(dir);
  const models = await run(["asset", "models", "--type", "image", "-q"], { home });
  const model = models.stdout.split("\n")[0]!;
  const a = await run(["asset", "start", "--type", "image", "--model", model, "--prompt", "a red bicycle", "--watch", "--json"], { home, timeoutMs: 60_000 });
  expect(a.exitCode, a.stderr).toBe(0);
  assetId = a.json<{ asset_id: string }>().asset_id;
}, 60_000);

describe("plan validate: every rule of the plan section, with its JSON path", () => {
  it.each(ROWS().map((r, i) => [r.name, i] as const))("%s", async (_name, i) => {
    const row = ROWS()[i]!;
    const f = fileOf(row, i);
    const r = await run(["plan", "validate", f, "--json", ...(row.ids ? [] : ["--offline"])], { home });
    const report = r.json<Report>();
    if (row.field === undefined) {
      expect(r.exitCode, r.stdout).toBe(0);
      expect(report).toMatchObject({ valid: true, problems: [] });
      expect(report.ids_checked).toBe(row.ids === true);
      return;
    }
    expect(r.exitCode, r.stdout).toBe(2);
    expect(report.valid).toBe(false);
    expect(report.problems[0]).toMatchObject({ field: row.field, code: row.code ?? "INVALID_PLAN" });
    if (!row.raw) expect(report.problems[0]!.message).toContain(row.field);
    expect(r.errorLine()).toMatchObject({ code: row.code ?? "INVALID_PLAN", field: row.field });
  });

  it("prints problems one per line for people, and reads stdin", async () => {
    const bad = [{ voice_id: "vc_emma", sequences: [{ text: null }, { text: "a", duration_ms: 3 }] }];
    const r = await run(["plan", "validate", "-", "--offline"], { home, input: JSON.stringify(bad) });
    expect(r.exitCode).toBe(2);
    expect(r.stdout.trim().split("\n")).toEqual([
      "sequence_plan[0].sequences[0].duration_ms: is required for a silent sequence (text: null)",
      "sequence_plan[0].sequences[0]: a silent sequence (text: null) must be alone in its own speech block",
      "sequence_plan[0].voice_id: a block with a silent sequence must not have a voice_id",
      "sequence_plan[0].sequences[1].duration_ms: only silent sequences (text: null) take duration_ms; spoken sequences are timed from their audio",
    ]);
    expect(r.stderr).toMatch(/stdin has 4 problems/);
    const ok = await run(["plan", "validate", "-"], { home, input: JSON.stringify({ sequence_plan: [{ sequences: [{ text: "Hi." }] }] }) });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^stdin: valid \(ids checked against the local target\)/);
    // A spoken block with no voice of its own needs the request's: said, not failed.
    expect(ok.stdout).toMatch(/warning: MISSING_VOICE: sequence_plan\[0\] is spoken but has no voice_id/);
  });

  it("a name where the plan takes an id gets a did-you-mean (voice and look)", async () => {
    const plan = [{ voice_id: "Emma", look_id: "Maya kitchn", sequences: [{ text: "Hi.", look_id: "lk_maya_kitchn" }] }];
    const r = await run(["plan", "validate", "-"], { home, input: JSON.stringify(plan) });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toContain("sequence_plan[0].voice_id: voice Emma is not a voice of this space (did you mean Emma (vc_emma)? a plan takes ids)");
    expect(r.stdout).toContain(
      "sequence_plan[0].look_id: look Maya kitchn is not a look of this space or the catalog (did you mean Maya in the kitchen (lk_maya_kitchen)",
    );
    expect(r.stdout).toContain(
      "sequence_plan[0].sequences[0].look_id: look lk_maya_kitchn is not a look of this space or the catalog (did you mean Maya in the kitchen (lk_maya_kitchen)",
    );
  });

  it("a file that cannot be read is a usage error (exit 2)", async () => {
    const r = await run(["plan", "validate", path.join(dir, "missing.json")], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/cannot read .*missing\.json: ENOENT/);
  });
});

describe("plan schema", () => {
  it("is valid JSON Schema 2020-12 that accepts the valid rows and rejects the broken ones", async () => {
    const r = await run(["plan", "schema"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const schema = r.json<Record<string, unknown>>();
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const ajv = new Ajv2020({ allowUnionTypes: true, strict: true });
    const check = ajv.compile(schema);
    const skipped: string[] = [];
    for (const row of ROWS()) {
      if (row.schema !== true) {
        skipped.push(`${row.name}: ${row.schema}`);
        continue;
      }
      expect(check(planOf(row)), `${row.name}: ${JSON.stringify(check.errors)}`).toBe(row.field === undefined);
    }
    // Only the rows a schema cannot judge were left out.
    expect(skipped).toHaveLength(7);
  });

  it("is the same with --json (the schema is the result)", async () => {
    const a = await run(["plan", "schema"], { home });
    const b = await run(["plan", "schema", "--json"], { home });
    expect(JSON.parse(b.stdout)).toEqual(JSON.parse(a.stdout));
  });
});

describe("plan price and plan show", () => {
  const plan = [
    {
      voice_id: "vc_emma",
      look_id: "lk_maya_kitchen",
      sequences: [{ text: "Welcome to the kitchen." }, { text: "Here is how we cook.", look_id: "lk_maya_office", action: "smiles" }],
    },
    { sequences: [{ text: null, duration_ms: 1500, media: { url: png, show: "full" } }] },
  ];
  const ms = estimateSpeechMs("Welcome to the kitchen.") + estimateSpeechMs("Here is how we cook.") + 1500;

  it("price: the credits generate --plan is charged on the local instance", async () => {
    const f = path.join(dir, "priced.json");
    fs.writeFileSync(f, JSON.stringify(plan));
    const r = await run(["plan", "price", f, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ estimated_credits: generationCredits(ms / 1000), exact: true, target: "local" });
    const animated = await run(["plan", "price", f, "--animate-image", "-q"], { home });
    expect(animated.stdout.trim()).toBe(String(generationCredits(ms / 1000, 1)));
    // The service charges the same at start.
    const started = await run(["generate", "--plan", f, "--json"], { home });
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.json<{ estimated_credits: number }>().estimated_credits).toBe(generationCredits(ms / 1000));
  });

  it("price and generate --dry-run cap the animated images with --animate-image-max (animate_image_max), as the start charges", async () => {
    const two = [...plan, { sequences: [{ text: null, duration_ms: 1500, media: { url: png, show: "full" } }] }];
    const f = path.join(dir, "two-images.json");
    fs.writeFileSync(f, JSON.stringify(two));
    const twoMs = ms + 1500;
    const all = await run(["plan", "price", f, "--animate-image", "-q"], { home });
    expect(all.stdout.trim()).toBe(String(generationCredits(twoMs / 1000, 2)));
    const capped = await run(["plan", "price", f, "--animate-image", "--animate-image-max", "1", "-q"], { home });
    expect(capped.exitCode, capped.stderr).toBe(0);
    expect(capped.stdout.trim()).toBe(String(generationCredits(twoMs / 1000, 1)));
    const dry = await run(["generate", "--plan", f, "--animate-image", "--animate-image-max", "1", "--dry-run", "-q"], { home });
    expect(dry.stdout.trim()).toBe(String(generationCredits(twoMs / 1000, 1)));
    const started = await run(["generate", "--plan", f, "--animate-image", "--animate-image-max", "1", "--json"], { home });
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.json<{ estimated_credits: number }>().estimated_credits).toBe(generationCredits(twoMs / 1000, 1));
    const bad = await run(["plan", "price", f, "--animate-image-max", "-1"], { home });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--animate-image-max: expected a whole number, got "-1"/);
  });

  it("show: a timeline of blocks and sequences with estimated times, looks, actions and media; --json too", async () => {
    const f = path.join(dir, "shown.json");
    fs.writeFileSync(f, JSON.stringify(plan));
    const r = await run(["plan", "show", f], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^Block 1 · voice Emma \(vc_emma\) · look Maya — .* \(lk_maya_kitchen\)$/);
    expect(lines[1]).toMatch(/^ {2}0:00\.0–0:0\d\.\d {2}"Welcome to the kitchen\." \(about \d\.\d s\)$/);
    expect(r.stdout).toMatch(/look Maya — .* \(lk_maya_office\) · action: smiles/);
    expect(r.stdout).toMatch(/Block 2 · silent/);
    expect(r.stdout).toMatch(/\(silence, 1\.5 s\)\n\s+media: full https:\/\/cdn\.example\.com\/pic\.png/);
    expect(lines.at(-1)).toContain(`${generationCredits(ms / 1000)} credits`);
    const j = (await run(["plan", "show", f, "--json"], { home })).json<{
      total_ms: number;
      blocks: { sequences: { start_ms: number; end_ms: number; look_id: string; look_from: string }[] }[];
    }>();
    expect(j.total_ms).toBe(ms);
    expect(j.blocks[0]!.sequences[1]).toMatchObject({ look_id: "lk_maya_office", look_from: "sequence", start_ms: estimateSpeechMs("Welcome to the kitchen.") });
    expect(j.blocks[1]!.sequences[0]).toMatchObject({ look_from: "request", end_ms: ms });
  });

  it("price and show refuse a broken plan with its problems (exit 2)", async () => {
    const f = path.join(dir, "broken.json");
    fs.writeFileSync(f, JSON.stringify([{ sequences: [{ text: null }] }]));
    for (const cmd of ["price", "show"]) {
      const r = await run(["plan", cmd, f, "--json"], { home });
      expect(r.exitCode).toBe(2);
      expect(r.errorLine()).toMatchObject({ code: "INVALID_PLAN", field: "sequence_plan[0].sequences[0].duration_ms" });
      expect(r.stdout).toBe("");
    }
  });
});

describe("against the hosted target (a local instance served over HTTP)", () => {
  let served: { baseUrl: string; close(ms?: number): Promise<void> };
  let inst: { close(): Promise<void>; stopWorker(ms: number): Promise<void> };
  let key: string;
  const hosted = () => ["--target", "hosted", "--base-url", served.baseUrl];

  beforeAll(async () => {
    const { openLocalInstance } = await import("../../src/features/local.js");
    const { startServer } = await import("../../src/server/server.js");
    const instance = openLocalInstance({ home: await newHomeWithCatalog(), worker: "inline" });
    inst = instance;
    key = instance.createSpace({ plan: "PRO", credits: 100 }).api_key;
    served = await startServer({ instance, host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await served?.close(1_000);
    await inst?.stopWorker(1_000);
    await inst?.close();
  });

  it("resolves ids over HTTP, refuses local files there, and prices as an estimate", async () => {
    const env = { MEDIAGEN_API_KEY: key };
    const f = path.join(dir, "hosted.json");
    fs.writeFileSync(f, JSON.stringify([{ voice_id: "vc_emma", look_id: "lk_maya_kitchen", sequences: [{ text: "Hi.", media: { url: png, show: "full" } }] }]));
    const ok = await run([...hosted(), "plan", "validate", f, "--json"], { home, env });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ valid: true, ids_checked: true });

    fs.writeFileSync(f, JSON.stringify([{ voice_id: "vc_emma", look_id: "lk_nobody", sequences: [{ text: "Hi.", media: { url: "/tmp/pic.png" } }] }]));
    const local = await run([...hosted(), "plan", "validate", f, "--json"], { home, env });
    expect(local.exitCode).toBe(2);
    // The rules first: a local file is a problem over HTTP; ids are only resolved once the rules pass.
    expect(local.json<Report>().problems.map((p) => [p.code, p.field])).toEqual([["INVALID_PLAN", "sequence_plan[0].sequences[0].media.url"]]);

    fs.writeFileSync(f, JSON.stringify([{ voice_id: "vc_emma", look_id: "lk_nobody", sequences: [{ text: "Hi." }] }]));
    const unknown = await run([...hosted(), "plan", "validate", f, "--json"], { home, env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.json<Report>().problems.map((p) => [p.code, p.field])).toEqual([["PLAN_RESOLUTION_FAILED", "sequence_plan[0].look_id"]]);

    const price = await run([...hosted(), "plan", "price", f, "--offline", "--json"], { home, env });
    expect(price.json()).toMatchObject({ exact: false, target: "hosted", estimated_credits: 5 });
  });

  it("a target that cannot be reached: the rules are checked, the ids are said not to be", async () => {
    const f = path.join(dir, "unreachable.json");
    fs.writeFileSync(f, JSON.stringify([{ voice_id: "vc_emma", sequences: [{ text: "Hi." }] }]));
    const r = await run(["--target", "hosted", "--base-url", "http://127.0.0.1:9/api/public/v1", "plan", "validate", f, "--json"], {
      home,
      env: { MEDIAGEN_API_KEY: key, MEDIAGEN_REQUEST_TIMEOUT: "5" },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ valid: true, ids_checked: false, ids_note: expect.stringMatching(/not reachable/) });
  });
});
