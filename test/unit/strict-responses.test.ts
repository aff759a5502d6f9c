/**
 * The strict schemas the tests read the emulator's answers with (test/helpers/strict-responses.ts)
 * catch drift the product's tolerant schemas let through (issue 34): a field the spec gives that is
 * missing, of the wrong type, null where the spec gives a value, an unknown enum value, a field the
 * spec gives only in another state, a field the spec does not give. Each problem names its field.
 */
import { describe, expect, it } from "vitest";
import { operations } from "../../src/features/operations.js";
import { ROUTES } from "../../src/features/routes.js";
import { responseProblems } from "../../src/hosted/response-check.js";
import { expectStrict, STRICT_RESPONSES, strictProblems } from "../helpers/strict-responses.js";

const T = "2026-01-02T03:04:05.000Z";
const folder = { id: "6653b8e1f2a4c5d6e7f80aaa", name: "x", type: "assets", parent_folder_id: null, created_at: T };
const generatingAsset = {
  asset_id: "as_1",
  status: "generating",
  type: "image",
  cost: 0.1,
  created_at: T,
  generation_params: { model: "imgA-4-fast", prompt: "a red square", aspect_ratio: "1:1", resolution: "1K" },
};
const completedVideo = {
  asset_id: "as_2",
  status: "completed",
  type: "video",
  url: "http://127.0.0.1:1/media/a.mp4",
  thumbnail_url: "http://127.0.0.1:1/media/a.jpg",
  width: 1080,
  height: 1920,
  duration_seconds: 8,
  cost: 32,
  created_at: T,
  generation_params: { model: "vidA-3", prompt: "p", aspect_ratio: "9:16", resolution: "720p", duration: 8, references: [{ asset_id: "as_1" }] },
};
const exportDone = {
  job_id: "ex_1",
  status: "completed",
  progress: 100,
  current_step: "render",
  result: { video_url: "http://127.0.0.1:1/media/v.mp4", thumbnail_url: "http://127.0.0.1:1/media/v.jpg", cost: 0, created_at: T },
};

/** The problems as `path problem` lines. */
const lines = (op: Parameters<typeof strictProblems>[0], body: unknown) => strictProblems(op, body).map((p) => `${p.path} ${p.problem}`);

describe("strict response schemas", () => {
  it("have one schema per operation", () => {
    expect(Object.keys(STRICT_RESPONSES).sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it("pass the spec's full records", () => {
    expect(lines("folderCreate", folder)).toEqual([]);
    expect(lines("assetStatus", generatingAsset)).toEqual([]);
    expect(lines("assetStatus", completedVideo)).toEqual([]);
    expect(lines("exportStatus", exportDone)).toEqual([]);
  });

  it("name a field the spec gives that is missing, where the tolerant schema lets it pass", () => {
    const { created_at: _, ...noCreated } = folder;
    expect(responseProblems(operations.folderCreate.response, noCreated)).toEqual([]);
    expect(lines("folderCreate", noCreated)).toEqual(["created_at is missing"]);
    expect(() => expectStrict("folderCreate", noCreated)).toThrow(/folderCreate answered a body the spec's record refuses: created_at is missing/);
  });

  it("name a wrong type, a null where the spec gives a value, a timestamp that is not ISO 8601", () => {
    expect(responseProblems(operations.assetStatus.response, { ...generatingAsset, cost: "0.1" }, { tolerateUnknownValues: true })).not.toEqual([]);
    expect(lines("assetStatus", { ...generatingAsset, cost: "0.1" })).toEqual(["cost should be a number, got a string"]);
    expect(responseProblems(operations.assetStatus.response, { ...generatingAsset, cost: null })).toEqual([]);
    expect(lines("assetStatus", { ...generatingAsset, cost: null })).toEqual(["cost should be a number, got null"]);
    expect(lines("folderCreate", { ...folder, created_at: "yesterday" })).toEqual(["created_at should be an ISO 8601 timestamp"]);
  });

  it("name an unknown enum value, where the hosted client tolerates it", () => {
    const body = { ...generatingAsset, type: "picture" };
    expect(responseProblems(operations.assetStatus.response, body, { tolerateUnknownValues: true })).toEqual([]);
    expect(lines("assetStatus", body)).toEqual(['type should be one of "image", "video", "audio", got "picture"']);
    expect(lines("exportStatus", { ...exportDone, current_step: "encode" })).toEqual(['current_step should be one of "render-audio", "avatar", "render", got "encode"']);
  });

  it("check by state: url only when completed, error only when failed, result only on completion", () => {
    expect(lines("assetStatus", { ...completedVideo, url: undefined })).toEqual(["url is missing (the spec gives it when status is completed)"]);
    expect(lines("assetStatus", { ...generatingAsset, url: "http://127.0.0.1:1/media/a.png" })).toEqual(["url should be absent when status is generating"]);
    expect(lines("assetStatus", { ...generatingAsset, status: "failed" })).toEqual(["error is missing (the spec gives it when status is failed)"]);
    expect(lines("assetStatus", { ...generatingAsset, thumbnail_url: "http://127.0.0.1:1/t.jpg" })).toEqual(["thumbnail_url should be absent when type is image"]);
    const { duration: _d, ...noDuration } = completedVideo.generation_params;
    expect(lines("assetStatus", { ...completedVideo, generation_params: noDuration })).toEqual([
      "generation_params.duration is missing (a video's generation has a duration)",
    ]);
    expect(lines("exportStatus", { ...exportDone, status: "processing" })).toEqual(["result should be absent when status is processing"]);
    expect(lines("exportStatus", { ...exportDone, result: undefined })).toEqual(["result is missing (the spec gives it when status is completed)"]);
    expect(lines("generationStatus", { job_id: "run_1", status: "completed", progress_step: 100, current_step: "ASSEMBLY" })).toEqual([
      "result is missing (the spec gives it when status is completed)",
      "current_step should be null once completed",
    ]);
  });

  it("report a field the spec does not give, and a reference with two keys", () => {
    expect(lines("folderCreate", { ...folder, owner: "me" })).toEqual(['body has a field the spec does not give: "owner"']);
    const twoKeys = { ...completedVideo, generation_params: { ...completedVideo.generation_params, references: [{ asset_id: "as_1", url: "http://x/a.png" }] } };
    expect(lines("assetStatus", twoKeys)).toEqual(["generation_params.references[0] should have exactly one of url, asset_id, avatar_id"]);
  });

  it("check the sums the spec gives (total = per generation × count)", () => {
    const started = { asset_ids: ["as_1", "as_2"], status: "generating", count: 2, cost_per_generation: 0.5, total_cost: 1.5 };
    expect(lines("assetStart", started)).toEqual(["total_cost should be cost_per_generation × count (0.5 × 2), got 1.5"]);
    expect(lines("assetStart", { ...started, total_cost: 1 })).toEqual([]);
  });
});
