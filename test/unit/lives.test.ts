/**
 * The table of operation lives (src/features/lives.ts) covers the operation table and the feature
 * list, and each life is consistent: a start is priced, names jobs of known kinds; a job kind's
 * status is a read of the table that says it is that kind's status; the id shapes tell kinds apart.
 */
import { describe, expect, it } from "vitest";
import { FEATURE_LIST, ROUTES } from "../../src/features/routes.js";
import { FEATURE_LIVES, isRead, jobKinds, jobLife, kindsByShape, lifeOf, lifeOps, startedBy } from "../../src/features/lives.js";
import { lifeState } from "../../src/features/life.js";

describe("the table of operation lives", () => {
  it("has one life per operation of the route table, and one slice per feature of the feature list", () => {
    expect(new Set(lifeOps())).toEqual(new Set(Object.keys(ROUTES)));
    expect(Object.keys(FEATURE_LIVES)).toEqual(FEATURE_LIST.map((f) => f.name));
  });

  it("a GET is a read; every start has a price rule and a description; a paid start says what it debits or what it starts", () => {
    for (const op of lifeOps()) {
      const life = lifeOf(op);
      if (ROUTES[op as keyof typeof ROUTES].method === "GET") expect(life.effect, op).toBe("read");
      if (life.effect !== "read") {
        expect(life.price, op).toBeTypeOf("function");
        expect(life.what, op).toBeTypeOf("function");
      }
    }
  });

  it("each job kind with a status names a read whose life says it is that kind's status", () => {
    for (const kind of jobKinds()) {
      const j = jobLife(kind);
      if (!j.status) {
        expect(j.kind === "video" ? j.nextStep?.("v1") : "script").toBeTruthy();
        continue;
      }
      expect(isRead(j.status.op), kind).toBe(true);
      expect(lifeOf(j.status.op).statusOf).toBe(kind);
      expect(j.terminal?.done.length).toBeGreaterThan(0);
    }
  });

  it("an id's shape: prefixes first, 24 hex may be an asset or a video, anything else nothing", () => {
    expect(kindsByShape("run_0123")).toEqual(["generation"]);
    expect(kindsByShape("exp_0123")).toEqual(["export"]);
    expect(kindsByShape("lk_0123")).toEqual(["look"]);
    expect(kindsByShape("65f0c2a1b3e4d5f6a7b8c9d0")).toEqual(["asset", "video"]);
    expect(kindsByShape("what-is-this")).toEqual([]);
  });

  it("a start's answer names its jobs with what the history records", () => {
    expect(
      startedBy("assetStart", { model: "m", prompt: "p" }, { asset_ids: ["a1", "a2"], status: "generating", cost_per_generation: 2, total_cost: 4, count: 2 }),
    ).toEqual([
      { kind: "asset", id: "a1", model: "m", cost: 2, status: "generating", prompt: "p" },
      { kind: "asset", id: "a2", model: "m", cost: 2, status: "generating", prompt: "p" },
    ]);
    expect(startedBy("exportStart", { video_id: "v" }, { job_id: "exp_1", status: "pending", estimated_credits: 0 })).toEqual([
      { kind: "export", id: "exp_1", model: null, cost: 0, status: "pending", video_id: "v" },
    ]);
    expect(startedBy("videoDuplicate", { video_id: "v" }, { video_id: "v2", status: "done" })).toMatchObject([{ kind: "video", id: "v2", source_video_id: "v" }]);
    const [script] = startedBy("scriptGenerate", { prompt: "p" }, { script: "Hello", cost: 0.1, extractedImages: [] });
    expect(script).toMatchObject({ kind: "script", status: "completed", text: "Hello", cost: 0.1 });
    expect(startedBy("folderList", {}, [])).toEqual([]);
  });

  it("terminal states: completed is done, failed is failed, anything else is still going", () => {
    const exp = jobLife("export");
    expect(lifeState(exp, { status: "completed" })).toBe("done");
    expect(lifeState(exp, { status: "failed" })).toBe("failed");
    expect(lifeState(exp, { status: "processing" })).toBe("pending");
    expect(exp.result?.({ status: "completed", result: { video_url: "http://x/v.mp4" } })).toMatchObject({ ext: "mp4", type: "video" });
  });

  it("an export without format: free in the video's own standard format, unknown when that format is not known here", async () => {
    const price = lifeOf("exportStart").price!;
    const tools = (format?: { format: string; width?: number; height?: number }) => ({
      target: "local" as const,
      assetPricing: async () => ({ total_cost: 0, generation_count: 1, model: "" }),
      videoFormat: () => format,
    });
    expect((await price({ video_id: "v" }, tools({ format: "horizontal" }))).credits).toBe(0);
    expect((await price({ video_id: "v" }, tools())).credits).toBeNull();
    expect((await price({ video_id: "v" }, tools({ format: "custom", width: 3840, height: 2160 }))).credits).toBeNull();
    expect((await price({ video_id: "v", format: "square" }, tools())).credits).toBe(0);
  });
});

describe("batch lines read the lives", () => {
  it("each kind of batch line starts the operation whose life names it", async () => {
    const { BATCH_KINDS, startOp } = await import("../../src/cli/batch/input.js");
    const ops = BATCH_KINDS.map((kind) => startOp({ kind, body: {} }));
    expect(ops).toEqual(
      BATCH_KINDS.map(
        (k) =>
          ({ asset: "assetStart", avatar: "avatarCreate", generate: "generationStart", export: "exportStart", script: "scriptGenerate", duplicate: "videoDuplicate" })[k],
      ),
    );
    expect(startOp({ kind: "avatar", body: { look_id: "lk_1" } })).toBe("avatarEdit");
    for (const op of ops) expect(lifeOf(op).effect).not.toBe("read");
  });
});
