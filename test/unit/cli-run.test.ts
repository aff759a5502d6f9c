/**
 * runCli's injection points: the environment (never process.env), the engine, the clock and
 * Ctrl-C as an AbortSignal. The commands themselves are tested in test/cli.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BaseEngine } from "../../src/engine/engine.js";
import type { OpName } from "../../src/features/operations.js";
import { runInProcess, startInProcess } from "../helpers/cli.js";

const home = () => fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));

/** An engine that records calls; asset status always answers `processing`. */
class FakeEngine extends BaseEngine {
  readonly target = "hosted" as const;
  calls: string[] = [];
  closed = false;
  async call(op: OpName, input: unknown): Promise<never> {
    this.calls.push(op);
    if (op === "folderList")
      return { folders: [{ id: "f".repeat(24), name: "Fake", type: "assets", parent_folder_id: null, created_at: new Date(0).toISOString() }] } as never;
    if (op === "assetStatus") {
      const { assetId } = input as { assetId: string };
      return {
        asset_id: assetId,
        status: "processing",
        type: "image",
        cost: 1,
        generation_params: { model: "m", prompt: "p" },
        created_at: new Date(0).toISOString(),
      } as never;
    }
    throw new Error(`unexpected ${op}`);
  }
  override async close(): Promise<void> {
    this.closed = true;
  }
}

describe("runCli", () => {
  it("reads the injected environment, never process.env", async () => {
    const saved = process.env.MEDIAGEN_TARGET;
    process.env.MEDIAGEN_TARGET = "cloud";
    try {
      const r = await runInProcess(["config", "list", "--json"], { home: home(), env: { MEDIAGEN_TARGET: "hosted" } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.json()).toEqual(expect.arrayContaining([{ key: "target", value: "hosted", source: "env" }]));
      const none = await runInProcess(["config", "list", "--json"], { home: home() });
      expect(none.json()).toEqual(expect.arrayContaining([{ key: "target", value: "local", source: "default" }]));
    } finally {
      if (saved === undefined) delete process.env.MEDIAGEN_TARGET;
      else process.env.MEDIAGEN_TARGET = saved;
    }
  });

  it("uses an injected engine for every command, and leaves closing it to its owner", async () => {
    const engine = new FakeEngine();
    const r = await runInProcess(["folder", "list", "--json"], { home: home(), engine: async () => engine });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ folders: [{ name: "Fake" }] });
    expect(engine.calls).toEqual(["folderList"]);
    expect(engine.closed).toBe(false);
  });

  it("waits on the injected clock: a 10-minute timeout passes without real time", async () => {
    let now = 1_700_000_000_000;
    const clock = {
      now: () => now,
      // Time moves once the work already under way (the poll) has had its turn, unless the sleep was
      // called off (the bound on a poll that answered).
      sleep: async (ms: number, signal: AbortSignal) => {
        await new Promise((r) => setImmediate(r));
        if (!signal.aborted) now += ms;
      },
    };
    const engine = new FakeEngine();
    const t0 = Date.now();
    const r = await runInProcess(["asset", "status", "a1", "--watch", "--timeout", "10m", "--json"], { home: home(), engine: async () => engine, clock });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.errorLine()!.message).toMatch(/^Timed out after 10m/);
    // Polled on the hosted schedule (every 2 s, then 5 s) in fake time, not given up at the first poll.
    expect(engine.calls.length, r.stderr).toBeGreaterThan(100);
    expect(r.json()).toMatchObject({ asset_id: "a1", status: "processing" });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it("Ctrl-C is the injected AbortSignal: exit 130 with the resume command", async () => {
    const engine = new FakeEngine();
    const run = startInProcess(["asset", "status", "a2", "--watch", "--json"], { home: home(), engine: async () => engine });
    while (!engine.calls.includes("assetStatus")) await new Promise((r) => setTimeout(r, 10));
    run.interrupt();
    const r = await run.result;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.json()).toMatchObject({ asset_id: "a2", status: "processing" });
    expect(r.errorLine()!.message).toContain("Resume with: mediagen asset status a2 --watch");
  });

  it("a coloured run leaves no colour behind for the next one", async () => {
    const coloured = await runInProcess(["help", "exit-codes"], { home: home(), env: { FORCE_COLOR: "1" } });
    expect(coloured.stdout).toContain("\u001b[");
    const plain = await runInProcess(["help", "exit-codes"], { home: home() });
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain("\u001b[");
  });
});
