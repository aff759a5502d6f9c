/**
 * The service's names (issue 34) on the wire. A recording server on 127.0.0.1 stands for the hosted
 * service and keeps every request body: `asset price` sends the reference count as `image_count`
 * (never the invented `reference_count`) and no settings object under a guessed name; an open body
 * (pricing) passes the fields given in `--body`/`--set` as they are, named on one stderr line; a
 * closed one (asset start) still refuses an unknown field before sending; export sends any
 * `--avatar-model` as given (the looks' `model_available` decides, not a list in the client). The
 * same names on the local instance: `image_count` honoured, `reference_count` refused, an avatar
 * model no look offers answered INVALID_AVATAR_MODEL.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../helpers/cli.js";
import { localKey, newHome } from "./helpers.js";

const KEY = `mk_live_${"a".repeat(64)}`;
let server: http.Server;
let base = "";
/** Every request the recording server received: method, path and parsed JSON body. */
const seen: { method: string; path: string; body: Record<string, unknown> | undefined }[] = [];
let localHome = "";
let localEnv: Record<string, string> = {};

/** Canned answers in the service's shapes, so the CLI gets as far as printing. */
const ANSWERS: Record<string, [number, (body: Record<string, unknown>) => unknown]> = {
  "POST /asset/pricing": [200, (b) => ({ model: b.model, cost_per_generation: 1, total_cost: 1, currency: "credits", generation_count: 1 })],
  "POST /asset/start": [201, () => ({ asset_ids: ["a1"], status: "generating", count: 1, cost_per_generation: 1, total_cost: 1 })],
  "POST /export/start": [201, () => ({ job_id: "exp_recorded", status: "pending", estimated_credits: 0 })],
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const p = new URL(req.url ?? "/", "http://x").pathname.replace(/^\/api\/public\/v1/, "");
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      seen.push({ method: req.method ?? "", path: p, body });
      const answer = ANSWERS[`${req.method} ${p}`];
      const [status, make] = answer ?? [500, () => ({ error: "the recording server has no answer for this" })];
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(make(body ?? {})));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
  localHome = newHome();
  localEnv = { MEDIAGEN_API_KEY: (await localKey("PRO", 1000, localHome)).api_key, NO_COLOR: "1" };
}, 60_000);

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

async function hosted(args: string[], input?: string) {
  const before = seen.length;
  const r = await runInProcess(["--target", "hosted", "--base-url", base, ...args], {
    home: newHome(),
    env: { MEDIAGEN_API_KEY: KEY, NO_COLOR: "1", HTTP_PROXY: undefined, HTTPS_PROXY: undefined },
    ...(input !== undefined ? { input } : {}),
  });
  return { ...r, sent: seen.slice(before) };
}

const local = (args: string[], input?: string) => runInProcess(args, { home: localHome, env: localEnv, ...(input !== undefined ? { input } : {}) });

describe("hosted target: the service's names on the wire", () => {
  it("asset price sends the number of reference images as image_count", async () => {
    const r = await hosted(["asset", "price", "--model", "imgB-edit", "--image-count", "3", "--count", "2", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent.map((x) => [x.method, x.path, x.body])).toEqual([["POST", "/asset/pricing", { model: "imgB-edit", image_count: 3, generation_count: 2 }]]);
  });

  it("asset price has no flag that sends the settings object under a guessed name; its help says to use --body", async () => {
    const r = await hosted(["asset", "price", "--model", "vidA-3", "--setting", "generateAudio=false"]);
    expect(r.exitCode).toBe(2);
    expect(r.sent).toEqual([]);
    const help = await hosted(["asset", "price", "--help"]);
    expect(help.stdout).toMatch(/--image-count <n>/);
    expect(help.stdout).not.toMatch(/--reference-count|--setting/);
    expect(help.stdout.replace(/\s+/g, " ")).toMatch(/documents no pricing field for them, so no flag sends them; give them in --body or --set/);
  });

  it("pricing is an open body: fields from --body and --set are sent as given, named on one stderr line", async () => {
    const r = await hosted(
      ["asset", "price", "--body", "-", "--set", "settings.quality=high", "--set", "image_count=2", "--json"],
      JSON.stringify({ model: "imgA-4", speed: "turbo" }),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent.map((x) => x.body)).toEqual([{ model: "imgA-4", speed: "turbo", settings: { quality: "high" }, image_count: 2 }]);
    const lines = r.stderr.split("\n").filter((l) => /Sent as given/.test(l));
    expect(lines).toEqual(["Sent as given (the contract does not name them; the service decides): speed, settings"]);
  });

  it("asset start is a closed body: an unknown field given with --set is refused before anything is sent", async () => {
    const r = await hosted(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "p", "--set", "speed=turbo", "--json"]);
    expect(r.exitCode).toBe(2);
    expect(r.sent).toEqual([]);
    expect(r.errorLine()).toMatchObject({ code: "invalid_value", field: "speed" });
  });

  it("asset start passes any model_settings key (the model decides), from --setting and from --set", async () => {
    const r = await hosted([
      "asset",
      "start",
      "--type",
      "video",
      "--model",
      "seedance-2",
      "--prompt",
      "p",
      "--setting",
      "generateAudio=false",
      "--set",
      "model_settings.camera_fixed=true",
      "--json",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent.map((x) => [x.path, x.body])).toEqual([
      ["/asset/start", { type: "video", model: "seedance-2", prompt: "p", model_settings: { generateAudio: false, camera_fixed: true } }],
    ]);
  });

  it("asset start --dry-run prices with image_count and without the settings object, and says the settings were not priced", async () => {
    const r = await hosted([
      "asset",
      "start",
      "--type",
      "image",
      "--model",
      "imgB-edit",
      "--prompt",
      "p",
      "--ref",
      "https://media.test/a.png",
      "--ref",
      "https://media.test/b.png",
      "--setting",
      "quality=high",
      "--dry-run",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent.map((x) => [x.path, x.body])).toEqual([["/asset/pricing", { model: "imgB-edit", image_count: 2 }]]);
    expect(r.stderr).toMatch(/Priced at the model's default settings: the service documents no pricing field for model_settings/);
  });

  it.each([["seedance-2"], ["veo-3-fast"], ["ora-pro"], ["bogus"]])("export --avatar-model %s is sent as given (the look decides, not the client)", async (model) => {
    const r = await hosted(["export", "vid_xyz789", "--avatar-model", model, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent.map((x) => [x.path, x.body])).toEqual([["/export/start", { video_id: "vid_xyz789", avatar_model: model }]]);
  });
});

describe("local target: the same names", () => {
  it("honours image_count (a model priced per reference image)", async () => {
    const r = await local(["asset", "price", "--model", "imgB-edit", "--image-count", "3", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ model: "imgB-edit", cost_per_generation: 0.6 });
  });

  it("refuses the invented reference_count as a field it does not know", async () => {
    const r = await local(["asset", "price", "--body", "-", "--json"], JSON.stringify({ model: "imgB-edit", reference_count: 3 }));
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()).toMatchObject({ status: 400, code: "invalid_value", field: "reference_count" });
    expect(r.stderr).toMatch(/the number of reference images is image_count/);
  });

  it("prices the settings object under its own name (model_settings), reached through --set or --body only", async () => {
    const r = await local(["asset", "price", "--model", "vidA-3", "--set", "model_settings.generateAudio=false", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ cost_per_generation: 16 });
  });

  it("an avatar model no look of the instance offers is INVALID_AVATAR_MODEL, before the video is looked up", async () => {
    const r = await local(["export", "vid_nowhere", "--avatar-model", "bogus", "--json"]);
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()).toMatchObject({ status: 400, code: "INVALID_AVATAR_MODEL", field: "avatar_model" });
  });
});
