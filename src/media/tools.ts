/**
 * Finds ffmpeg, ffprobe and a TTS once per process and learns what this ffmpeg can do.
 * Order: explicit env overrides (MEDIAGEN_FFMPEG / MEDIAGEN_FFPROBE / MEDIAGEN_ESPEAK), then the
 * system PATH, then the npm fallbacks in node_modules. MEDIAGEN_MEDIA_FALLBACK=1 skips PATH so CI can
 * exercise the fallback path on a machine that has the system tools.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { MediaToolError } from "./errors.js";
import { findFont } from "./font.js";
import { runTool } from "./run.js";
import { wasmChildPath } from "./tts-child-path.js";

export type ToolSource = "path" | "npm" | "env";

export interface Tools {
  ffmpeg: string;
  ffprobe: string;
  ffmpegVersion: string;
  /** Where ffmpeg/ffprobe came from (the TTS has its own `tts.kind`). */
  source: ToolSource;
  filters: Set<string>;
  hasXfade: boolean;
  hasDrawtext: boolean;
  hasLibass: boolean;
  /** Absolute path of the font drawtext uses; "" when no font file was found (renders carry no text). */
  fontFile: string;
  /** `command` is the espeak-ng binary (native) or the child script run with node (wasm). */
  tts: { kind: "native" | "wasm"; command: string; version: string };
}

const INSTALL_HINT =
  "Install ffmpeg and espeak-ng (Debian/Ubuntu: `sudo apt-get install ffmpeg espeak-ng fonts-dejavu-core`; " +
  "macOS: `brew install ffmpeg espeak-ng`), or reinstall mediagen so its bundled fallbacks " +
  "(@ffmpeg-installer/ffmpeg, @ffprobe-installer/ffprobe, espeak-ng) are present, or point " +
  "MEDIAGEN_FFMPEG / MEDIAGEN_FFPROBE / MEDIAGEN_ESPEAK at working binaries.";

let cached: Promise<Tools> | undefined;

/** Cached once per process. */
export function getTools(): Promise<Tools> {
  if (!cached) {
    cached = detectTools(process.env);
    // A failure is not cached: the user may install the tool and retry in a long-running server.
    cached.catch(() => {
      cached = undefined;
    });
  }
  return cached;
}

/** Forgets the detected tools (tests that switch env between cases). */
export function clearToolsCache(): void {
  cached = undefined;
}

function fallbackForced(env: NodeJS.ProcessEnv): boolean {
  const v = env.MEDIAGEN_MEDIA_FALLBACK;
  return v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
}

export function whichOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext.toLowerCase());
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

function npmBinary(pkg: string): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const mod = require(pkg) as { path?: string };
    if (mod.path && fs.existsSync(mod.path)) return mod.path;
  } catch {
    // package missing or platform unsupported (it throws a plain string)
  }
  return undefined;
}

interface Candidate {
  path: string;
  source: ToolSource;
}

function candidates(
  name: "ffmpeg" | "ffprobe",
  envVar: string,
  npmPkg: string,
  env: NodeJS.ProcessEnv,
): Candidate[] {
  const list: Candidate[] = [];
  if (env[envVar]) return [{ path: env[envVar]!, source: "env" }];
  if (!fallbackForced(env)) {
    const p = whichOnPath(name, env);
    if (p) list.push({ path: p, source: "path" });
  }
  const n = npmBinary(npmPkg);
  if (n) list.push({ path: n, source: "npm" });
  return list;
}

async function firstWorking(
  list: Candidate[],
): Promise<{ c: Candidate; versionText: string } | undefined> {
  for (const c of list) {
    try {
      const r = await runTool(c.path, ["-hide_banner", "-version"]);
      return { c, versionText: r.stdout };
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

export function parseFilters(text: string): Set<string> {
  const set = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*[A-Z.|]{2,3}\s+([A-Za-z0-9_]+)\s+\S+->\S+/.exec(line);
    if (m) set.add(m[1]!);
  }
  return set;
}

export function parseFfmpegVersion(text: string): string {
  const m = /version\s+(\S+)/.exec(text);
  return m ? m[1]! : "unknown";
}

async function detectTts(env: NodeJS.ProcessEnv): Promise<Tools["tts"] | undefined> {
  const natives: string[] = [];
  if (env.MEDIAGEN_ESPEAK) natives.push(env.MEDIAGEN_ESPEAK);
  else if (!fallbackForced(env)) {
    const p = whichOnPath("espeak-ng", env);
    if (p) natives.push(p);
  }
  for (const cmd of natives) {
    try {
      const r = await runTool(cmd, ["--version"]);
      const m = /text-to-speech:\s*(\S+)/.exec(r.stdout);
      return { kind: "native", command: cmd, version: `espeak-ng ${m ? m[1] : r.stdout.trim().slice(0, 40)}` };
    } catch {
      // fall through to the WASM build
    }
  }
  if (env.MEDIAGEN_ESPEAK) return undefined;
  const child = wasmChildPath();
  const version = wasmPackageVersion();
  if (child && version) return { kind: "wasm", command: child, version: `espeak-ng-wasm ${version}` };
  return undefined;
}

function wasmPackageVersion(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pkgFile = require.resolve("espeak-ng/package.json");
    return (JSON.parse(fs.readFileSync(pkgFile, "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

async function detectTools(env: NodeJS.ProcessEnv): Promise<Tools> {
  const missing: string[] = [];
  const ff = await firstWorking(candidates("ffmpeg", "MEDIAGEN_FFMPEG", "@ffmpeg-installer/ffmpeg", env));
  if (!ff) missing.push("ffmpeg");
  const fp = await firstWorking(candidates("ffprobe", "MEDIAGEN_FFPROBE", "@ffprobe-installer/ffprobe", env));
  if (!fp) missing.push("ffprobe");
  const tts = await detectTts(env);
  if (!tts) missing.push("espeak-ng");
  if (!ff || !fp || !tts) {
    const overrides = ["MEDIAGEN_FFMPEG", "MEDIAGEN_FFPROBE", "MEDIAGEN_ESPEAK"].filter((k) => env[k]);
    const note = overrides.length ? ` (${overrides.join(", ")} set: check ${overrides.length > 1 ? "they point" : "it points"} at a working binary)` : "";
    throw new MediaToolError(`media tools missing: ${missing.join(", ")}${note}. ${INSTALL_HINT}`, missing);
  }
  const filtersOut = await runTool(ff.c.path, ["-hide_banner", "-filters"]);
  const filters = parseFilters(filtersOut.stdout);
  const source: ToolSource = ff.c.source === "env" || fp.c.source === "env" ? "env" : ff.c.source;
  return {
    ffmpeg: ff.c.path,
    ffprobe: fp.c.path,
    ffmpegVersion: parseFfmpegVersion(ff.versionText),
    source,
    filters,
    hasXfade: filters.has("xfade"),
    hasDrawtext: filters.has("drawtext"),
    hasLibass: filters.has("subtitles") || filters.has("ass"),
    fontFile: findFont(env) ?? "",
    tts,
  };
}
