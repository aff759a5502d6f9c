/**
 * npm 12 runs no install script of a dependency unless the project allows it, so the npm ffprobe
 * (whose `chmod u+x` is such a script) can arrive without its execute bit. mediagen sets the bit
 * where the user owns the file, else runs an executable copy from the user's tools directory, else
 * says what to do.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runnableNpmBinary } from "../../src/media/npm-binary.js";

let dir: string;
const savedTmp = process.env.TMPDIR;
const uid = process.getuid!();

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-npm-bin-"));
  // os.tmpdir() follows TMPDIR: each test has a tools directory of its own.
  process.env.TMPDIR = path.join(dir, "tmp");
  fs.mkdirSync(process.env.TMPDIR);
});

afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A tool as npm unpacks it when its install script is blocked: readable, not executable. */
function unpacked(name = "ffprobe"): string {
  const pkg = path.join(dir, "node_modules", "@ffprobe-installer", "linux-x64");
  fs.mkdirSync(pkg, { recursive: true });
  const bin = path.join(pkg, name);
  fs.writeFileSync(bin, "#!/bin/sh\necho ffprobe version 5.2\n", { mode: 0o644 });
  return bin;
}

const run = (bin: string) => execFileSync(bin, ["-version"], { encoding: "utf8" });

describe.skipIf(process.platform === "win32")("an npm media tool without its execute bit", () => {
  it("is made executable in place when this user owns it (what its install script would have done)", () => {
    const bin = unpacked();
    expect(() => run(bin)).toThrow();
    expect(runnableNpmBinary(bin, "ffprobe", uid)).toEqual({ path: bin });
    expect(fs.statSync(bin).mode & 0o777).toBe(0o744);
    expect(run(bin)).toBe("ffprobe version 5.2\n");
  });

  it("runs from an executable copy in the user's tools directory (0700) when another user owns it, made once", () => {
    const bin = unpacked();
    const someoneElse = uid + 4242;
    const first = runnableNpmBinary(bin, "ffprobe", someoneElse);
    expect("path" in first && first.path).not.toBe(bin);
    const copy = (first as { path: string }).path;
    expect(path.dirname(copy)).toBe(path.join(process.env.TMPDIR!, `mediagen-${uid}`));
    expect(fs.statSync(path.dirname(copy)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(copy).mode & 0o777).toBe(0o700);
    expect(fs.statSync(bin).mode & 0o777).toBe(0o644);
    expect(run(copy)).toBe("ffprobe version 5.2\n");
    const mtime = fs.statSync(copy).mtimeMs;
    expect(runnableNpmBinary(bin, "ffprobe", someoneElse)).toEqual({ path: copy });
    expect(fs.statSync(copy).mtimeMs).toBe(mtime);
    // A new version of the package (another size and time) gets its own copy.
    fs.writeFileSync(bin, "#!/bin/sh\necho ffprobe version 6.0\n", { mode: 0o644 });
    const next = runnableNpmBinary(bin, "ffprobe", someoneElse) as { path: string };
    expect(next.path).not.toBe(copy);
    expect(run(next.path)).toBe("ffprobe version 6.0\n");
  });

  it("says what to do when neither works (a tools directory others could write to is not used)", () => {
    const bin = unpacked();
    const tools = path.join(process.env.TMPDIR!, `mediagen-${uid}`);
    fs.mkdirSync(tools, { mode: 0o777 });
    fs.chmodSync(tools, 0o777);
    const r = runnableNpmBinary(bin, "ffprobe", uid + 4242);
    expect(r).toEqual({ problem: expect.stringContaining(`the npm ffprobe at ${bin} is not executable`) });
    expect((r as { problem: string }).problem).toContain(`chmod u+x ${bin}`);
    expect(fs.readdirSync(tools)).toEqual([]);
  });

  it("is left as it is when it already runs", () => {
    const bin = unpacked();
    fs.chmodSync(bin, 0o755);
    expect(runnableNpmBinary(bin, "ffprobe", uid + 4242)).toEqual({ path: bin });
  });
});
