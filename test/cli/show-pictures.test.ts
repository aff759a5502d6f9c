/**
 * Issue 27: `--show` draws what a command saves in the terminal — kitty's graphics protocol or an
 * iTerm2 inline image, chosen from what the terminal announces (TERM, TERM_PROGRAM, LC_TERMINAL,
 * KITTY_WINDOW_ID) — and writes nothing of the kind on other terminals, in tmux, or on a pipe. The
 * built CLI runs on a real pseudo-terminal (fixtures/pty-raw.py) so every byte it writes is seen.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { BIN, ROOT, newHome, run } from "./helpers.js";
import { runEnv } from "../helpers/cli.js";

const PTY = path.join(ROOT, "test", "cli", "fixtures", "pty-raw.py");
const ITERM = "\x1b]1337;File=";
const KITTY = "\x1b_Ga=T,f=100";
const PNG_B64 = "iVBORw0KGgo"; // a PNG's signature, in base64

/** No terminal identity inherited from whoever runs the tests. */
const PLAIN = { TERM: "xterm-256color", TERM_PROGRAM: undefined, LC_TERMINAL: undefined, KITTY_WINDOW_ID: undefined, TMUX: undefined };

async function onTerminal(home: string, args: string[], env: Record<string, string | undefined>): Promise<{ exit: number | null; output: string }> {
  const r = await execa("python3", [PTY, "100", "40", "60", "--", process.execPath, BIN, ...args], {
    env: runEnv(home, { ...PLAIN, ...env }),
    extendEnv: false,
    reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`pty-raw.py failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as { exit: number | null; output_b64: string; timed_out: boolean };
  expect(j.timed_out).toBe(false);
  return { exit: j.exit, output: Buffer.from(j.output_b64, "base64").toString("latin1") };
}

describe("--show: pictures in the terminal", () => {
  let home: string;
  let image: string;
  let video: string;
  let out: string;

  beforeAll(async () => {
    home = newHome();
    out = path.join(home, "out");
    const a = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a red fox", "--watch", "-q"], { home, timeoutMs: 60_000 });
    expect(a.exitCode, a.stderr).toBe(0);
    image = a.stdout.trim();
    const v = await run(["asset", "start", "--type", "video", "--model", "vidA-3-fast", "--duration", "4", "--prompt", "a blue wave", "--watch", "-q"], {
      home,
      timeoutMs: 90_000,
    });
    expect(v.exitCode, v.stderr).toBe(0);
    video = v.stdout.trim();
  }, 150_000);

  it("download --show on iTerm2 writes an inline image of the saved file", async () => {
    const r = await onTerminal(home, ["download", image, "--dir", out, "--force", "--show"], { TERM_PROGRAM: "iTerm.app" });
    expect(r.exit).toBe(0);
    expect(r.output).toContain(`${ITERM}name=`);
    const b64 = r.output.slice(r.output.indexOf(ITERM)).split(":")[1]!.split("\x07")[0]!;
    expect(Buffer.from(b64, "base64").equals(fs.readFileSync(path.join(out, fs.readdirSync(out).find((f) => f.startsWith(image))!)))).toBe(true);
  }, 60_000);

  it("on kitty (TERM or KITTY_WINDOW_ID) the kitty graphics escape carries a PNG; a video is shown by its first frame", async () => {
    const r = await onTerminal(home, ["download", image, "--dir", out, "--force", "--show"], { TERM: "xterm-kitty" });
    expect(r.exit).toBe(0);
    expect(r.output).toContain(`${KITTY},c=40,q=2,m=`);
    expect(r.output).toContain(`;${PNG_B64}`);
    const v = await onTerminal(home, ["download", video, "--dir", out, "--force", "--show"], { KITTY_WINDOW_ID: "1" });
    expect(v.exit).toBe(0);
    expect(v.output).toContain(KITTY);
    expect(v.output).toContain(`;${PNG_B64}`);
  }, 60_000);

  it("a start with --download --show draws what it saved; history --show draws the saved files it lists", async () => {
    const s = await onTerminal(home, ["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a green owl", "--download", out, "--show"], {
      LC_TERMINAL: "iTerm2",
    });
    expect(s.exit).toBe(0);
    expect(s.output).toContain(ITERM);
    const h = await onTerminal(home, ["history", "--show"], { TERM_PROGRAM: "WezTerm" });
    expect(h.exit).toBe(0);
    const saved = JSON.parse((await run(["history", "--json"], { home })).stdout).filter((e: { saved: string | null }) => e.saved).length;
    expect(saved).toBeGreaterThanOrEqual(3);
    expect(h.output.split(ITERM).length - 1).toBe(saved);
  }, 90_000);

  it("says nothing on a terminal that announces no support, in tmux, with --json, or on a pipe", async () => {
    for (const env of [{}, { TERM: "xterm-kitty", TMUX: "/tmp/tmux-0/default,1,0" }, { TERM: "dumb" }]) {
      const r = await onTerminal(home, ["download", image, "--dir", out, "--force", "--show"], env);
      expect(r.exit, JSON.stringify(env)).toBe(0);
      expect(r.output, JSON.stringify(env)).toContain(path.join(out, image));
      expect(r.output).not.toContain("\x1b]1337");
      expect(r.output).not.toContain("\x1b_G");
    }
    const json = await onTerminal(home, ["download", image, "--dir", out, "--force", "--show", "--json"], { TERM_PROGRAM: "iTerm.app" });
    expect(json.output).not.toContain("\x1b]1337");
    const piped = await execa(process.execPath, [BIN, "download", image, "--dir", out, "--force", "--show"], {
      env: runEnv(home, { ...PLAIN, TERM_PROGRAM: "iTerm.app", TERM: "xterm-kitty" }),
      extendEnv: false,
      reject: false,
    });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout.trim()).toBe(path.join(out, fs.readdirSync(out).find((f) => f.startsWith(image))!));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the iTerm2 and kitty picture escapes must be absent from piped output
    expect(piped.stdout + piped.stderr).not.toMatch(/\x1b\]1337|\x1b_G/);
  }, 90_000);
});
