import { describe, expect, it } from "vitest";
import { runWait, runWaitAll, classifyPollError, MIN_POLL_BUDGET_MS, type SingleWaitDeps, type WaitJob, type WaitReporter } from "../../src/cli/wait.js";
import { createReporter, lineReporter, spinnerReporter } from "../../src/cli/wait-report.js";
import { CliError, EXIT, type WaitSpec } from "../../src/cli/types.js";
import { ApiError, NetworkError } from "../../src/engine/errors.js";
import { assetSchedule, localSchedule } from "../../src/contract/poll.js";

type Job = { id: string; status: "pending" | "processing" | "completed" | "failed"; progress?: number };

/**
 * A fake clock whose sleeps advance time at once, and a poller fed from a script of answers. The
 * bound on a poll (`timer`) fires on the next macrotask, moving the clock by its length: a poll
 * that answers (in microtasks) always beats it, a poll that hangs never does.
 */
function harness(answers: Array<Job | Error>, opts: { target?: "local" | "hosted"; start?: number } = {}) {
  let now = opts.start ?? 1_700_000_000_000;
  const sleeps: number[] = [];
  const timers: number[] = [];
  const polls: number[] = [];
  const events: string[] = [];
  const printed: unknown[] = [];
  let interrupt: (() => void) | undefined;
  let unregistered = false;
  let i = 0;
  const reporter: WaitReporter = {
    update: (label, state, text) => events.push(label === "asset a1" ? `update ${state} ${text}` : `update ${label} ${state} ${text}`),
    missed: (label, reason) => events.push(label === "asset a1" ? `missed ${reason}` : `missed ${label} ${reason}`),
    stop: (ending, jobs) =>
      events.push(jobs.length === 1 && jobs[0]!.label === "asset a1" ? `stop ${ending === "finished" ? jobs[0]!.state : ending}` : `stop ${ending}`),
  };
  const deps: SingleWaitDeps = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    timer: (ms, signal) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          timers.push(ms);
          now += ms;
          resolve();
        }, 0);
        signal.addEventListener("abort", () => {
          clearTimeout(t);
          resolve();
        });
      }),
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
    timers,
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
    expect(h.events.filter((e) => e.startsWith("missed"))).toEqual(["missed network error: connect ECONNREFUSED 127.0.0.1:9", "missed HTTP 500", "missed HTTP 503"]);
    expect(h.sleeps).toEqual([2000, 2000, 2000, 2000]);
  });

  it("a 429 waits until X-RateLimit-Reset", async () => {
    const start = 1_700_000_000_000;
    const resetSec = start / 1000 + 42;
    const limited = new ApiError(
      429,
      { error: "Rate limit exceeded. Maximum 100 requests per minute." },
      {
        "X-RateLimit-Limit": "100",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": String(resetSec),
      },
    );
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
      poll: (signal?: AbortSignal) => {
        queueMicrotask(() => h.interrupt());
        seen = signal;
        return new Promise<Job>(() => {});
      },
    };
    let seen: AbortSignal | undefined;
    const r = await exitOf(runWait(spec, {}, h.deps));
    expect(r.code).toBe(EXIT.interrupted);
    // The engine call is told to stop.
    expect(seen?.aborted).toBe(true);
  });

  it("--timeout holds while a poll hangs: the poll is abandoned at the deadline, its signal aborted, exit 8", async () => {
    const h = harness([pending(30)]);
    const start = h.now;
    let calls = 0;
    let signal: AbortSignal | undefined;
    const spec = {
      ...h.spec,
      poll: (s?: AbortSignal) => {
        calls++;
        if (calls === 1) return Promise.resolve(pending(30));
        signal = s;
        // An engine that ignores the abort (e.g. sleeping through a 429 window of 30 s).
        return new Promise<Job>(() => {});
      },
    };
    const r = await exitOf(runWait(spec, { timeoutMs: 3_000 }, h.deps));
    expect(r.code).toBe(EXIT.timeout);
    expect(r.message).toContain("last state: pending 30%");
    expect(r.message).toContain("Resume with: mediagen asset status a1 --watch");
    expect(signal?.aborted).toBe(true);
    // Only the bound of the hanging poll fired: it started at 2 s with 1 s left, and got that second.
    expect(h.timers).toEqual([1_000]);
    expect(h.now - start).toBe(3_000);
    expect(h.printed).toEqual([pending(30)]);
  });

  it("a poll at the deadline still gets MIN_POLL_BUDGET_MS to answer", async () => {
    const h = harness([pending()]);
    let calls = 0;
    const spec = {
      ...h.spec,
      poll: () => (++calls === 1 ? Promise.resolve(pending()) : new Promise<Job>(() => {})),
    };
    await exitOf(runWait(spec, { timeoutMs: 2_000 }, h.deps));
    expect(h.timers).toEqual([MIN_POLL_BUDGET_MS]);
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
    const r = lineReporter({ info: (l) => lines.push(l) }, true);
    const j = "export j1";
    r.update(j, "pending", "processing 10%", 1000);
    r.missed(j, "HTTP 502", 2000);
    r.missed(j, "HTTP 502", 3000);
    r.update(j, "pending", "processing 50%", 4000);
    r.missed(j, "network error: reset", 5000);
    r.update(j, "done", "completed", 6000);
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
    const r = lineReporter({ info: (l) => lines.push(l) }, false);
    r.update("asset a1", "pending", "generating", 0);
    r.update("asset b2", "pending", "generating", 0);
    r.missed("asset a1", "HTTP 503", 1000);
    r.missed("asset b2", "HTTP 503", 1000);
    r.update("asset a1", "done", "completed", 65_000);
    expect(lines).toEqual([
      "asset a1: generating (0s)",
      "asset b2: generating (0s)",
      "asset a1: poll missed (HTTP 503); retrying (1s)",
      "asset b2: poll missed (HTTP 503); retrying (1s)",
      "asset a1: completed (1m5s)",
    ]);
  });
});

describe("CliContext.wait (real timers, in-memory streams)", async () => {
  const { PassThrough } = await import("node:stream");
  const { CliContext } = await import("../../src/cli/context.js");
  const { createIO } = await import("../../src/cli/io.js");
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");

  const { processSignals } = await import("../../src/cli/process-signals.js");
  const { realClock } = await import("../../src/cli/runtime.js");

  /** A context as bin/ builds it: the real process's SIGINT, real timers. */
  function context(json: boolean) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const opts = { json, quiet: false, debug: false, color: false, input: false };
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    const io = createIO({ stdout, stderr, stdin: new PassThrough() }, {}, opts);
    const ctx = new CliContext(io, opts, { MEDIAGEN_HOME: home }, "0.0.0", { signals: processSignals, clock: realClock });
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
    const lines = c
      .err()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { state: string; message: string });
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

describe("runWaitAll: several jobs, one deadline", () => {
  /** Jobs fed from their own scripts, on the harness's fake clock. */
  function jobs(h: ReturnType<typeof harness>, scripts: Record<string, Array<Job | Error | "hang">>) {
    const log: string[] = [];
    const list: WaitJob<Job>[] = Object.entries(scripts).map(([id, answers]) => {
      let i = 0;
      return {
        id,
        label: `asset ${id}`,
        poll: async () => {
          log.push(`${id}@${h.now}`);
          const a = answers[Math.min(i++, answers.length - 1)]!;
          if (a === "hang") return new Promise<Job>(() => {});
          if (a instanceof Error) throw a;
          return { ...a, id };
        },
      };
    });
    const spec = { jobs: list, state: h.spec.state, describe: h.spec.describe, schedule: assetSchedule };
    return { spec, log };
  }

  it("waits on all jobs under one timeout, not one timeout each", async () => {
    const h = harness([]);
    const start = h.now;
    const { spec, log } = jobs(h, { a: [pending()], b: [pending()] });
    const out = await runWaitAll(spec, { timeoutMs: 9_000 }, h.deps);
    expect(out.ending).toBe("timeout");
    expect(out.jobs.map((j) => [j.job.id, j.state, j.text])).toEqual([
      ["a", "pending", "pending"],
      ["b", "pending", "pending"],
    ]);
    expect(h.now - start).toBe(9_000);
    // Both are polled every round.
    expect(log.filter((l) => l.startsWith("a")).length).toBe(log.filter((l) => l.startsWith("b")).length);
  });

  it("one failed job does not stop the others; every job keeps its last object", async () => {
    const h = harness([]);
    const { spec } = jobs(h, { a: [pending(), failed], b: [pending(), pending(), done] });
    const out = await runWaitAll(spec, {}, h.deps);
    expect(out.ending).toBe("finished");
    expect(out.jobs.map((j) => [j.state, j.value?.status])).toEqual([
      ["failed", "failed"],
      ["done", "completed"],
    ]);
    expect(h.events.at(-1)).toBe("stop finished");
  });

  it("a round with several pending jobs takes at least 1 s per job (the rate limit is shared)", async () => {
    const h = harness([]);
    const { spec } = jobs(h, { a: [pending(), pending(), done], b: [pending(), pending(), done], c: [pending(), done] });
    await runWaitAll(spec, {}, h.deps);
    // 3 pending → 3 s (not the 2 s schedule); then a, b pending → 2 s.
    expect(h.sleeps).toEqual([3_000, 2_000]);
  });

  it("a 429 on one job holds the whole round until the reset", async () => {
    const start = 1_700_000_000_000;
    const h = harness([], { start });
    const limited = new ApiError(429, { error: "x" }, { "X-RateLimit-Reset": String(start / 1000 + 20) });
    const { spec, log } = jobs(h, { a: [limited, done], b: [done] });
    const out = await runWaitAll(spec, {}, h.deps);
    expect(out.jobs.map((j) => j.state)).toEqual(["done", "done"]);
    expect(log).toEqual([`a@${start}`, `a@${start + 20_000}`, `b@${start + 20_000}`]);
  });

  it("an error that ends one job (404) leaves the others waiting", async () => {
    const h = harness([]);
    const { spec } = jobs(h, { a: [ApiError.of("asset_not_found", "Asset not found")], b: [pending(), done] });
    const out = await runWaitAll(spec, {}, h.deps);
    expect(out.ending).toBe("finished");
    expect(out.jobs[0]).toMatchObject({ state: "error", error: { status: 404 } });
    expect(out.jobs[1]!.state).toBe("done");
  });

  it("a job whose poll hangs ends the wait at the deadline for all, without an answer for it", async () => {
    const h = harness([]);
    const { spec } = jobs(h, { a: [pending(5)], b: ["hang"] });
    const out = await runWaitAll(spec, { timeoutMs: 5_000 }, h.deps);
    expect(out.ending).toBe("timeout");
    expect(out.jobs.map((j) => [j.state, j.value])).toEqual([
      ["pending", { id: "a", status: "pending", progress: 5 }],
      ["pending", undefined],
    ]);
  });

  it("Ctrl-C ends the wait for all jobs with their last states", async () => {
    const h = harness([]);
    const { spec } = jobs(h, { a: [pending(1)], b: [pending(2)] });
    // Ctrl-C during the pause after the first round.
    const deps = {
      ...h.deps,
      sleep: async (ms: number, signal: AbortSignal) => {
        h.interrupt();
        return h.deps.sleep(ms, signal);
      },
    };
    const out = await runWaitAll(spec, {}, deps);
    expect(out.ending).toBe("interrupted");
    expect(out.jobs.map((j) => j.text)).toEqual(["pending 1%", "pending 2%"]);
    expect(h.unregistered).toBe(true);
  });
});

describe("createReporter / spinnerReporter", async () => {
  const { Writable } = await import("node:stream");
  const { createIO } = await import("../../src/cli/io.js");
  /** A stream that says it is a terminal, collecting what is written. */
  function tty() {
    let text = "";
    const stream = Object.assign(
      new Writable({
        write(chunk, _enc, cb) {
          text += String(chunk);
          cb();
        },
      }),
      // What ora needs of a terminal stream.
      {
        isTTY: true,
        columns: 100,
        cursorTo: (_x: number, cb?: () => void) => (cb?.(), true),
        clearLine: (_d: number, cb?: () => void) => (cb?.(), true),
        moveCursor: (_x: number, _y: number, cb?: () => void) => (cb?.(), true),
      },
    );
    return { stream, text: () => text };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: an ANSI colour sequence starts with ESC.
  const SGR = /\u001b\[[0-9;]*m/;

  it("with colour off, the spinner's final marks carry no colour codes", async () => {
    // Where colour would otherwise be detected (ora's own symbols colour themselves by it).
    process.env.FORCE_COLOR = "1";
    const err = tty();
    const r = await spinnerReporter({ stderr: err.stream, stderrColor: false }, ["asset a", "asset b"]);
    r.update("asset a", "done", "completed", 10);
    r.stop("timeout", [
      { label: "asset a", state: "done", text: "completed" },
      { label: "asset b", state: "pending", text: "generating" },
    ]);
    const out = err.text();
    expect(out).toContain("✔ asset a: completed (0s)\n");
    expect(out).toContain("⚠ asset b: generating (0s)\n");
    expect(out).not.toMatch(SGR);
    delete process.env.FORCE_COLOR;
  });

  it("the spinner shows the elapsed time, as the state lines do, and keeps counting between state changes", async () => {
    const err = tty();
    let t = 1_000_000;
    const r = await spinnerReporter({ stderr: err.stream, stderrColor: false }, ["asset a"], () => t);
    // ora draws its next frame within 80 ms.
    const frame = () => new Promise((res) => setTimeout(res, 150));
    r.update("asset a", "pending", "generating", 0);
    await frame();
    expect(err.text()).toContain("asset a: generating (0s)");
    t += 65_000;
    r.update("asset a", "pending", "generating", 65_000);
    r.missed("asset a", "HTTP 503", 66_000);
    await frame();
    expect(err.text()).toContain("(retrying: HTTP 503) (1m6s)");
    t += 2_000;
    r.stop("finished", [{ label: "asset a", state: "done", text: "completed" }]);
    expect(err.text()).toContain("✔ asset a: completed (1m8s)\n");
  });

  it.each([
    ["TERM=dumb", { TERM: "dumb" }],
    ["CI", { CI: "true" }],
  ])("%s on a terminal: state lines, no animation", async (_n, env) => {
    const err = tty();
    const io = createIO({ stdout: tty().stream, stderr: err.stream, stdin: process.stdin }, env, { quiet: false, color: true, input: true });
    expect(io.animate).toBe(false);
    const r = await createReporter(io, ["asset a"], false);
    r.update("asset a", "pending", "generating", 0);
    r.stop("finished", [{ label: "asset a", state: "done", text: "completed" }]);
    expect(err.text()).toBe("asset a: generating (0s)\n");
  });
});

// Both wait about a second of real time, each on its own context: at the same time.
describe.concurrent("CliContext.wait bounds a hanging poll with real timers", async () => {
  const { PassThrough } = await import("node:stream");
  const { CliContext } = await import("../../src/cli/context.js");
  const { createIO } = await import("../../src/cli/io.js");
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");

  it("a poll that never answers and ignores the abort: exit 8 about a second after the deadline at most", async () => {
    const opts = { json: false, quiet: true, debug: false, color: false, input: false, profile: "ci", baseUrl: "http://127.0.0.1:1/a b" };
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    const io = createIO({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() }, {}, opts);
    const ctx = new CliContext(io, opts, { MEDIAGEN_HOME: home }, "0.0.0");
    const t0 = Date.now();
    await expect(
      ctx.wait(
        {
          label: "export j1",
          poll: () => new Promise<Job>(() => {}),
          state: () => "pending",
          describe: (j: Job) => j.status,
          schedule: () => 100,
          resume: "mediagen export status j1 --watch",
        },
        { timeoutMs: 300 },
      ),
    ).rejects.toMatchObject({
      exitCode: EXIT.timeout,
      // The resume command carries the --profile it ran with, quoted.
      message: expect.stringContaining("Resume with: mediagen --profile ci --base-url 'http://127.0.0.1:1/a b' export status j1 --watch"),
    });
    expect(Date.now() - t0).toBeLessThan(MIN_POLL_BUDGET_MS + 1_000);
  });

  it("closing does not wait for an engine stuck on an abandoned call", async () => {
    const opts = { json: false, quiet: true, debug: false, color: false, input: false };
    const io = createIO({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() }, {}, opts);
    const ctx = new CliContext(io, opts, { MEDIAGEN_HOME: fs.mkdtempSync(path.join(os.tmpdir(), "mg-")) }, "0.0.0");
    // An engine whose close() waits for a request that never ends (undici's close() does that).
    (ctx as unknown as { enginePromise: Promise<unknown> }).enginePromise = Promise.resolve({ close: () => new Promise<void>(() => {}) });
    const t0 = Date.now();
    await ctx.close();
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
