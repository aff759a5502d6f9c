/**
 * The parts of `mediagen batch` that need no service: the pacer against a fixed-window limiter on a
 * virtual clock (many requests, high concurrency, never over the limit in any window), the
 * manifest's torn last line, the template's word splitting, and CSV parsing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Pacer, PRIORITY, type PacerClock } from "../../src/cli/batch/pacer.js";
import { lockManifest, ManifestWriter, readManifest } from "../../src/cli/batch/manifest.js";
import { fillWord, parseCsv, parseCsvBatch, parseJsonl, splitWords } from "../../src/cli/batch/input.js";
import type { RateLimitInfo } from "../../src/engine/engine.js";

/** A virtual clock: sleeps resolve in time order as the clock is advanced past them. */
class VirtualClock implements PacerClock {
  t = 1_700_000_000_000;
  private timers: { at: number; resolve: () => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      this.timers.push({ at: this.t + ms, resolve });
    });
  }
  /** Runs every pending microtask, then fires the next timer; false when none is left. */
  async step(): Promise<boolean> {
    for (let i = 0; i < 20; i++) await Promise.resolve();
    this.timers.sort((a, b) => a.at - b.at);
    const next = this.timers.shift();
    if (!next) return false;
    this.t = Math.max(this.t, next.at);
    next.resolve();
    return true;
  }
}

/** The local instance's limiter in miniature: fixed windows aligned to the clock. */
class Limiter {
  counts = new Map<number, number>();
  rejected = 0;
  constructor(
    private readonly clock: VirtualClock,
    readonly limit: number,
    readonly windowMs: number,
  ) {}
  hit(): { ok: boolean; info: RateLimitInfo } {
    const start = Math.floor(this.clock.now() / this.windowMs) * this.windowMs;
    const reset = Math.ceil((start + this.windowMs) / 1000);
    const n = this.counts.get(start) ?? 0;
    if (n >= this.limit) {
      this.rejected++;
      return { ok: false, info: { limit: this.limit, remaining: 0, reset } };
    }
    this.counts.set(start, n + 1);
    return { ok: true, info: { limit: this.limit, remaining: this.limit - n - 1, reset } };
  }
}

describe("Pacer", () => {
  it("keeps 300 requests from 16 concurrent callers within 20 per window", async () => {
    const clock = new VirtualClock();
    const limiter = new Limiter(clock, 20, 60_000);
    const ac = new AbortController();
    const pacer = new Pacer(clock, ac.signal);
    let last: RateLimitInfo | undefined;
    const order: string[] = [];
    const request = async (kind: "poll" | "start") => {
      await pacer.run(
        kind === "poll" ? PRIORITY.poll : PRIORITY.start,
        async () => {
          // Each request takes a little while, answered after the clock moves.
          await clock.sleep(50, ac.signal);
          const r = limiter.hit();
          last = r.info;
          order.push(kind);
          if (!r.ok) throw Object.assign(new Error("429"), { name: "ApiError", status: 429 });
        },
        () => last,
      );
    };
    const callers = Array.from({ length: 16 }, async (_, c) => {
      for (let i = 0; i < 300 / 16; i++) await request(i % 3 === 0 ? "start" : "poll");
      return c;
    });
    let done = false;
    let failure: unknown;
    void Promise.all(callers)
      .catch((e) => (failure = e))
      .finally(() => (done = true));
    for (let spins = 0; !done && spins < 100_000; spins++) if (!(await clock.step())) await new Promise((r) => setImmediate(r));
    expect(failure).toBeUndefined();
    expect(limiter.rejected).toBe(0);
    for (const n of limiter.counts.values()) expect(n).toBeLessThanOrEqual(20);
    expect([...limiter.counts.values()].reduce((a, b) => a + b, 0)).toBe(order.length);
    expect(pacer.sent).toBe(order.length);
  });
});

describe("manifest", () => {
  it("ignores a line torn by a crash, and the next event starts on a line of its own", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-manifest-"));
    const file = path.join(dir, "m.jsonl");
    fs.writeFileSync(
      file,
      `{"ev":"batch","v":1,"target":"local","input":"x"}\n{"ev":"intent","line":1,"hash":"h1","step":"start","at":"2026-01-01T00:00:00.000Z"}\n{"ev":"started","line":1,"hash":"h1","st`,
    );
    const m = readManifest(file);
    expect(m.lines.get(1)).toMatchObject({ status: "running", steps: { start: { intentAt: "2026-01-01T00:00:00.000Z" } } });
    expect(m.lines.get(1)!.steps.start!.ids).toBeUndefined();
    const w = new ManifestWriter(file);
    w.append({ ev: "started", line: 1, hash: "h1", step: "start", ids: ["a1"], cost: 1, at: "2026-01-01T00:00:01.000Z" });
    w.close();
    expect(readManifest(file).lines.get(1)!.steps.start!.ids).toEqual(["a1"]);
  });
});

describe("manifest lock", () => {
  it("refuses while a live process holds it, takes over the lock of a process that is gone", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-manifest-"));
    const file = path.join(dir, "m.jsonl");
    fs.writeFileSync(`${file}.lock`, String(process.ppid));
    expect(lockManifest(file)).toEqual({ heldBy: process.ppid });
    fs.writeFileSync(`${file}.lock`, "2147483646");
    const release = lockManifest(file);
    expect(typeof release).toBe("function");
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
    (release as () => void)();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});

describe("batch input", () => {
  it("splits a template as a shell would, and fills a value inside its word without splitting it", () => {
    expect(splitWords(`asset --prompt 'a b' --x "c \\"d\\"" e\\ f`)).toEqual(["asset", "--prompt", "a b", "--x", 'c "d"', "e f"]);
    expect(fillWord("{p}", { p: "$(rm -rf /) 'x' \"y\"" }, "row 1")).toBe("$(rm -rf /) 'x' \"y\"");
    expect(fillWord("{{literal}} {a}-{b}", { a: "1", b: "2" }, "row 1")).toBe("{literal} 1-2");
  });

  it("keeps what a library splitter (shell-quote 1.8) gets wrong here: # inside a word, $ and globs literal, unterminated quotes refused", () => {
    // shell-quote reads `b#c` as "b" and a comment, dropping the rest of the template, and accepts an unterminated quote.
    expect(splitWords("asset --prompt tag#1 --x $HOME *.png")).toEqual(["asset", "--prompt", "tag#1", "--x", "$HOME", "*.png"]);
    expect(() => splitWords(`asset --prompt "open`)).toThrow(/unterminated double quote/);
    expect(() => splitWords("asset --prompt 'open")).toThrow(/unterminated single quote/);
  });

  it("reads RFC 4180 CSV (quotes, doubled quotes, newlines in a field, CRLF)", () => {
    expect(parseCsv('a,b\r\n"x, y","say ""hi""\nthere"\r\n3,\n')).toEqual([
      ["a", "b"],
      ["x, y", 'say "hi"\nthere'],
      ["3", ""],
    ]);
    // A byte-order mark, line ends of every kind in one file, blank lines, a quote inside a field.
    expect(parseCsv('\ufeffa,b\r\nc,d\n\ne,f"g"\rh,i\n')).toEqual([
      ["a", "b"],
      ["c", "d"],
      ["e", 'f"g"'],
      ["h", "i"],
    ]);
    expect(() => parseCsv('a,"b\nc')).toThrow(/ends inside a quoted field/);
  });

  it("a duplicate template reads the command's flags: --voice and --look (or --avatar) fill the request, --format or --export-format chain an export", async () => {
    const csv = "video,voice,look\n65f0c2a1b3e4d5f6a7b8c9d0,vc_noah,lk_1\n";
    const [a] = await parseCsvBatch(csv, "duplicate {video} --voice {voice} --avatar {look} --format square", "x.csv");
    expect(a!.body).toEqual({ video_id: "65f0c2a1b3e4d5f6a7b8c9d0", voice_id: "vc_noah", avatar_look_id: "lk_1" });
    expect(a!.export).toEqual({ format: "square" });
    const [b] = await parseCsvBatch(csv, "duplicate {video} --look {look} --avatar other --export-format vertical", "x.csv");
    expect(b!.body).toEqual({ video_id: "65f0c2a1b3e4d5f6a7b8c9d0", avatar_look_id: "lk_1" });
    expect(b!.export).toEqual({ format: "vertical" });
    await expect(parseCsvBatch(csv, "duplicate {video} --format round", "x.csv")).rejects.toThrow(/--format/);
  });

  it("a generate template reads the command's own flags (GENERATE_FLAGS): the service's names, older spellings, --no- forms, the chained export", async () => {
    const csv = "topic\nwhy cats purr\n";
    const [a] = await parseCsvBatch(
      csv,
      "generate --prompt {topic} --duration 30 --emotion-enhancement --animate-image-max 2 --no-space-media --no-music --web-search-images --export --export-format square",
      "x.csv",
    );
    expect(a!.body).toEqual({
      prompt: "why cats purr",
      duration: 30,
      emotion_enhancement: true,
      animate_image_max: 2,
      use_space_media: false,
      enable: { music: false },
      web_search: { images: true },
    });
    expect(a!.export).toEqual({ format: "square" });
    // An older spelling still works; the service's name wins when both are given, as on the command.
    const [b] = await parseCsvBatch(csv, "generate --prompt {topic} --duration 30 --animate-image-max 3 --max-animated-images 1", "x.csv");
    expect(b!.body.animate_image_max).toBe(3);
    // The command's checks: a bad width, and the undocumented model, are refused with the command's words.
    await expect(parseCsvBatch(csv, "generate --prompt {topic} --width 0", "x.csv")).rejects.toThrow(/--width: expected a whole number of at least 1/);
    await expect(parseCsvBatch(csv, "generate --prompt {topic} --native-avatar-model omni", "x.csv")).rejects.toThrow(/docs name no field for the native-avatar model/);
    // Hidden spellings are not offered in the list of flags.
    const e = await parseCsvBatch(csv, "generate --prompt {topic} --colour red", "x.csv").catch((x: Error) => x);
    expect(String(e)).toMatch(/unknown flag --colour .*--emotion-enhancement/);
    expect(String(e)).not.toMatch(/--max-animated-images|--body|--watch/);
  });

  it("hashes a request whatever its key order, and differently when it differs", () => {
    const [a, b, c] = parseJsonl(
      ['{"kind":"asset","model":"m","prompt":"p"}', '{"prompt":"p","model":"m","kind":"asset"}', '{"kind":"asset","model":"m","prompt":"q"}'].join("\n"),
      "x",
    );
    expect(a!.hash).toBe(b!.hash);
    expect(a!.hash).not.toBe(c!.hash);
  });
});
