/**
 * The root help and the version have a fast entry of their own (bin/mediagen.js starts
 * dist/bundle/root-help.cjs for them; src/cli/root-help.ts): the built binary must print exactly what
 * the CLI prints in process, on the same stream with the same exit code, on a pipe and on terminals
 * of several widths (COLUMNS when the terminal reports none), with or without colour variables.
 * The full CLI, reached with any other word, prints the same root help too.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN, ROOT, newHome, run, runBin } from "./helpers.js";
import { runEnv } from "../helpers/cli.js";

const PTY = path.join(ROOT, "test", "cli", "fixtures", "pty-capture.py");
const home = newHome();

/** The built binary on a pseudo-terminal `columns` wide (0: one that reports no width). */
async function onTerminal(args: string[], columns: number, env: Record<string, string>): Promise<{ exitCode: number | null; output: string }> {
  const r = await execa("python3", [PTY, String(columns), "20", "--", process.execPath, BIN, ...args], {
    env: runEnv(home, env),
    extendEnv: false,
    reject: false,
    timeout: 30_000,
  });
  if (r.exitCode !== 0) throw new Error(`pty-capture.py failed: ${r.stderr}`);
  const out = JSON.parse(String(r.stdout)) as { exit: number | null; output: string; timed_out: boolean };
  expect(out.timed_out).toBe(false);
  return { exitCode: out.exit, output: out.output };
}

const WORDS: [string, string[], { exitCode: number; stream: "stdout" | "stderr" }][] = [
  ["--help", ["--help"], { exitCode: 0, stream: "stdout" }],
  ["-h", ["-h"], { exitCode: 0, stream: "stdout" }],
  ["no arguments", [], { exitCode: 2, stream: "stderr" }],
  ["--version", ["--version"], { exitCode: 0, stream: "stdout" }],
  ["-V", ["-V"], { exitCode: 0, stream: "stdout" }],
];

describe("the fast root help and version print what the CLI prints", () => {
  describe.each(WORDS)("mediagen %s", (_name, args, expected) => {
    it.each([
      ["no colour variable", {}],
      ["NO_COLOR=1", { NO_COLOR: "1" }],
      ["FORCE_COLOR=1, COLUMNS=50", { FORCE_COLOR: "1", COLUMNS: "50" }],
    ])("on a pipe, %s: same streams and exit code", async (_env, env) => {
      const [bin, inProcess] = await Promise.all([runBin(args, { home, env }), run(args, { home, env })]);
      expect(inProcess.exitCode).toBe(expected.exitCode);
      expect(inProcess[expected.stream]).not.toBe("");
      expect(inProcess[expected.stream === "stdout" ? "stderr" : "stdout"]).toBe("");
      expect({ exitCode: bin.exitCode, stdout: bin.stdout, stderr: bin.stderr }).toEqual({
        exitCode: inProcess.exitCode,
        stdout: inProcess.stdout,
        stderr: inProcess.stderr,
      });
    });

    it.each([
      [40, {}],
      [80, { FORCE_COLOR: "1" }],
      [132, { NO_COLOR: "1" }],
      // A terminal that reports no width: COLUMNS decides.
      [0, { COLUMNS: "50" }],
    ])("on a %i-column terminal (%j): same text and exit code", async (columns, env) => {
      const [bin, inProcess] = await Promise.all([onTerminal(args, columns, env), run(args, { home, env, tty: { stdout: true, stderr: true, columns } })]);
      expect(inProcess.exitCode).toBe(expected.exitCode);
      expect(bin).toEqual({ exitCode: inProcess.exitCode, output: inProcess.stdout + inProcess.stderr });
    });
  });

  it("the root help is fitted to the terminal (the widths above are not all the same text)", async () => {
    const narrow = await run(["--help"], { home, tty: { stdout: true, columns: 40 } });
    const wide = await run(["--help"], { home, tty: { stdout: true, columns: 132 } });
    expect(narrow.stdout).not.toBe(wide.stdout);
    expect(Math.max(...narrow.stdout.split("\n").map((l) => l.length))).toBeLessThanOrEqual(40);
  });

  it("the full CLI (another global option beside --help) prints the same root help as the fast entry", async () => {
    const fast = await runBin(["--help"], { home });
    const full = await runBin(["--no-input", "--help"], { home });
    expect(fast.exitCode).toBe(0);
    expect(full.exitCode).toBe(0);
    expect(fast.stdout).toContain("Usage: mediagen [options] [command]");
    expect(full.stdout).toBe(fast.stdout);
  });

  it("--version prints package.json's version", async () => {
    const { version } = (await import("../../package.json", { with: { type: "json" } })).default as { version: string };
    const r = await runBin(["--version"], { home });
    expect(r.stdout).toBe(`${version}\n`);
  });

  it("without its code cache (or with one this node rejects) the fast entry prints the same, compiled from source", async () => {
    // A copy of the fast entry without the cache file, beside a copy of package.json (for the version).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mediagen-rh-"));
    try {
      const bundle = path.join(dir, "dist", "bundle");
      fs.mkdirSync(bundle, { recursive: true });
      fs.copyFileSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"));
      for (const f of ["root-help.cjs", "root-help-body.cjs"]) fs.copyFileSync(path.join(ROOT, "dist", "bundle", f), path.join(bundle, f));
      expect(fs.readdirSync(path.join(ROOT, "dist", "bundle")).some((f) => /^root-help-body\.[0-9a-f]+\.cache$/.test(f))).toBe(true);
      for (const args of [["--help"], [], ["-V"]]) {
        const copy = await execa(process.execPath, [path.join(bundle, "root-help.cjs"), ...args], {
          env: runEnv(home),
          extendEnv: false,
          reject: false,
          stripFinalNewline: false,
        });
        const inProcess = await run(args, { home });
        expect(inProcess[args.length ? "stdout" : "stderr"]).toContain(args.length && args[0] === "-V" ? "." : "Usage: mediagen");
        expect({ exitCode: copy.exitCode, stdout: copy.stdout, stderr: copy.stderr }).toEqual({
          exitCode: inProcess.exitCode,
          stdout: inProcess.stdout,
          stderr: inProcess.stderr,
        });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
