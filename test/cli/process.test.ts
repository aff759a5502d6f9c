/**
 * The built binary as a real process, for what the in-process runs (the rest of test/cli) cannot
 * show: start-up, the process's exit status, a closed stdin, a reader that goes away (EPIPE), and
 * the README's first command end to end. Signals are in watch.test.ts, next to the stub they need.
 */
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { pngSize } from "../../src/media/inputs.js";
import { BIN, newHome, runBin } from "./helpers.js";
import { runEnv } from "../helpers/cli.js";

let home: string;
beforeAll(() => {
  home = newHome();
});

describe("bin/mediagen.js as a process", () => {
  it("--help starts, prints usage and examples on stdout, nothing on stderr, exit 0", async () => {
    const r = await runBin(["--help"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("Usage: mediagen");
    expect(r.stdout).toContain("Examples:");
    expect(r.stderr).toBe("");
  });

  it.each([
    ["success", 0, ["--version"]],
    ["a usage error", 2, ["folder", "list", "--bogus", "--json"]],
    ["no key for the hosted target", 3, ["folder", "list", "--target", "hosted", "--base-url", "http://127.0.0.1:9", "--json"]],
    ["not found (from the engine)", 4, ["asset", "model", "vidZ-0", "--json"]],
  ] as Array<[string, number, string[]]>)("%s: the process exits %i", async (_n, code, args) => {
    const r = await runBin(args, { home });
    expect(r.exitCode, r.stderr).toBe(code);
    expect(r.signal).toBeUndefined();
    if (code !== 0) {
      expect(r.stdout).toBe("");
      expect(r.errorLine()).toMatchObject({ code: expect.any(String) });
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("a closed stdin: commands that need input fail with a usage error at once, never wait", async () => {
    for (const args of [
      ["folder", "create", "--json"],
      ["folder", "create", "--body", "-", "--json"],
      ["auth", "login", "--with-key", "--json"],
    ]) {
      const own = newHome();
      const r = await runBin(args, { home: own, timeoutMs: 10_000 });
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe("");
      expect(fs.existsSync(path.join(own, "credentials.json"))).toBe(false);
    }
  });

  it("a reader that closes the pipe early (`| head`): exit 0, no error", async () => {
    const child = spawn(process.execPath, [BIN, "asset", "models", "--json"], { env: runEnv(home), stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 });
    // The read end is gone before the CLI writes: its first write fails with EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once("close", (c, s) => resolve([c, s])));
    expect(signal).toBeNull();
    expect(code, stderr).toBe(0);
    expect(stderr).toBe("");
  });

  it("the README's first command: waits, saves into out/ of the working directory, prints the path", async () => {
    const cwd = newHome();
    const r = await runBin(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "a red fox at dawn", "--watch", "--download", "out/"], {
      home,
      cwd,
      timeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const saved = r.stdout.trim();
    expect(saved).toMatch(new RegExp(`^${path.join(fs.realpathSync(cwd), "out")}/[0-9a-f]{24}\\.png$`));
    expect(pngSize(saved)).toEqual({ width: 1024, height: 1024 });
    expect(r.stderr).toContain("Started 1 generation");
  }, 60_000);
});
