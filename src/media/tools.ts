/**
 * Finds ffmpeg, ffprobe and a TTS once per process and learns what this ffmpeg can do (what the
 * tools answered is remembered between processes: tools-memo.ts).
 * Order: explicit env overrides (MEDIAGEN_FFMPEG / MEDIAGEN_FFPROBE / MEDIAGEN_ESPEAK), then the
 * system PATH, then the npm fallbacks in node_modules. MEDIAGEN_MEDIA_FALLBACK=1 skips PATH so CI can
 * exercise the fallback path on a machine that has the system tools.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { readEnv, type Env } from "../config/env.js";
import { MediaToolError } from "./errors.js";
import { runnableNpmBinary } from "./npm-binary.js";
import { findFont } from "./font.js";
import { runTool } from "./run.js";
import { rememberedOutput } from "./tools-memo.js";
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
    cached = detectTools();
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

/** `env` defaults to this process's environment. */
export function whichOnPath(name: string, env?: Env): string | undefined {
  const dirs = readEnv("PATH", env).split(path.delimiter).filter(Boolean);
  const exts = process.platform === "win32" ? readEnv("PATHEXT", env) : [""];
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

/** Why an npm fallback found on disk cannot run (no execute bit, no copy possible): told when no tool works. */
const npmProblems = new Map<string, string>();

function npmBinary(pkg: string, name: "ffmpeg" | "ffprobe"): string | undefined {
  let file: string | undefined;
  try {
    const require = createRequire(import.meta.url);
    const mod = require(pkg) as { path?: string };
    if (mod.path && fs.existsSync(mod.path)) file = mod.path;
  } catch {
    // package missing or platform unsupported (it throws a plain string)
  }
  if (!file) return undefined;
  // npm 12 runs no install script of a dependency unless allowed: the package's `chmod u+x` may not have run.
  const runnable = runnableNpmBinary(file, name);
  if ("problem" in runnable) {
    npmProblems.set(name, runnable.problem);
    return undefined;
  }
  npmProblems.delete(name);
  return runnable.path;
}

interface Candidate {
  path: string;
  source: ToolSource;
}

function candidates(name: "ffmpeg" | "ffprobe", envVar: "MEDIAGEN_FFMPEG" | "MEDIAGEN_FFPROBE", npmPkg: string, env: Env | undefined): Candidate[] {
  const list: Candidate[] = [];
  const chosen = readEnv(envVar, env);
  if (chosen) return [{ path: chosen, source: "env" }];
  if (!readEnv("MEDIAGEN_MEDIA_FALLBACK", env)) {
    const p = whichOnPath(name, env);
    if (p) list.push({ path: p, source: "path" });
  }
  const n = npmBinary(npmPkg, name);
  if (n) list.push({ path: n, source: "npm" });
  return list;
}

/** A tool's answer to `args` (its stdout): remembered from an earlier process when the binary is the same (tools-memo.ts). */
export function toolAnswer(bin: string, args: string[]): Promise<string> {
  return rememberedOutput(bin, args, async () => (await runTool(bin, args)).stdout);
}

async function firstWorking(list: Candidate[]): Promise<{ c: Candidate; versionText: string } | undefined> {
  for (const c of list) {
    try {
      const versionText = await toolAnswer(c.path, ["-hide_banner", "-version"]);
      return { c, versionText };
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

async function detectTts(env: Env | undefined): Promise<Tools["tts"] | undefined> {
  const natives: string[] = [];
  const chosen = readEnv("MEDIAGEN_ESPEAK", env);
  if (chosen) natives.push(chosen);
  else if (!readEnv("MEDIAGEN_MEDIA_FALLBACK", env)) {
    const p = whichOnPath("espeak-ng", env);
    if (p) natives.push(p);
  }
  for (const cmd of natives) {
    try {
      const out = await toolAnswer(cmd, ["--version"]);
      const m = /text-to-speech:\s*(\S+)/.exec(out);
      return { kind: "native", command: cmd, version: `espeak-ng ${m ? m[1] : out.trim().slice(0, 40)}` };
    } catch {
      // fall through to the WASM build
    }
  }
  if (chosen) return undefined;
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

/** `env` defaults to this process's environment. */
async function detectTools(env?: Env): Promise<Tools> {
  const missing: string[] = [];
  const ff = await firstWorking(candidates("ffmpeg", "MEDIAGEN_FFMPEG", "@ffmpeg-installer/ffmpeg", env));
  if (!ff) missing.push("ffmpeg");
  const fp = await firstWorking(candidates("ffprobe", "MEDIAGEN_FFPROBE", "@ffprobe-installer/ffprobe", env));
  if (!fp) missing.push("ffprobe");
  const tts = await detectTts(env);
  if (!tts) missing.push("espeak-ng");
  if (!ff || !fp || !tts) {
    const overrides = (["MEDIAGEN_FFMPEG", "MEDIAGEN_FFPROBE", "MEDIAGEN_ESPEAK"] as const).filter((k) => readEnv(k, env));
    const note = overrides.length ? ` (${overrides.join(", ")} set: check ${overrides.length > 1 ? "they point" : "it points"} at a working binary)` : "";
    const npm = missing.flatMap((m) => npmProblems.get(m) ?? []);
    const why = npm.length ? ` (${npm.join("; ")})` : "";
    throw new MediaToolError(`media tools missing: ${missing.join(", ")}${note}${why}. ${INSTALL_HINT}`, missing);
  }
  const filters = parseFilters(await toolAnswer(ff.c.path, ["-hide_banner", "-filters"]));
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
