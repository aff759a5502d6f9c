/**
 * The request contract (issue 21): every operation has one, the spec's codes per endpoint, batch
 * lines judged all at once with a did-you-mean, file-or-text flags, and error messages kept whole.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/features/routes.js";
import { requestContract, requestProblemsOf, refuseRequest } from "../../src/features/request-check.js";
import { parseJsonl, readJsonlBatch } from "../../src/cli/batch/input.js";
import { fileOrText, looksLikePath } from "../../src/cli/text-arg.js";
import { inFlagTerms } from "../../src/cli/errors.js";
import { closest } from "../../src/contract/did-you-mean.js";

describe("request contract", () => {
  it("every operation of the route table has a request schema", async () => {
    for (const op of Object.keys(ROUTES)) expect(await requestContract(op), op).toBeDefined();
  });

  it.each([
    ["assetStart", { model: "m" }, "missing_field", "type"],
    ["assetStart", { type: "image", model: "m", modle: "x" }, "invalid_value", "modle"],
    [
      "assetStart",
      { type: "video", model: "m", elements: [{ name: "a", images: [{ url: "https://x.test/a.png" }, { url: "https://x.test/b.gif" }] }] },
      "invalid_value",
      "elements[0].images",
    ],
    ["assetStart", { type: "image", model: "m", references: [{ url: "https://x.test/a.png", asset_id: "a" }] }, "invalid_value", "references[0]"],
    ["assetModels", { type: "audio" }, "invalid_value", "type"],
    ["generationStart", { prompt: "p", duration: 30, format: "vertical", height: 100 }, "INVALID_FORMAT", "height"],
    ["generationStart", {}, "MISSING_CONTENT", undefined],
    ["avatarCreate", {}, "INVALID_VALUE", "prompt"],
    ["videoDuplicate", { video_id: 3 }, "INVALID_TYPE", "video_id"],
    ["scriptGenerate", { prompt: "p", webSearch: "yes" }, "INVALID_TYPE", "webSearch"],
    ["exportStart", {}, "MISSING_VIDEO_ID", "video_id"],
    ["folderCreate", { name: "x", type: "music" }, "invalid_value", "type"],
  ] as const)("%s %j → %s on %s", async (op, input, code, field) => {
    const r = await refuseRequest(op, input);
    expect(r?.status).toBe(400);
    const detail = (r!.body as { details: { code: string; field?: string; message: string }[] }).details[0]!;
    expect(detail).toMatchObject({ code, ...(field !== undefined ? { field } : {}) });
    expect(detail.field).toBe(field);
    if (field !== undefined) expect(detail.message.startsWith(field.split("[")[0]!)).toBe(true);
  });

  it("avatar edit answers in its {error, code} body; the problem still names the field", async () => {
    const r = await refuseRequest("avatarEdit", { look_id: "l", prompt: "p" });
    expect(r).toEqual({ status: 400, body: { error: "avatar_id is required", code: "MISSING_AVATAR_ID" } });
    const [first] = await requestProblemsOf("avatarEdit", { look_id: "l", prompt: "p" });
    expect(first).toMatchObject({ code: "MISSING_AVATAR_ID", field: "avatar_id" });
  });

  it("says which field a misspelt key meant", async () => {
    const problems = await requestProblemsOf("assetStart", { type: "image", modle: "imgA-4", prompt: "p" });
    expect(problems.map((p) => p.message)).toEqual(["model is required", "modle is not a field of this request (did you mean model?)"]);
    expect(closest("prompts", ["prompt", "model"])).toBe("prompt");
    expect(closest("x", ["type"])).toBeUndefined();
  });

  it("lets valid requests through", async () => {
    expect(await refuseRequest("generationStart", { prompt: "p", duration: 30, format: "custom", width: 800, height: 600 })).toBeUndefined();
    expect(
      await refuseRequest("assetStart", { type: "video", model: "m", prompt: "p", start_image: { url: "https://x.test/a.png" }, end_image: { asset_id: "a" } }),
    ).toBeUndefined();
    expect(await refuseRequest("voiceList", { language: "pt-BR", onlyPublic: "true" })).toBeUndefined();
  });
});

describe("batch lines", () => {
  it("reports every bad line, not just the first", () => {
    const text = ['{"kind":"asset","model":"m"}', "not json", '{"kind":"nope"}', '{"kind":"script"}'].join("\n");
    let err: Error | undefined;
    try {
      parseJsonl(text, "b.jsonl");
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toMatch(/^3 lines are not valid requests/);
    for (const n of [2, 3, 4]) expect(err?.message).toContain(`b.jsonl:${n}:`);
  });

  it("names an unknown key with a did-you-mean, on every line that has one", async () => {
    const text = [
      '{"kind":"asset","type":"image","model":"imgA-4","prompt":"a"}',
      '{"kind":"asset","type":"image","model":"imgA-4","prompt":"b","modle":"x"}',
      '{"kind":"generate","prompt":"c","duration":30,"formt":"square"}',
    ].join("\n");
    const err = (await readJsonlBatch(text, "b.jsonl").catch((e) => e)) as Error & { exitCode: number };
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain("b.jsonl:2: modle is not a field of this request (did you mean model?)");
    // Generation start's body is open (the spec leaves names unshown): an unknown key passes the door.
    expect(err.message).not.toContain("b.jsonl:3");
    expect(err.message).not.toContain("b.jsonl:1");
  });
});

describe("file, - or text flags", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "text-arg-"));
  const file = path.join(dir, "script.txt");
  fs.writeFileSync(file, "Hello from a file.");
  const stdin = async () => "from stdin";

  it("reads -, @file and an existing file; keeps text", async () => {
    expect(await fileOrText("-", "--script", stdin)).toBe("from stdin");
    expect(await fileOrText(`@${file}`, "--script", stdin)).toBe("Hello from a file.");
    expect(await fileOrText(file, "--script", stdin)).toBe("Hello from a file.");
    expect(await fileOrText("Hello there.", "--script", stdin)).toBe("Hello there.");
    expect(await fileOrText("Hi", "--script", stdin)).toBe("Hi");
  });

  it("refuses a value that looks like a path and names no file (exit 2, no such file)", async () => {
    for (const v of ["scrpt.txt", "./notes", `@${path.join(dir, "missing.txt")}`]) {
      const err = (await fileOrText(v, "--script", stdin).catch((e) => e)) as Error & { exitCode: number };
      expect(err.exitCode, v).toBe(2);
      expect(err.message).toMatch(/^--script: no such file/);
    }
    expect(looksLikePath("two words.txt")).toBe(false);
  });
});

describe("errors in a flag's terms", () => {
  it("keeps a sentence about two fields whole", () => {
    const r = inFlagTerms("prompt", "prompt or images is required", { flagFor: () => "--prompt", body: { prompt: "x" } });
    expect(r?.message).toBe("--prompt: prompt or images is required");
  });

  it("drops only the field's own name", () => {
    expect(inFlagTerms("aspect_ratio", "aspect_ratio must be one of 16:9, 9:16", { flagFor: () => "--aspect-ratio", body: { aspect_ratio: "3:3" } })?.message).toBe(
      "--aspect-ratio: must be one of 16:9, 9:16 (got 3:3)",
    );
    expect(inFlagTerms("references[0].url", "references[0].url: file not found", { flagFor: () => "--ref", body: { references: [{ url: "a.png" }] } })?.message).toBe(
      "--ref: file not found: a.png",
    );
  });
});

describe("MCP tools' input JSON Schemas come from the request schemas", () => {
  it("carry the spec's rules: enums, bounds; closed bodies refuse unknown fields, open ones (generation start) pass them", async () => {
    const { inputSchema } = await import("../../src/mcp/tools.js");
    const { operations } = await import("../../src/features/operations.js");
    const gen = inputSchema(operations.generationStart) as unknown as { additionalProperties?: unknown; properties: Record<string, Record<string, unknown>> };
    expect(gen.additionalProperties).not.toBe(false);
    expect(gen.properties.use_space_media).toMatchObject({ type: "boolean" });
    expect(gen.properties.use_library_media).toBeUndefined();
    expect((inputSchema(operations.videoDuplicate) as { additionalProperties?: unknown }).additionalProperties).toBe(false);
    expect(gen.properties.width).toMatchObject({ type: "integer", minimum: 1, maximum: 5000 });
    expect(gen.properties.format).toMatchObject({ enum: ["vertical", "square", "ads", "horizontal", "custom"] });
    expect(gen.properties.music_url).toBeUndefined();
    expect(gen.properties.web_urls).toMatchObject({ maxItems: 10 });
    const start = inputSchema(operations.assetStart) as unknown as { required: string[]; properties: Record<string, Record<string, unknown>> };
    expect(start.required).toEqual(expect.arrayContaining(["type", "model"]));
    expect(start.properties.generation_count).toMatchObject({ minimum: 1, maximum: 4 });
    const exp = inputSchema(operations.exportStart) as unknown as { properties: Record<string, Record<string, unknown>> };
    // Any name: the looks' model_available is the authority, and the service's list grows (issue 34).
    expect(exp.properties.avatar_model).toMatchObject({ type: "string" });
    expect(exp.properties.avatar_model!.enum).toBeUndefined();
    const pricing = inputSchema(operations.assetPricing) as unknown as { additionalProperties?: unknown; properties: Record<string, unknown> };
    expect(pricing.properties.aspect_ratio).toBeUndefined();
    // The service's name for the reference count; the settings object's name is not documented, so the body is open.
    expect(pricing.properties.image_count).toMatchObject({ type: "integer", minimum: 0 });
    expect(pricing.properties.reference_count).toBeUndefined();
    expect(pricing.additionalProperties).not.toBe(false);
  });
});
