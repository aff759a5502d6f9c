import { describe, expect, it } from "vitest";
import { runWait, classifyPollError, type WaitDeps, type WaitReporter } from "../../src/cli/wait.js";
import { lineReporter } from "../../src/cli/wait-report.js";
import { CliError, EXIT, type WaitSpec } from "../../src/cli/types.js";
import { ApiError, NetworkError } from "../../src/engine/errors.js";
import { assetSchedule, localSchedule } from "../../src/contract/poll.js";

type Job = { id: string; status: "pending" | "processing" | "completed" | "failed"; progress?: number };

/** A fake clock whose sleeps advance time at once, and a poller fed from a script of answers. */
function harness(answers: Array<Job | Error>, opts: { target?: "local" | "hosted"; start?: number } = {}) {
  let now = opts.start ?? 1_700_000_000_000;
  const sleeps: number[] = [];
  const polls: number[] = [];
  const events: string[] = [];
  const printed: unknown[] = [];
  let interrupt: (() => void) | undefined;
  let unregistered = false;
  let i = 0;
  const reporter: WaitReporter = {
    update: (state, text) => events.push(`update ${state} ${text}`),
    missed: (reason) => events.push(`missed ${reason}`),
    stop: (outcome) => events.push(`stop ${outcome}`),
  };
  const deps: WaitDeps = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    onInterrupt: (h) => {
      interrupt = h;
      return () => {
        unregistered = true;
      };
    },
    reporter,
    printFinal: (last) => printed.push(last),
    target: opts.target ?? "hosted",
  };
  const spec: WaitSpec<Job> = {
    label: "asset a1",
    poll: async () => {
      polls.push(now);
      const a = answers[Math.min(i++, answers.length - 1)]!;
      if (a instanceof Error) throw a;
      return a;
    },
    state: (j) => (j.status === "completed" ? "done" : j.status === "failed" ? "failed" : "pending"),
    describe: (j) => (j.progress !== undefined ? `${j.status} ${j.progress}%` : j.status),
    schedule: assetSchedule,
    resume: "mediagen asset status a1 --watch",
  };
  return {
    deps,
    spec,
    sleeps,
    polls,
    events,
    printed,
    get now() {
      return now;
    },
    interrupt: () => interrupt?.(),
    get unregistered() {
      return unregistered;
    },
  };
}

const pending = (progress?: number): Job => ({ id: "a1", status: "pending", ...(progress !== undefined ? { progress } : {}) });
const done: Job = { id: "a1", status: "completed" };
const failed: Job = { id: "a1", status: "failed" };

async function exitOf(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof CliError) return { code: e.exitCode, message: e.message };
    throw e;
  }
  throw new Error("expected the wait to fail");
}

describe("runWait", () => {
  it("returns the final object when the job is done, polling on the spec's schedule", async () => {
    const h = harness([pending(), pending(), done]);
    const result = await runWait(h.spec, {}, h.deps);
    expect(result).toEqual(done);
    expect(h.sleeps).toEqual([2000, 2000]);
    expect(h.events).toEqual(["update pending pending", "update done completed", "stop done"]);
    expect(h.unregistered).toBe(true);
  });

  it("polls the local target on the local schedule, and --interval overrides both", async () => {
    const local = harness([pending(), pending(), done], { target: "local" });
    await runWait(local.spec, {}, local.deps);
    expect(local.sleeps).toEqual([localSchedule(0), localSchedule(200)]);

    const fixed = harness([pending(), pending(), done], { target: "local" });
    await runWait(fixed.spec, { intervalMs: 750 }, fixed.deps);
    expect(fixed.sleeps).toEqual([750, 750]);
  });

  it("follows the schedule as time passes (assets: 2 s, then 5 s after 30 s)", async () => {
    const h = harness([...Array.from({ length: 20 }, () => pending()), done]);
    await runWait(h.spec, {}, h.deps);
    const elapsedAtSleep = h.polls.slice(0, -1).map((t) => t - h.polls[0]!);
    expect(h.sleeps).toEqual(elapsedAtSleep.map((e) => assetSchedule(e)));
    expect(h.sleeps).toContain(5000);
  });

  it("reports only state changes", async () => {
    const h = harness([pending(10), pending(10), pending(40), pending(40), done]);
    await runWait(h.spec, {}, h.deps);
    expect(h.events).toEqual(["update pending pending 10%", "update pending pending 40%", "update done completed", "stop done"]);
  });

  it("a failed job exits 7 after printing the final object", async () => {
    const h = harness([pending(), failed]);
    const r = await exitOf(runWait(h.spec, {}, h.deps));
    expect(r.code).toBe(EXIT.jobFailed);
    expect(r.message).toContain("asset a1 failed");
    expect(h.printed).toEqual([failed]);
    expect(h.events.at(-1)).toBe("stop failed");
  });

  it("times out with exit 8, printing the last state and the resume command", async () => {
    const h = harness([pending(50)]);
    const start = h.now;
    const r = await exitOf(runWait(h.spec, { timeoutMs: 9_000 }, h.deps));
    expect(r.code).toBe(EXIT.timeout);
    expect(r.message).toContain("mediagen asset status a1 --watch");
    expect(r.message).toContain("pending 50%");
    expect(h.printed).toEqual([pending(50)]);
    // The last sleep is cut to the deadline and one last poll happens there.
    expect(h.now - start).toBe(9_000);
    expect(h.polls.at(-1)! - start).toBe(9_000);
    expect(h.sleeps).toEqual([2000, 2000, 2000, 2000, 1000]);
  });

  it("treats network errors and 5xx as missed polls, not failures", async () => {
    const h = harness([
      pending(),
      new NetworkError("connect ECONNREFUSED 127.0.0.1:9"),
      ApiError.of("internal_error", "boom"),
      new ApiError(503, { error: "unavailable" }),
      done,
    ]);
    const result = await runWait(h.spec, {}, h.deps);
    expect(result).toEqual(done);
    expect(h.events.filter((e) => e.startsWith("missed"))).toEqual([
      "missed network error: connect ECONNREFUSED 127.0.0.1:9",
      "missed HTTP 500",
      "missed HTTP 503",
    ]);
    expect(h.sleeps).toEqual([2000, 2000, 2000, 2000]);
  });

  it("a 429 waits until X-RateLimit-Reset", async () => {
    const start = 1_700_000_000_000;
    const resetSec = start / 1000 + 42;
    const limited = new ApiError(429, { error: "Rate limit exceeded. Maximum 100 requests per minute." }, {
      "X-RateLimit-Limit": "100",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(resetSec),
    });
    const h = harness([limited, done], { start });
    await runWait(h.spec, {}, h.deps);
    expect(h.sleeps).toEqual([42_000]);
    expect(h.polls[1]).toBe(resetSec * 1000);
  });

  it("a 429 without a reset header falls back to the schedule; a reset in the past waits 1 s", async () => {
    const bare = harness([new ApiError(429, { error: "slow down" }), done]);
    await runWait(bare.spec, {}, bare.deps);
    expect(bare.sleeps).toEqual([2000]);

    const start = 1_700_000_000_000;
    const past = harness([new ApiError(429, { error: "x" }, { "x-ratelimit-reset": String(start / 1000 - 5) }), done], { start });
    await runWait(past.spec, {}, past.deps);
    expect(past.sleeps).toEqual([1000]);
  });

  it("a 429 wait never runs past the timeout", async () => {
    const start = 1_700_000_000_000;
    const limited = new ApiError(429, { error: "x" }, { "X-RateLimit-Reset": String(start / 1000 + 3600) });
    const h = harness([limited], { start });
    const r = await exitOf(runWait(h.spec, { timeoutMs: 10_000 }, h.deps));
    expect(r.code).toBe(EXIT.timeout);
    expect(h.now - start).toBe(10_000);
  });

  it("other errors end the wait as they are (404 stays a 404)", async () => {
    const h = harness([pending(), ApiError.of("asset_not_found", "Asset not found")]);
    await expect(runWait(h.spec, {}, h.deps)).rejects.toMatchObject({ name: "ApiError", status: 404 });
    expect(h.unregistered).toBe(true);
  });

  it("Ctrl-C stops waiting with exit 130 and prints how to resume; the job is not touched", async () => {
    const h = harness([pending(20)]);
    let polls = 0;
    const spec = {
      ...h.spec,
      poll: async () => {
        polls++;
        if (polls === 3) h.interrupt();
        return pending(20);
      },
    };
    const r = await exitOf(runWait(spec, {}, h.deps));
    expect(r.code).toBe(EXIT.interrupted);
    expect(r.message).toContain("asset a1");
    expect(r.message).toContain("mediagen asset status a1 --watch");
    expect(polls).toBe(3);
    expect(h.unregistered).toBe(true);
    expect(h.events.at(-1)).toBe("stop interrupted");
  });

  it("Ctrl-C during a poll that hangs still stops at once", async () => {
    const h = harness([]);
    const spec = {
      ...h.spec,
      poll: () => {
        setTimeout(() => h.interrupt(), 0);
        return new Promise<Job>(() => {});
      },
    };
    const r = await exitOf(runWait(spec, {}, h.deps));
    expect(r.code).toBe(EXIT.interrupted);
  });
});

describe("classifyPollError", () => {
  const cases: Array<[string, unknown, string]> = [
    ["network error", new NetworkError("reset"), "missed"],
    ["500", new ApiError(500, { error: "x" }), "missed"],
    ["502", new ApiError(502, { error: "x" }), "missed"],
    ["429", new ApiError(429, { error: "x" }), "rate"],
    ["400", ApiError.of("invalid_value", "bad"), "fatal"],
    ["401", ApiError.of("invalid_api_key", "bad key"), "fatal"],
    ["404", ApiError.of("job_not_found", "no"), "fatal"],
    ["plain Error", new Error("bug"), "fatal"],
  ];
  it.each(cases)("%s → %s", (_name, err, kind) => {
    expect(classifyPollError(err).kind).toBe(kind);
  });
});

describe("lineReporter", () => {
  it("prints one line per state change, NDJSON with --json, one note per streak of missed polls", () => {
    const lines: string[] = [];
    const r = lineReporter({ info: (l) => lines.push(l) }, "export j1", true);
    r.update("pending", "processing 10%", 1000);
    r.missed("HTTP 502", 2000);
    r.missed("HTTP 502", 3000);
    r.update("pending", "processing 50%", 4000);
    r.missed("network error: reset", 5000);
    r.update("done", "completed", 6000);
    const parsed = lines.map((l) => JSON.parse(l) as { label: string; state: string; message: string; elapsed_ms: number });
    expect(parsed.map((p) => [p.state, p.message])).toEqual([
      ["pending", "processing 10%"],
      ["retrying", "poll missed (HTTP 502); retrying"],
      ["pending", "processing 50%"],
      ["retrying", "poll missed (network error: reset); retrying"],
      ["done", "completed"],
    ]);
    expect(parsed.every((p) => p.label === "export j1")).toBe(true);
    expect(parsed[4]!.elapsed_ms).toBe(6000);
  });

  it("human lines name the job and the state", () => {
    const lines: string[] = [];
    const r = lineReporter({ info: (l) => lines.push(l) }, "asset a1", false);
    r.update("pending", "generating", 0);
    r.update("done", "completed", 65_000);
    expect(lines).toEqual(["asset a1: generating (0s)", "asset a1: completed (1m5s)"]);
  });
});

describe("CliContext.wait (real timers, in-memory streams)", async () => {
  const { PassThrough } = await import("node:stream");
  const { CliContext } = await import("../../src/cli/context.js");
  const { createIO } = await import("../../src/cli/io.js");
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");

  function context(json: boolean) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const opts = { json, quiet: false, debug: false, color: false, input: false };
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    const io = createIO({ stdout, stderr, stdin: new PassThrough() }, {}, opts);
    const ctx = new CliContext(io, opts, { MEDIAGEN_HOME: home }, "0.0.0");
    const text = (s: InstanceType<typeof PassThrough>) => (s.read() as Buffer | null)?.toString() ?? "";
    return { ctx, out: () => text(stdout), err: () => text(stderr) };
  }

  const scripted = (states: Job["status"][]): WaitSpec<Job> => {
    let i = 0;
    return {
      label: "export j1",
      poll: async () => ({ id: "j1", status: states[Math.min(i++, states.length - 1)]! }),
      state: (j) => (j.status === "completed" ? "done" : j.status === "failed" ? "failed" : "pending"),
      describe: (j) => j.status,
      schedule: () => 10,
      resume: "mediagen export status j1 --watch",
    };
  };

  it("off a TTY with --json: NDJSON state lines on stderr, nothing on stdout until the caller prints", async () => {
    const c = context(true);
    const result = await c.ctx.wait(scripted(["pending", "processing", "processing", "completed"]), { intervalMs: 100 });
    expect(result.status).toBe("completed");
    expect(c.out()).toBe("");
    const lines = c.err().trim().split("\n").map((l) => JSON.parse(l) as { state: string; message: string });
    expect(lines.map((l) => l.message)).toEqual(["pending", "processing", "completed"]);
    expect(lines.at(-1)!.state).toBe("done");
  });

  it("a failed job prints its final object on stdout and throws exit 7", async () => {
    const c = context(true);
    await expect(c.ctx.wait(scripted(["processing", "failed"]), { intervalMs: 100 })).rejects.toMatchObject({ exitCode: EXIT.jobFailed });
    expect(JSON.parse(c.out())).toEqual({ id: "j1", status: "failed" });
  });

  it("times out with exit 8 and the last state on stdout", async () => {
    const c = context(false);
    await expect(c.ctx.wait(scripted(["processing"]), { intervalMs: 100, timeoutMs: 350 })).rejects.toMatchObject({
      exitCode: EXIT.timeout,
      message: expect.stringContaining("mediagen export status j1 --watch"),
    });
    expect(c.out()).toBe("export j1: processing\n");
  });

  it("SIGINT stops the wait with exit 130 and removes its handler", async () => {
    const c = context(false);
    const before = process.listenerCount("SIGINT");
    const waiting = c.ctx.wait(scripted(["processing"]), { intervalMs: 100 });
    setTimeout(() => process.emit("SIGINT"), 250);
    await expect(waiting).rejects.toMatchObject({ exitCode: EXIT.interrupted, message: expect.stringContaining("Resume with: mediagen export status j1 --watch") });
    expect(process.listenerCount("SIGINT")).toBe(before);
  });
});
