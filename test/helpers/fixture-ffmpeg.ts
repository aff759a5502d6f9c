/**
 * The ffmpeg that makes test inputs (solid pictures, tones, test-pattern clips): npm's static build
 * when it is installed (it always is: a dependency), else the tools' own. Debian's ffmpeg links 215
 * shared libraries and spends 80–100 ms of CPU loading them before it reads a frame; the static
 * build starts in a few. Only inputs are made with it: what mediagen renders is made, and checked,
 * with the tools under test.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";

let npmFfmpeg: string | null | undefined;

function staticFfmpeg(): string | null {
  if (npmFfmpeg === undefined) {
    try {
      const p = (createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg") as { path?: string }).path;
      npmFfmpeg = p && fs.existsSync(p) ? p : null;
    } catch {
      npmFfmpeg = null;
    }
  }
  return npmFfmpeg;
}

/** `tools` with the ffmpeg that makes inputs. */
export function fixtureTools<T extends { ffmpeg: string }>(tools: T): T {
  const ffmpeg = staticFfmpeg();
  return ffmpeg ? { ...tools, ffmpeg } : tools;
}

/** Makes an input: `ffmpeg -y <args>`, quiet, with the fixture ffmpeg. */
export function ff(tools: { ffmpeg: string }, args: string[]): void {
  execFileSync(fixtureTools(tools).ffmpeg, ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...args], { stdio: "pipe" });
}
