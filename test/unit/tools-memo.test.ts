/**
 * What the media tools answered (`-version`, `-filters`) is remembered between processes, keyed by
 * the binary's identity: a process finding the same ffmpeg does not run it three times again, a
 * binary changed in place is asked again, and a memo directory others could write to is not used.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearToolsCache, getTools } from "../../src/media/index.js";
import { rememberedOutput } from "../../src/media/tools-memo.js";

let dir: string;
const saved = { TMPDIR: process.env.TMPDIR, MEDIAGEN_FFMPEG: process.env.MEDIAGEN_FFMPEG };

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-memo-"));
  // os.tmpdir() follows TMPDIR: each test has a memo of its own.
  process.env.TMPDIR = path.join(dir, "tmp");
  fs.mkdirSync(process.env.TMPDIR);
  clearToolsCache();
});

afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  clearToolsCache();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A tool that answers `text` and counts its runs. */
function fakeTool(name: string, text: string): { bin: string; runs: () => number } {
  const bin = path.join(dir, name);
  const count = path.join(dir, `${name}.runs`);
  fs.writeFileSync(bin, `#!/bin/sh\necho run >> '${count}'\necho '${text}'\n`, { mode: 0o755 });
  return { bin, runs: () => (fs.existsSync(count) ? fs.readFileSync(count, "utf8").split("\n").filter(Boolean).length : 0) };
}

const ask = (bin: string, args: string[]) =>
  rememberedOutput(bin, args, async () => {
    const { execFileSync } = await import("node:child_process");
    return execFileSync(bin, args, { encoding: "utf8" });
  });

describe("the tools memo", () => {
  it("answers a second ask of the same binary and arguments from disk; other arguments are asked", async () => {
    const t = fakeTool("tool", "tool version 1.0");
    expect(await ask(t.bin, ["-version"])).toBe("tool version 1.0\n");
    expect(await ask(t.bin, ["-version"])).toBe("tool version 1.0\n");
    expect(t.runs()).toBe(1);
    await ask(t.bin, ["-filters"]);
    expect(t.runs()).toBe(2);
    const memoDir = path.join(process.env.TMPDIR!, fs.readdirSync(process.env.TMPDIR!)[0]!);
    expect(fs.statSync(memoDir).mode & 0o777).toBe(0o700);
  });

  it("asks again when the binary changed in place (a new build at the same path)", async () => {
    const t = fakeTool("tool", "tool version 1.0");
    await ask(t.bin, ["-version"]);
    fs.writeFileSync(t.bin, fs.readFileSync(t.bin, "utf8").replace("1.0", "2.0"));
    expect(await ask(t.bin, ["-version"])).toBe("tool version 2.0\n");
    expect(t.runs()).toBe(2);
  });

  it.skipIf(typeof process.getuid !== "function")("does not use a memo directory others can write to, and never remembers a failure", async () => {
    const t = fakeTool("tool", "tool version 1.0");
    const memoDir = path.join(process.env.TMPDIR!, `mediagen-${process.getuid!()}`);
    fs.mkdirSync(memoDir, { mode: 0o777 });
    fs.chmodSync(memoDir, 0o777);
    await ask(t.bin, ["-version"]);
    await ask(t.bin, ["-version"]);
    expect(t.runs()).toBe(2);
    expect(fs.readdirSync(memoDir)).toEqual([]);

    fs.chmodSync(memoDir, 0o700);
    const failing = rememberedOutput(t.bin, ["-x"], () => Promise.reject(new Error("exit 1")));
    await expect(failing).rejects.toThrow("exit 1");
    await ask(t.bin, ["-x"]);
    expect(t.runs()).toBe(3);
  });

  it("lets a new process's getTools learn ffmpeg without running it again", async () => {
    const first = await getTools();
    // A wrapper that counts its runs and hands over to the real ffmpeg.
    const count = path.join(dir, "ffmpeg.runs");
    const wrapper = path.join(dir, "ffmpeg");
    fs.writeFileSync(wrapper, `#!/bin/sh\necho run >> '${count}'\nexec '${first.ffmpeg}' "$@"\n`, { mode: 0o755 });
    process.env.MEDIAGEN_FFMPEG = wrapper;
    clearToolsCache();
    const a = await getTools();
    clearToolsCache(); // as a new process would start
    const b = await getTools();
    expect(fs.readFileSync(count, "utf8").split("\n").filter(Boolean)).toHaveLength(2); // -version and -filters, once
    expect([b.ffmpegVersion, b.hasXfade, b.hasLibass, [...b.filters].sort()]).toEqual([a.ffmpegVersion, a.hasXfade, a.hasLibass, [...a.filters].sort()]);
    expect(b.filters.size).toBe(first.filters.size);
  });
});
