/**
 * Issue 11, what only a real process on a real terminal shows: no spinner on a terminal of 0
 * columns (ora would redraw forever), the process stops when its terminal goes away (SIGHUP, or the
 * terminal closed under it), and a download stopped by SIGHUP or SIGTERM leaves no partial file.
 * Stopped by SIGHUP or SIGTERM, the process reports, cleans up, then ends by that signal (a shell
 * shows 129 or 143): a normal exit under a vanished terminal makes node abort (SIGABRT).
 * The built binary (bin/mediagen.js → dist/) against the stub service; terminals are pseudo-terminals
 * driven by fixtures/pty-run.py.
 */
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, newHome, ROOT, startBin, type BinOptions } from "./helpers.js";
import { runEnv } from "../helpers/cli.js";
import { startStub, type Stub } from "./stub-service.js";

const KEY = "mg_live_" + "7e".repeat(32);
const PTY = path.join(ROOT, "test", "cli", "fixtures", "pty-run.py");
let stub: Stub;
let home: string;
const hosted = () => ["--target", "hosted", "--base-url", stub.root];
const opts = (): BinOptions => ({ home, env: { MEDIAGEN_API_KEY: KEY } });

interface PtyResult {
  exit: number | null;
  signal: number | null;
  bytes: number;
  head: string;
  tail: string;
  timed_out: boolean;
  seconds: number;
}

/** `mediagen <args>` on a pseudo-terminal of `cols` × `rows`, as an interactive user runs it (no CI). */
async function onTerminal(cols: number, rows: number, mode: string, args: string[], maxSeconds = 30): Promise<PtyResult> {
  const env = runEnv(home, { MEDIAGEN_API_KEY: KEY, CI: undefined, TERM: "xterm-256color", NO_COLOR: "1" });
  const r = await execa("python3", [PTY, String(cols), String(rows), String(maxSeconds), mode, "--", process.execPath, BIN, ...args], {
    env,
    extendEnv: false,
    reject: false,
    timeout: (maxSeconds + 10) * 1000,
  });
  if (r.exitCode !== 0) throw new Error(`pty-run.py failed: ${r.stderr}`);
  return JSON.parse(String(r.stdout)) as PtyResult;
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

beforeAll(async () => {
  stub = await startStub();
  home = newHome();
});
afterAll(() => stub?.close());

// Each test runs its own process on its own ids (a terminal, a signal, a download): they run at the same time.
describe.concurrent("on a terminal, and when it goes away", () => {
  describe("a terminal of 0 columns", () => {
    it("gets no spinner: the wait ends at its timeout (exit 8) and writes a few lines, not megabytes", async () => {
      const r = await onTerminal(0, 0, "run", [...hosted(), "asset", "status", "pend-30", "--watch", "--timeout", "500ms"]);
      expect(r.timed_out, r.head).toBe(false);
      expect(r.exit, r.tail).toBe(8);
      expect(r.bytes).toBeLessThan(4_000);
      expect(r.head).not.toMatch(SPINNER);
      expect(r.tail).toContain("Resume with: mediagen");
    });

    it("(the same wait on an 80-column terminal does show the spinner)", async () => {
      const r = await onTerminal(80, 24, "run", [...hosted(), "asset", "status", "pend-31", "--watch", "--timeout", "500ms"]);
      expect(r.exit, r.tail).toBe(8);
      expect(r.head + r.tail).toMatch(SPINNER);
    });
  });

  describe("the terminal goes away", () => {
    it.each([
      [80, 24],
      [0, 0],
    ])("closed under a waiting command (%i columns): the process stops at once, by SIGHUP, not by an abort", async (cols, rows) => {
      const r = await onTerminal(cols, rows, `hangup:pend-32-${cols}`, [...hosted(), "asset", "status", `pend-32-${cols}`, "--watch"]);
      expect(r.timed_out).toBe(false);
      expect(r.signal).toBe(1);
      expect(r.seconds).toBeLessThan(8);
    });

    it("SIGHUP on the terminal while waiting: the resume command is printed before the process ends", async () => {
      const r = await onTerminal(80, 24, "sighup:pend-34", [...hosted(), "asset", "status", "pend-34", "--watch"]);
      expect(r.timed_out).toBe(false);
      expect(r.signal).toBe(1);
      expect(r.tail).toContain(`Resume with: mediagen --target hosted --base-url ${stub.root} asset status pend-34 --watch`);
    });

    it("SIGHUP while waiting, off a terminal: stops waiting, prints the ids and the resume command, ends by SIGHUP", async () => {
      const from = stub.requests.length;
      const child = startBin([...hosted(), "asset", "status", "pend-33", "--watch", "--json"], opts());
      for (let i = 0; i < 600 && !stub.requests.slice(from).includes("GET /asset/status/pend-33"); i++) await new Promise((r) => setTimeout(r, 50));
      child.kill("SIGHUP");
      const r = await child.result;
      expect(r.signal, r.stderr).toBe("SIGHUP");
      expect(r.stderr).toContain(`Resume with: mediagen --target hosted --base-url ${stub.root} asset status pend-33 --watch`);
      expect(r.json()).toMatchObject({ asset_id: "pend-33" });
    });
  });

  describe("a download stopped by SIGHUP or SIGTERM leaves no partial file", () => {
    it.each(["SIGHUP", "SIGTERM"] as const)("%s during a download: nothing left in the directory, how to resume, then ends by the signal", async (sig) => {
      const dir = path.join(newHome(), "out");
      const id = `slow-${sig}`;
      const child = startBin([...hosted(), "asset", "status", id, "--download", dir], opts());
      const partial = () => fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.endsWith(".part"));
      for (let i = 0; i < 600 && !partial(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(partial()).toBe(true);
      child.kill(sig);
      const r = await child.result;
      expect(r.signal, r.stderr).toBe(sig);
      expect(fs.readdirSync(dir)).toEqual([]);
      expect(r.stderr).toContain(`asset status ${id} --watch --download ${dir}`);
    });
  });
});
