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
}
export interface PtyResult {
  exit: number | null;
  signal: number | null;
  steps_done: number;
  failed_step: { index: number; expect: string } | null;
  timed_out: boolean;
  screen: string;
}

export interface PtyOptions {
  home: string;
  cwd?: string;
  cols?: number;
  rows?: number;
  maxSeconds?: number;
  env?: Record<string, string | undefined>;
}

export async function onTerminal(args: string[], steps: Step[], o: PtyOptions): Promise<PtyResult> {
  const maxSeconds = o.maxSeconds ?? 40;
  const stepsFile = path.join(os.tmpdir(), `pty-steps-${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2)}.json`);
  fs.writeFileSync(stepsFile, JSON.stringify(steps));
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
