/**
 * The CLI against a fake hosted service (node http on 127.0.0.1:0) that answers sparse, empty
 * and malformed 2xx bodies: every command prints what it can, or "unexpected response from the
 * service: <field> <problem>" with exit 1; never a stack trace or "Cannot read properties". Run in
 * process (test/helpers/cli.ts: the same runCli, environment and streams as the binary, without a
 * node start-up per command); the built binary's own error path is covered by test/cli/process.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliResult } from "../http/serve-child.js";
import { runInProcess as run } from "../helpers/cli.js";
import { fakeServer, type FakeServer } from "./hosted-fakes.js";

const KEY = "mg_live_" + "5a".repeat(32);
const T = "2025-01-01T12:00:00Z";

let server: FakeServer;
let home: string;
/** What the fake answers next, by "METHOD /path" (query left out); unknown paths get 404. */
let answers: Record<string, { status: number; body?: unknown; raw?: string }> = {};

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  server = await fakeServer((_n, seen) => {
    const p = seen.url.replace(/^\/api\/public\/v1/, "").replace(/\?.*$/, "");
    return answers[`${seen.method} ${p}`] ?? { status: 404, body: { error: "Not found", details: [{ code: "not_found", message: "Not found" }] } };
  });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(home, { recursive: true, force: true });
});

async function mediagen(args: string[]): Promise<CliResult> {
  const ran = await run(["--target", "hosted", "--base-url", server.url, ...args], { home, env: { MEDIAGEN_API_KEY: KEY } });
  const r: CliResult = { code: ran.exitCode, stdout: ran.stdout, stderr: ran.stderr };
  // Whatever the body, never a crash: no stack, no TypeError text.
  expect(r.stderr).not.toMatch(/\n\s+at |Cannot read properties|TypeError|undefined \(reading/);
  expect(r.stdout).not.toMatch(/undefined|NaN|\[object Object\]/);
  return r;
}

const imageModel = {
  name: "imgA-4",
  label: "Image A",
  type: "image",
  provider: "alpha",
  tags: ["new"],
  base_cost: 0.1,
  has_audio: false,
  required_plans: [],
  capabilities: { max_images: 1, min_images: 0 },
};
const imageModelDetail = {
  ...imageModel,
  restricted_countries: [],
  input_schema: { type: "object", properties: { prompt: { type: "string" }, references: { type: "array" } } },
};
const sparseAsset = { asset_id: "a1", status: "completed", type: "image", cost: 1, created_at: T, url: "https://cdn.example.com/a1.png" };

const escapeRe = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function expectUnexpected(r: CliResult, field: string, problem: string): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe("");
  // A status read names the id it was reading first (`Error: asset a1: unexpected …`).
  expect(r.stderr).toMatch(new RegExp(`Error: (\\S+ \\S+: )?unexpected response from the service: ${escapeRe(`${field} ${problem}`)}`));
}

describe("asset", () => {
  it("models: an image model without durations (and without resolutions) lists with '-'", async () => {
    answers = { "GET /asset/models": { status: 200, body: { models: [imageModel], count: 1 } } };
    const r = await mediagen(["asset", "models"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+TYPE\s+PROVIDER\s+CREDITS\s+AUDIO\s+DURATIONS\s+PLANS\s+TAGS/);
    expect(r.stdout).toMatch(/imgA-4\s+image\s+alpha\s+0\.1\s+no\s+-\s+-\s+new/);
  });

  it("models --json: the body unchanged, extra fields kept", async () => {
    const body = { models: [{ ...imageModel, future_field: { a: 1 } }], count: 1, next: null };
    answers = { "GET /asset/models": { status: 200, body } };
    const r = await mediagen(["asset", "models", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(body);
  });

  it.each([
    ["an empty body", { status: 200, raw: "" }, "body", "is empty"],
    ["a body that is not JSON", { status: 200, raw: "<html>hi</html>" }, "body", "is not JSON"],
    ["an empty object", { status: 200, body: {} }, "models", "is missing"],
    ["models not a list", { status: 200, body: { models: "imgA-4", count: 1 } }, "models", "should be an array, got a string"],
  ])("models: %s is an unexpected response (exit 1)", async (_name, answer, field, problem) => {
    answers = { "GET /asset/models": answer };
    expectUnexpected(await mediagen(["asset", "models"]), field, problem);
  });

  it("model <name>: no durations, aspect ratios, settings, prompt cap or `required`: the lines it can", async () => {
    answers = { "GET /asset/models/imgA-4": { status: 200, body: imageModelDetail } };
    const r = await mediagen(["asset", "model", "imgA-4"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^name\s+imgA-4$/m);
    expect(r.stdout).toMatch(/^references\s+0 to 1$/m);
    expect(r.stdout).toMatch(/^inputs\s+prompt, references$/m);
    expect(r.stdout).toMatch(/^aspect ratios\s+-$/m);
    expect(r.stdout).toMatch(/^durations\s+-$/m);
    expect(r.stdout).not.toMatch(/setting /);
  });

  it("model <name>: a default left out shows the list alone", async () => {
    const body = { ...imageModelDetail, capabilities: { max_images: 1, min_images: 0, supported_aspect_ratios: ["1:1", "16:9"] } };
    answers = { "GET /asset/models/imgA-4": { status: 200, body } };
    const r = await mediagen(["asset", "model", "imgA-4"]);
    expect(r.stdout).toMatch(/^aspect ratios\s+1:1, 16:9$/m);
  });

  it.each([
    ["an empty body", { status: 200, raw: "" }, "body", "is empty"],
    ["no name", { status: 200, body: { ...imageModelDetail, name: undefined } }, "name", "is missing"],
  ])("model <name>: %s is an unexpected response (exit 1)", async (_name, answer, field, problem) => {
    answers = { "GET /asset/models/imgA-4": answer };
    expectUnexpected(await mediagen(["asset", "model", "imgA-4"]), field, problem);
  });

  it("status: an asset without generation_params prints its other fields", async () => {
    answers = { "GET /asset/status/a1": { status: 200, body: sparseAsset } };
    const r = await mediagen(["asset", "status", "a1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^asset\s+a1$/m);
    expect(r.stdout).toMatch(/^url\s+https:\/\/cdn\.example\.com\/a1\.png$/m);
    expect(r.stdout).not.toMatch(/^(model|prompt|size)\s/m);
  });

  it("status: a promptless asset (generation_params without prompt) and a width without height", async () => {
    answers = { "GET /asset/status/a1": { status: 200, body: { ...sparseAsset, width: 100, generation_params: { model: "vidC-upscale" } } } };
    const r = await mediagen(["asset", "status", "a1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^model\s+vidC-upscale$/m);
    expect(r.stdout).not.toMatch(/^(prompt|size)\s/m);
  });

  it.each([
    ["an empty body", { status: 200, raw: "" }, "body", "is empty"],
    ["an empty object", { status: 200, body: {} }, "status", "is missing"],
  ])("status: %s is an unexpected response (exit 1)", async (_name, answer, field, problem) => {
    answers = { "GET /asset/status/a1": answer };
    expectUnexpected(await mediagen(["asset", "status", "a1"]), field, problem);
  });

  it("tolerant reading (issue 34): a model without capabilities or input_schema, settings not a list, a cost as text, a start without costs", async () => {
    answers = { "GET /asset/models": { status: 200, body: { models: [{ ...imageModel, capabilities: undefined }], count: 1 } } };
    const models = await mediagen(["asset", "models", "-q"]);
    expect([models.code, models.stdout.trim()]).toEqual([0, "imgA-4"]);
    answers = { "GET /asset/models/imgA-4": { status: 200, body: { ...imageModelDetail, input_schema: undefined, settings: {} } } };
    const model = await mediagen(["asset", "model", "imgA-4"]);
    expect(model.code, model.stderr).toBe(0);
    expect(model.stderr).toMatch(/Warning: unexpected response from the service \(assetModel\): settings should be an array, got an object \(read as absent\)/);
    answers = { "GET /asset/status/a1": { status: 200, body: { ...sparseAsset, cost: "1" } } };
    const status = await mediagen(["asset", "status", "a1"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toMatch(/cost should be a number, got a string/);
    answers = { "POST /asset/start": { status: 201, body: { asset_ids: ["a1"], status: "generating" } } };
    const start = await mediagen(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "p"]);
    expect([start.code, start.stdout.trim()]).toEqual([0, "a1"]);
  });

  it("status --watch: a sparse completed asset ends the wait", async () => {
    answers = { "GET /asset/status/a1": { status: 200, body: sparseAsset } };
    const r = await mediagen(["asset", "status", "a1", "--watch", "--interval", "100ms"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("a1  completed  https://cdn.example.com/a1.png");
  });

  it("status --watch: an empty body ends the wait with the unexpected response (exit 1)", async () => {
    answers = { "GET /asset/status/a1": { status: 200, raw: "" } };
    const r = await mediagen(["asset", "status", "a1", "--watch", "--interval", "100ms"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("asset a1: status unknown\n");
    expect(r.stderr).toContain("Error: unexpected response from the service: body is empty");
  });

  it("start: a complete answer prints the ids", async () => {
    answers = { "POST /asset/start": { status: 201, body: { asset_ids: ["a1", "a2"], status: "generating", count: 2, cost_per_generation: 1, total_cost: 2 } } };
    const r = await mediagen(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "p", "--count", "2"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("a1\na2\n");
  });

  it.each([
    ["an empty body", { status: 201, raw: "" }, "body", "is empty"],
    ["an empty object", { status: 201, body: {} }, "asset_ids", "is missing"],
  ])("start: %s is an unexpected response (exit 1), sent once", async (_name, answer, field, problem) => {
    answers = { "POST /asset/start": answer };
    const before = server.seen.length;
    expectUnexpected(await mediagen(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "p"]), field, problem);
    expect(server.seen.length - before).toBe(1);
  });

  it("start --json: the error is also one JSON line with the field", async () => {
    answers = { "POST /asset/start": { status: 201, body: {} } };
    const r = await mediagen(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "p", "--json"]);
    expect(r.code).toBe(1);
    const line = r.stderr.split("\n").find((l) => l.startsWith('{"error":'));
    expect(JSON.parse(line!)).toEqual({
      error: { status: 201, code: "unexpected_response", field: "asset_ids", message: "unexpected response from the service: asset_ids is missing" },
    });
  });

  it("price: normalized left out; an empty body is an unexpected response", async () => {
    answers = { "POST /asset/pricing": { status: 200, body: { model: "imgA-4", cost_per_generation: 1, total_cost: 2, currency: "credits", generation_count: 2 } } };
    const ok = await mediagen(["asset", "price", "--model", "imgA-4", "--count", "2"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe("imgA-4: 1 credit per generation × 2 = 2 credits\n");
    answers = { "POST /asset/pricing": { status: 200, raw: "" } };
    expectUnexpected(await mediagen(["asset", "price", "--model", "imgA-4"]), "body", "is empty");
  });
});

describe("avatar, voice, folder", () => {
  const look = {
    id: "l1",
    name: "Office",
    place: "office",
    accessories: [],
    action: "talking",
    emotion: "calm",
    selfie: false,
    format: "vertical",
    thumbnail: "https://cdn.example.com/l1.png",
    preview: null,
    status: "ready",
    model_available: [],
  };

  it("avatar status: pending, without result or error", async () => {
    answers = { "GET /avatar/status": { status: 200, body: { avatar_id: "av1", look_id: "l1", status: "pending" } } };
    const r = await mediagen(["avatar", "status", "av1", "l1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status\s+pending$/m);
    // Fields the body left out are left out of the report, never printed as "undefined".
    expect(r.stdout).not.toMatch(/undefined|null/);
  });

  it("avatar get: a catalog avatar (created_at null) with no looks", async () => {
    const avatar = {
      id: "av1",
      name: "Maya",
      gender: "female",
      age: "30",
      age_range: "adult",
      ethnicity: "x",
      hair_color: "brown",
      thumbnail: "t",
      looks: [],
      created_at: null,
    };
    answers = { "GET /avatar/av1": { status: 200, body: avatar } };
    const r = await mediagen(["avatar", "get", "av1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^created\s+public catalog$/m);
  });

  it("avatar look: a look whose preview and error are null", async () => {
    const detail = {
      ...look,
      avatar_id: "av1",
      avatar_name: "Maya",
      look_name: "Office",
      gender: "female",
      age_range: "adult",
      ethnicity: "x",
      hair_color: "brown",
      error_message: null,
    };
    answers = { "GET /avatar/av1/look/l1": { status: 200, body: detail } };
    const r = await mediagen(["avatar", "look", "av1", "l1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^preview\s+-$/m);
  });

  it.each([
    [["avatar", "status", "av1", "l1"], "GET /avatar/status", "status"],
    [["avatar", "get", "av1"], "GET /avatar/av1", "id"],
    [["avatar", "look", "av1", "l1"], "GET /avatar/av1/look/l1", "id"],
    [["voice", "get", "v1"], "GET /voice/v1", "id"],
    [["folder", "list"], "GET /folder/list", "folders"],
    [["folder", "create", "--name", "x"], "POST /folder/create", "id"],
    [["avatar", "create", "--prompt", "p"], "POST /avatar/create", "avatar_id"],
    [["avatar", "edit", "--avatar", "av1", "--look", "l1", "--prompt", "p"], "POST /avatar/edit", "avatar_id"],
  ])("%j: an empty object names the first missing field; an empty body says so", async (args, route, field) => {
    answers = { [route]: { status: 200, body: {} } };
    expectUnexpected(await mediagen(args), field, "is missing");
    answers = { [route]: { status: 200, raw: "" } };
    expectUnexpected(await mediagen(args), "body", "is empty");
  });

  it.each([
    [["avatar", "list"], "GET /avatar/list"],
    [["voice", "list"], "GET /voice/list"],
    [["voice", "resources"], "GET /resources/voices"],
  ])("%j: an object where a list is due is an unexpected response", async (args, route) => {
    answers = { [route]: { status: 200, body: {} } };
    expectUnexpected(await mediagen(args), "body", "should be an array, got an object");
  });

  it("voice list: an empty list is 'No voices match.'", async () => {
    answers = { "GET /voice/list": { status: 200, body: [] } };
    const r = await mediagen(["voice", "list"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
  });
});
