/**
 * The ffmpeg and ffprobe the tests use as instruments: to make inputs (solid pictures, tones,
 * test-pattern clips) and to read what mediagen wrote (frames as RGB, audio levels, a result's
 * streams). npm's static builds when they are installed (they always are: dependencies), else the
 * tools' own. Debian's ffmpeg links 215 shared libraries and spends 80–100 ms of CPU loading them
 * before it reads a frame; the static builds start in a few. What mediagen renders is still made with
 * the tools under test; reading it with another build checks that it plays outside the renderer too.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { getTools, probe, type ProbeResult } from "../../src/media/index.js";

const require = createRequire(import.meta.url);
const found = new Map<string, string | null>();

function staticBuild(pkg: string): string | null {
  if (!found.has(pkg)) {
    let p: string | null = null;
    try {
      const at = (require(pkg) as { path?: string }).path;
      p = at && fs.existsSync(at) ? at : null;
    } catch {
      p = null;
    }
    found.set(pkg, p);
  }
  return found.get(pkg)!;
}

/** `tools` with the instruments' ffmpeg and ffprobe (each where npm's static build is installed). */
export function fixtureTools<T extends { ffmpeg: string; ffprobe?: string }>(tools: T): T {
  const ffmpeg = staticBuild("@ffmpeg-installer/ffmpeg");
  const ffprobe = staticBuild("@ffprobe-installer/ffprobe");
  return { ...tools, ...(ffmpeg ? { ffmpeg } : {}), ...(ffprobe && tools.ffprobe !== undefined ? { ffprobe } : {}) };
}

/** Makes an input: `ffmpeg -y <args>`, quiet, with the fixture ffmpeg. */
export function ff(tools: { ffmpeg: string }, args: string[]): void {
  execFileSync(fixtureTools(tools).ffmpeg, ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...args], { stdio: "pipe" });
}

/** What a file mediagen wrote holds, read by mediagen's probe() with the instruments' ffprobe. */
export async function probeOutput(file: string): Promise<ProbeResult> {
  return probe(file, { tools: fixtureTools(await getTools()) });
}
