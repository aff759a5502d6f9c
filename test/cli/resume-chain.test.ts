/**
 * Ctrl-C while `generate --watch --export --download x.mp4` waits for the video (issue 38): the
 * resume command finishes the whole chain (the same flags on `generation status`), not the wait
 * alone; it is a notice, not an `Error:`. Run as printed, it waits, exports and saves the MP4; run
 * again, it follows the export already started instead of paying for another.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BaseEngine } from "../../src/engine/engine.js";
import type { OpName } from "../../src/features/operations.js";
import { newHome, run, startInProcess } from "./helpers.js";

/** A generation that stays `generating`. */
class SlowEngine extends BaseEngine {
  readonly target = "hosted" as const;
  calls: string[] = [];
  async call(op: OpName): Promise<never> {
    this.calls.push(op);
    if (op === "generationStart") return { job_id: "run_0123456789abcdef01234567", status: "pending", estimated_credits: 30 } as never;
    if (op === "generationStatus") return { job_id: "run_0123456789abcdef01234567", status: "generating", current_step: "VOICE", progress_step: 1 } as never;
    throw new Error(`unexpected ${op}`);
  }
}

describe("the resume command of an interrupted generate --export chain", () => {
  it("names the whole chain: generation status <job> --watch --export --download <file>", async () => {
    const engine = new SlowEngine();
    const p = startInProcess(["generate", "--prompt", "cats", "--duration", "10", "--watch", "--export", "--download", "my clip.mp4"], {
      home: newHome(),
      engine: async () => engine,
    });
    while (!engine.calls.includes("generationStatus")) await new Promise((r) => setTimeout(r, 10));
    p.interrupt();
    const r = await p.result;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toContain("Resume with: mediagen generation status run_0123456789abcdef01234567 --watch --export --download 'my clip.mp4'");
    // A deliberate stop is a notice.
    expect(r.stderr).not.toContain("Error:");
  });

  it("run as printed on the local instance: waits, exports and saves the MP4; again, follows the same export", async () => {
    const home = newHome();
    const started = await run(["generate", "--prompt", "a cat on a sofa", "--duration", "10", "--json"], { home });
    expect(started.exitCode, started.stderr).toBe(0);
    const job = started.json<{ job_id: string }>().job_id;
    const out = path.join(home, "cat.mp4");
    const r = await run(["generation", "status", job, "--watch", "--export", "--download", out, "--json"], { home, timeoutMs: 90_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(fs.statSync(out).size).toBeGreaterThan(1000);
    const exports = async () => (await run(["history", "--json"], { home })).json<{ kind: string; id: string }[]>().filter((j) => j.kind === "export");
    expect(await exports()).toHaveLength(1);
    const again = await run(["generation", "status", job, "--watch", "--export", "--download", out, "--force", "--json"], { home, timeoutMs: 90_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await exports()).toHaveLength(1);
  }, 120_000);

  it("--avatar-model and --force without --export/--download are usage errors", async () => {
    const r = await run(["generation", "status", "run_x", "--force"], { home: newHome() });
    expect(r.exitCode).toBe(2);
  });
});
