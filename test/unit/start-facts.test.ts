/**
 * What a start made, read through its operation's life (src/features/start-facts.ts): the one
 * reading the batch runner applies to an answer it received and the local instance to a start it
 * kept. Every start a batch line makes says the job kind it makes, so the runner follows it by its life.
 */
import { describe, expect, it } from "vitest";
import { isJobKind, jobLife, lifeOf, lifeOps, startedBy } from "../../src/features/lives.js";
import { startFacts } from "../../src/features/start-facts.js";

const byLine = (kind: string) => `${kind}-3`;

describe("startFacts", () => {
  it("every start a batch line makes names the job kind its answer names", () => {
    const samples: Record<string, [Record<string, unknown>, Record<string, unknown>]> = {
      assetStart: [{ model: "m" }, { asset_ids: ["a1"], total_cost: 1 }],
      avatarCreate: [{ prompt: "p" }, { look_id: "lk_1", avatar_id: "av_1" }],
      avatarEdit: [
        { avatar_id: "av_1", look_id: "lk_0" },
        { look_id: "lk_1", avatar_id: "av_1" },
      ],
      generationStart: [{ script: "s" }, { job_id: "run_1", estimated_credits: 5 }],
      exportStart: [{ video_id: "v" }, { job_id: "exp_1", estimated_credits: 0 }],
      videoDuplicate: [{ video_id: "v" }, { video_id: "v2" }],
      scriptGenerate: [{ prompt: "p" }, { script: "Hello", cost: 0.1 }],
    };
    const batched = lifeOps().filter((op) => lifeOf(op).batch);
    expect(new Set(batched)).toEqual(new Set(Object.keys(samples)));
    for (const op of batched) {
      const makes = lifeOf(op).makes;
      expect(isJobKind(makes), op).toBe(true);
      const [input, res] = samples[op]!;
      expect(
        startedBy(op, input, res).map((r) => r.kind),
        op,
      ).toEqual([makes]);
    }
  });

  it("reads ids, what was debited (or the jobs' own costs), a look's avatar, a video a job is, and a script's text", () => {
    expect(startFacts("assetStart", { model: "m" }, { asset_ids: ["a1", "a2"], cost_per_generation: 2, total_cost: 4 }, byLine)).toEqual({ ids: ["a1", "a2"], cost: 4 });
    // A look's answer says no cost: its jobs' own (the price of a 4K look) stand for it.
    expect(startFacts("avatarCreate", { prompt: "p", resolution: "4K" }, { look_id: "lk_1", avatar_id: "av_1" }, byLine)).toEqual({
      ids: ["lk_1"],
      cost: 4,
      look_id: "lk_1",
      avatar_id: "av_1",
    });
    // A duplicate is the video; an export names the video it exports, which is not it.
    expect(startFacts("videoDuplicate", { video_id: "v" }, { video_id: "v2" }, byLine)).toEqual({ ids: ["v2"], cost: 0, video_id: "v2" });
    expect(startFacts("exportStart", { video_id: "v" }, { job_id: "exp_1", estimated_credits: 0 }, byLine)).toEqual({ ids: ["exp_1"], cost: 0 });
    // The service names no script: the caller's id for it, the same at every reading.
    expect(jobLife("script").idMadeUp).toBe(true);
    expect(startFacts("scriptGenerate", { prompt: "p" }, { script: "Hello", cost: 0.1 }, byLine)).toEqual({ ids: ["script-3"], cost: 0.1, script: "Hello" });
    // An answer that names nothing made nothing.
    expect(startFacts("generationStart", {}, { status: "pending" }, byLine)).toEqual({ ids: [], cost: null });
  });
});
