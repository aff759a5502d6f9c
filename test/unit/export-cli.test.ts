/**
 * The export command's pieces: what the wait shows for each status (step, percent, a bar on a
 * terminal), what --download means (a .mp4 path is the file, anything else a directory), and the
 * request its flags make.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { downloadTarget, EXPORT_FLAGS, exportLines, exportText, progressBar } from "../../src/features/export/client/cli.js";
import type { ExportJob } from "../../src/features/export/contract.js";

const job = (over: Partial<ExportJob>): ExportJob => ({ job_id: "exp_1", status: "processing", progress: 0, current_step: "render-audio", ...over });

describe("what the wait shows", () => {
  it("the step and percent while it runs, a bar only for a terminal", () => {
    expect(exportText(job({ status: "pending" }))).toBe("pending (queued)");
    expect(exportText(job({ current_step: "render", progress: 42 }))).toBe("render 42%");
    expect(exportText(job({ current_step: "render", progress: 42 }), true)).toBe(`render 42% [${"█".repeat(10)}${"░".repeat(14)}]`);
    expect(exportText(job({ status: "completed", progress: 100, current_step: "render" }))).toBe("completed");
    expect(exportText(job({ status: "failed", error: { code: "ENCODING_FAILED", message: "ffmpeg exited with code 1" } }))).toBe(
      "failed (ENCODING_FAILED: ffmpeg exited with code 1)",
    );
  });

  it("the bar is full at 100 and empty at 0, whatever it is given", () => {
    expect(progressBar(0, 4)).toBe("[░░░░]");
    expect(progressBar(100, 4)).toBe("[████]");
    expect(progressBar(250, 4)).toBe("[████]");
    expect(progressBar(-5, 4)).toBe("[░░░░]");
  });

  it("human lines: the result's links and cost when completed, the error when failed", () => {
    const done = exportLines(
      job({
        status: "completed",
        progress: 100,
        current_step: "render",
        result: { video_url: "file:///v.mp4", thumbnail_url: "file:///t.jpg", cost: 2.5, created_at: "2026-01-01T00:00:00Z" },
      }),
    );
    expect(done.join("\n")).toMatch(/video\s+file:\/\/\/v\.mp4/);
    expect(done.join("\n")).toMatch(/cost\s+2\.5 credits/);
    expect(done.join("\n")).not.toMatch(/step/);
    expect(exportLines(job({ status: "failed", error: { code: "EXPORT_FAILED", message: "x" } })).join("\n")).toMatch(/error\s+EXPORT_FAILED: x/);
  });
});

describe("--download", () => {
  it("a path ending in .mp4 is the file; anything else is a directory (the file is then <job_id>.mp4)", () => {
    expect(downloadTarget("hello.mp4")).toEqual({ dir: process.cwd(), name: "hello.mp4" });
    expect(downloadTarget("out/Clip.MP4")).toEqual({ dir: path.resolve("out"), name: "Clip.MP4" });
    expect(downloadTarget("out")).toEqual({ dir: path.resolve("out") });
    expect(downloadTarget("out/")).toEqual({ dir: path.resolve("out") });
    expect(() => downloadTarget(" ")).toThrow(/--download/);
  });
});

describe("the request", () => {
  it("each flag fills its field, over a --body", () => {
    const v = EXPORT_FLAGS.values({ format: "custom", width: "720", height: "720", avatarModel: "premium", webhook: "https://example.com/h" });
    expect(EXPORT_FLAGS.request(v, { video_id: "v", format: "square" })).toEqual({
      video_id: "v",
      format: "custom",
      width: 720,
      height: 720,
      avatar_model: "premium",
      webhook_url: "https://example.com/h",
    });
    expect(() => EXPORT_FLAGS.values({ width: "7.5" })).toThrow(/--width: expected a whole number/);
    expect(() => EXPORT_FLAGS.values({ format: "cinema" })).toThrow(/--format: expected one of/);
    expect(() => EXPORT_FLAGS.values({ simulate: "boom" })).toThrow(/--simulate/);
  });
});
