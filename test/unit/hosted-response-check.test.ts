/**
 * 2xx bodies are checked against the operation's response schema: a sparse, empty or non-JSON body is
 * an UnexpectedResponseError naming the field (exit 1, code unexpected_response), never a crash;
 * extra fields are kept; what the spec leaves optional is accepted.
 */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { checkResponse, formatPath, readResponse, responseProblems, UnexpectedResponseError } from "../../src/hosted/response-check.js";
import { HostedEngine } from "../../src/hosted/hosted-engine.js";
import { Asset, ModelDetail, ModelListResponse } from "../../src/features/asset/contract.js";
import { describeError, renderError } from "../../src/cli/errors.js";
import { BODIES, fakeServer, type FakeServer, type Script } from "./hosted-fakes.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function engineAnswering(script: Script): Promise<{ engine: HostedEngine; server: FakeServer }> {
  const server = await fakeServer(script);
  const engine = new HostedEngine({ baseUrl: server.url, apiKey: "k", env: {}, sleep: async () => undefined, random: () => 0 });
  open.push(server, engine);
  return { engine, server };
}

async function rejection(p: Promise<unknown>): Promise<UnexpectedResponseError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UnexpectedResponseError);
  return e as UnexpectedResponseError;
}

const Thing = z.looseObject({
  id: z.string(),
  status: z.enum(["pending", "done"]),
  kind: z.literal("thing"),
  n: z.number().optional(),
  items: z.array(z.looseObject({ name: z.string() })).optional(),
  either: z.union([z.string(), z.number()]).optional(),
});

describe("responseProblems", () => {
  it.each([
    [[], "body"],
    [["models", 0, "capabilities"], "models[0].capabilities"],
    [[2, "id"], "[2].id"],
  ])("formats path %j as %s", (path, text) => {
    expect(formatPath(path)).toBe(text);
  });

  it.each([
    ["a missing field", { status: "done", kind: "thing" }, "id is missing"],
    ["a wrong type", { id: 5, status: "done", kind: "thing" }, "id should be a string, got a number"],
    ["an enum value outside the contract", { id: "x", status: "gone", kind: "thing" }, 'status should be one of "pending", "done", got "gone"'],
    ["a literal", { id: "x", status: "done", kind: "other" }, 'kind should be "thing", got "other"'],
    ["a nested field", { id: "x", status: "done", kind: "thing", items: [{ name: "a" }, {}] }, "items[1].name is missing"],
    ["a union", { id: "x", status: "done", kind: "thing", either: true }, "either has an unexpected shape (a boolean)"],
    ["an array for an object", [], "body should be an object, got an array"],
    ["null", null, "body should be an object, got null"],
  ])("describes %s", (_name, body, text) => {
    const [first] = responseProblems(Thing, body);
    expect(first && `${first.path} ${first.problem}`).toBe(text);
  });

  it("tolerates unknown enum and literal strings when asked, but not other types", () => {
    expect(responseProblems(Thing, { id: "x", status: "processing", kind: "new" }, { tolerateUnknownValues: true })).toEqual([]);
    expect(responseProblems(Thing, { id: "x", status: 3, kind: "thing" }, { tolerateUnknownValues: true })).not.toEqual([]);
  });

  it("returns the body itself, extra fields kept", () => {
    const body = { id: "x", status: "done", kind: "thing", extra: { deep: [1] } };
    expect(checkResponse(Thing, body)).toBe(body);
  });

  it("throws the first problem as 'unexpected response from the service: <path> <problem>'", () => {
    expect(() => checkResponse(Thing, {}, { op: "thingGet", status: 200 })).toThrow("unexpected response from the service: id is missing");
  });
});

describe("optional fields follow the spec and hosted facts", () => {
  const imageModel = {
    name: "imgA-4",
    label: "Image A",
    type: "image",
    provider: "alpha",
    tags: [],
    base_cost: 0.1,
    has_audio: false,
    required_plans: [],
    capabilities: { max_images: 1, min_images: 0 },
    restricted_countries: [],
    input_schema: { type: "object", properties: { prompt: { type: "string" } } },
  };

  it("an image model without durations, aspect ratios, resolution, settings, prompt cap or `required`", () => {
    expect(responseProblems(ModelDetail, imageModel)).toEqual([]);
    expect(responseProblems(ModelListResponse, { models: [imageModel], count: 1 })).toEqual([]);
  });

  it("a model needs only its name (issue 34): capabilities and input_schema may be absent", () => {
    const { capabilities: _c, ...noCaps } = imageModel;
    expect(responseProblems(ModelListResponse, { models: [noCaps], count: 1 })).toEqual([]);
    const { input_schema: _s, ...noSchema } = imageModel;
    expect(responseProblems(ModelDetail, noSchema)).toEqual([]);
    const { name: _n, ...noName } = imageModel;
    expect(responseProblems(ModelDetail, noName)[0]).toEqual({ path: "name", problem: "is missing" });
  });

  it("an asset without generation_params (promised while generating only), or a promptless one", () => {
    expect(responseProblems(Asset, BODIES.asset)).toEqual([]);
    expect(responseProblems(Asset, { ...BODIES.asset, generation_params: { model: "vidC-upscale" } })).toEqual([]);
  });

  it("an asset needs only its status (issue 34): null is absent, cost and created_at may be missing", () => {
    expect(responseProblems(Asset, { status: "generating", url: null, thumbnail_url: null })).toEqual([]);
    const { status: _st, ...noStatus } = BODIES.asset;
    expect(responseProblems(Asset, noStatus)[0]).toEqual({ path: "status", problem: "is missing" });
  });
});

describe("readResponse", () => {
  it("an odd optional field is a warning; the copy read has it absent; the body is untouched", () => {
    const body = { ...BODIES.asset, cost: "free" };
    const r = readResponse<Record<string, unknown>>(Asset, body);
    expect(r.warnings).toEqual([{ path: "cost", problem: "should be a number, got a string (read as absent)" }]);
    expect(r.value).not.toHaveProperty("cost");
    expect(body.cost).toBe("free");
  });

  it("an entry of a listing without its needed field is left out, the others kept", () => {
    const body = { models: [{ name: "a" }, { label: "no name" }, { name: "c" }], count: 3 };
    const r = readResponse<{ models: { name: string }[] }>(ModelListResponse, body);
    expect(r.value.models.map((m) => m.name)).toEqual(["a", "c"]);
    expect(r.warnings[0]!.problem).toBe("is missing (entry models[1] left out)");
    expect(body.models).toHaveLength(3);
  });

  it("a needed field that is wrong still throws", () => {
    expect(() => readResponse(Asset, { status: 5 })).toThrow("unexpected response from the service: status should be");
  });
});

describe("HostedEngine checks every 2xx body", () => {
  it("an empty 2xx body: 'body is empty', and a POST is not repeated", async () => {
    const { engine, server } = await engineAnswering(() => ({ status: 201, raw: "" }));
    const e = await rejection(engine.folderCreate({ name: "x" }));
    expect(e.message).toBe("unexpected response from the service: body is empty");
    expect(server.seen).toHaveLength(1);
  });

  it("a 2xx body that is not JSON: 'body is not JSON'", async () => {
    const { engine } = await engineAnswering(() => ({ status: 200, raw: "<html>ok</html>" }));
    expect((await rejection(engine.assetModels())).message).toBe("unexpected response from the service: body is not JSON");
  });

  it("a sparse body names the field", async () => {
    const { engine } = await engineAnswering(() => ({ status: 201, body: { status: "generating", count: 1 } }));
    const e = await rejection(engine.assetStart({ type: "image", model: "m", prompt: "p" }));
    expect(e).toMatchObject({ path: "asset_ids", problem: "is missing", op: "assetStart", status: 201, code: "unexpected_response" });
  });

  it("a body of the wrong kind (object for a list)", async () => {
    const { engine } = await engineAnswering(() => ({ status: 200, body: {} }));
    expect((await rejection(engine.voiceList())).message).toBe("unexpected response from the service: body should be an array, got an object");
  });

  it("keeps extra fields and accepts a status the contract does not list", async () => {
    const body = { ...BODIES.asset, status: "processing", brand_new: { x: 1 } };
    const { engine } = await engineAnswering(() => ({ status: 200, body }));
    expect(await engine.assetStatus({ assetId: "a1" })).toEqual(body);
  });
});

describe("the CLI reports it", () => {
  const err = new UnexpectedResponseError("models[0].capabilities", "is missing", "assetModels", 200, { models: [{}] });

  it("exit 1, code unexpected_response, the path as field, the HTTP status it came with", () => {
    expect(describeError(err)).toEqual({
      exitCode: 1,
      status: 200,
      code: "unexpected_response",
      field: "models[0].capabilities",
      message: "unexpected response from the service: models[0].capabilities is missing",
    });
  });

  it("one line on stderr (plus the JSON line with --json), no stack even with --debug", () => {
    const stderr = new PassThrough();
    let text = "";
    stderr.on("data", (c: Buffer) => (text += c.toString()));
    renderError(err, { stderr, quiet: false }, { json: true, debug: true });
    const lines = text.trim().split("\n");
    expect(lines[0]).toBe("Error: unexpected response from the service: models[0].capabilities is missing");
    expect(JSON.parse(lines[1]!)).toEqual({
      error: { status: 200, code: "unexpected_response", field: "models[0].capabilities", message: err.message },
    });
    expect(lines[2]).toBe('[debug] body: {"models":[{}]}');
    expect(text).not.toMatch(/\n\s+at /);
  });
});
