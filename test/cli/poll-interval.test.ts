/**
 * MEDIAGEN_POLL_INTERVAL: the default of --interval for every wait (watch modes, `download --watch`,
 * batch). Against a fake hosted service (127.0.0.1, port 0) and an injected clock that records how
 * long each wait between polls was, so no test sleeps for the spec's schedule.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runInProcess as run } from "../helpers/cli.js";
import { fakeServer, type FakeServer } from "../unit/hosted-fakes.js";
import type { Clock } from "../../src/cli/runtime.js";

const KEY = "mg_live_" + "5a".repeat(32);
const T = "2025-01-01T12:00:00Z";
const pending = { asset_id: "a1", status: "generating", type: "image", cost: 1, created_at: T };
const done = { ...pending, status: "completed", url: "https://cdn.example.com/a1.png" };

let server: FakeServer;
let home: string;
/** Status reads answered so far: the third one is completed. */
let reads = 0;

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  server = await fakeServer((_n, seen) => {
    if (seen.url.includes("/asset/status/a1")) return { status: 200, body: ++reads >= 3 ? done : pending };
    return { status: 404, body: { error: "Not found" } };
  });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(home, { recursive: true, force: true });
});
beforeEach(() => {
  reads = 0;
  server.seen.length = 0;
});

/**
 * A clock whose pauses between polls return at once and are recorded (time moves by what was
 * slept). The wait's deadline timers (a minute and more) never fire: they end when their wait does.
 */
function recordingClock(): Clock & { slept: number[] } {
  let t = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms, signal) => {
      if (ms >= 60_000) return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      slept.push(ms);
      t += ms;
    },
  };
}

async function watch(extra: string[], env: Record<string, string | undefined>) {
  const clock = recordingClock();
  const r = await run(["--target", "hosted", "--base-url", server.url, "asset", "status", "a1", "--watch", ...extra], {
    home,
    clock,
    env: { MEDIAGEN_API_KEY: KEY, MEDIAGEN_POLL_INTERVAL: undefined, ...env },
  });
  return { ...r, slept: clock.slept };
}

describe("MEDIAGEN_POLL_INTERVAL", () => {
  it("unset: the spec's schedule for assets (2 s between polls)", async () => {
    const r = await watch([], {});
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.slept).toEqual([2000, 2000]);
  });

  it("set: every wait between polls is that long", async () => {
    const r = await watch([], { MEDIAGEN_POLL_INTERVAL: "250ms" });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("a1  completed");
    expect(r.slept).toEqual([250, 250]);
  });

  it("--interval beats it", async () => {
    const r = await watch(["--interval", "400ms"], { MEDIAGEN_POLL_INTERVAL: "250ms" });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.slept).toEqual([400, 400]);
  });

  it.each([["50ms"], ["0"], ["soon"]])("%s: a usage error (exit 2) naming the variable, before any request", async (value) => {
    const r = await watch(["--json"], { MEDIAGEN_POLL_INTERVAL: value });
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()).toMatchObject({ code: "invalid_value", field: "MEDIAGEN_POLL_INTERVAL" });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.seen).toHaveLength(0);
  });
});
