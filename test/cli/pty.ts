/**
 * `mediagen <args>` on a real pseudo-terminal (fixtures/pty-script.py), as a person at a terminal
 * runs it (no CI, NO_COLOR): each step waits for a text on screen, then types its keys.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { runEnv } from "../helpers/cli.js";
import { BIN, ROOT } from "./helpers.js";

const PTY = path.join(ROOT, "test", "cli", "fixtures", "pty-script.py");
export const KEY = { ENTER: "\r", DOWN: "\u001b[B", UP: "\u001b[A", CTRL_C: "\u0003" } as const;

export interface Step {
  expect?: string;
  send?: string;
  /** This step's quiet time (see PtyOptions.quietMs). */
  quiet_ms?: number;
}
export interface PtyResult {
  exit: number | null;
  signal: number | null;
  steps_done: number;
  failed_step: { index: number; expect: string } | null;
  timed_out: boolean;
  screen: string;
  /** Everything written, escapes included (see replayScreen). */
  raw: string;
}

export interface PtyOptions {
  home: string;
  cwd?: string;
  cols?: number;
  rows?: number;
  maxSeconds?: number;
  env?: Record<string, string | undefined>;
  /**
   * How long the command must have stopped drawing before a step types its keys, for steps that do
   * not say (pty-script.py's own default: 120 ms). A prompt of @inquirer/prompts listens for keys as
   * soon as it has drawn, so a wizard's steps can use a short one.
   */
  quietMs?: number;
}

export async function onTerminal(args: string[], steps: Step[], o: PtyOptions): Promise<PtyResult> {
  const maxSeconds = o.maxSeconds ?? 40;
  const stepsFile = path.join(os.tmpdir(), `pty-steps-${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2)}.json`);
  const timed = o.quietMs === undefined ? steps : steps.map((s) => ({ quiet_ms: o.quietMs, ...s }));
  fs.writeFileSync(stepsFile, JSON.stringify(timed));
  const env = runEnv(o.home, { CI: undefined, TERM: "xterm-256color", NO_COLOR: "1", ...o.env });
  try {
    const r = await execa("python3", [PTY, String(o.cols ?? 100), String(o.rows ?? 30), String(maxSeconds), stepsFile, "--", process.execPath, BIN, ...args], {
      env,
      cwd: o.cwd ?? o.home,
      extendEnv: false,
      reject: false,
      timeout: (maxSeconds + 10) * 1000,
    });
    if (r.exitCode !== 0) throw new Error(`pty-script.py failed: ${r.stderr}`);
    return JSON.parse(String(r.stdout)) as PtyResult;
  } finally {
    fs.rmSync(stepsFile, { force: true });
  }
}

/**
 * What a terminal shows after `raw` is written to it, line by line, as far as a CLI draws: carriage
 * return, erase in line (`ESC[K`, `ESC[2K`), cursor to a column (`ESC[nG`), cursor up (`ESC[nA`),
 * newline. Other escapes are dropped. Lines are NOT wrapped at the width, so a line longer than the
 * terminal's columns is one the terminal would have wrapped.
 */
export function replayScreen(raw: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => (lines[row] ??= []);
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === "\u001b") {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are what is parsed here
      const m = /^\u001b\[([0-9;?]*)([A-Za-z])/.exec(raw.slice(i, i + 16)) ?? /^\u001b\][^\u0007]*\u0007/.exec(raw.slice(i, i + 200));
      if (!m) continue;
      i += m[0].length - 1;
      const n = Number(m[1] || "0");
      if (m[2] === "K") {
        if (n === 2) lines[row] = [];
        else line().length = Math.min(line().length, col);
      } else if (m[2] === "G") col = Math.max(0, (n || 1) - 1);
      else if (m[2] === "A") row = Math.max(0, row - (n || 1));
      continue;
    }
    if (ch === "\r") col = 0;
    else if (ch === "\n") {
      row++;
      col = 0;
      line();
    } else {
      const l = line();
      while (l.length < col) l.push(" ");
      l[col++] = ch;
    }
  }
  return lines.map((l) => (l ?? []).join("").trimEnd());
}
