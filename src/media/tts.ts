/**
 * synthesize: text → WAV with espeak-ng. The native binary when present, else the npm WASM build in
 * a child process kept for the next sentence (tts-wasm-server.ts; GPL-3: never loaded into this
 * process). Results are cached by a hash of
 * everything that changes the audio, so re-rendering a video re-speaks nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { sha256, tempPathFor, removeQuietly } from "./atomic.js";
import { MediaInputError, RenderError } from "./errors.js";
import { checkOut } from "./inputs.js";
import { cleanText } from "./layout.js";
import { runTool } from "./run.js";
import { getTools, type Tools } from "./tools.js";
import { espeakModuleUrl } from "./tts-child-path.js";
import { speakWithChild } from "./tts-wasm-server.js";
import { readWavInfo, silentWav } from "./wav.js";

export interface SynthesizeOptions {
  text: string;
  out: string;
  /** espeak-ng voice name, e.g. `en-us`, `fr`, `de`, `es`, `en-us+f3`. Default `en-us`. */
  voice?: string;
  /** Words per minute, 80–450 (espeak's `-s`); default 175. Out-of-range values are clamped. */
  rate?: number;
  /** 0–99 (espeak's `-p`); default 50. Out-of-range values are clamped. */
  pitch?: number;
  /** Directory for cached WAVs; no caching without it. */
  cacheDir?: string;
  signal?: AbortSignal;
  tools?: Tools;
}

export const DEFAULT_VOICE = "en-us";
const VOICE_RE = /^[A-Za-z0-9][A-Za-z0-9_+\-/]{0,63}$/;

function clampInt(v: number | undefined, lo: number, hi: number, dflt: number): number {
  if (v === undefined || !Number.isFinite(v)) return dflt;
  return Math.min(hi, Math.max(lo, Math.round(v)));
}

/** Text espeak should read: control characters removed, whitespace collapsed. */
export function speechText(text: string): string {
  return cleanText(text ?? "");
}

export function ttsCacheKey(tools: Tools, voice: string, rate: number, pitch: number, text: string): string {
  return sha256(JSON.stringify([tools.tts.kind, tools.tts.version, voice, rate, pitch, text]));
}

async function copyAtomic(from: string, to: string): Promise<void> {
  const tmp = tempPathFor(to);
  try {
    fs.copyFileSync(from, tmp);
    fs.renameSync(tmp, path.resolve(to));
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  }
}

async function runEspeak(tools: Tools, args: string[], text: string, wavOut: string, signal?: AbortSignal): Promise<void> {
  try {
    if (tools.tts.kind === "native") {
      await runTool(tools.tts.command, [...args, "-w", wavOut, "--stdin"], { input: text, signal });
    } else {
      const moduleUrl = espeakModuleUrl();
      if (!moduleUrl) throw new RenderError("the espeak-ng npm package is missing", { tool: "espeak-ng" });
      await speakWithChild(process.execPath, tools.tts.command, moduleUrl, { args, text, out: path.resolve(wavOut) }, signal);
    }
  } catch (e) {
    if (e instanceof RenderError && /voice does not exist|Failed to read voice/i.test(e.stderrTail)) {
      throw new MediaInputError(`unknown espeak-ng voice: ${args[args.indexOf("-v") + 1]}`, "voice");
    }
    throw e;
  }
}

export async function synthesize(o: SynthesizeOptions): Promise<{ durationMs: number }> {
  checkOut(o.out, "out");
  const voice = o.voice ?? DEFAULT_VOICE;
  if (!VOICE_RE.test(voice)) throw new MediaInputError(`invalid voice name: ${JSON.stringify(voice)}`, "voice");
  const rate = clampInt(o.rate, 80, 450, 175);
  const pitch = clampInt(o.pitch, 0, 99, 50);
  const text = speechText(o.text);
  fs.mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });

  if (text === "") {
    const tmp = tempPathFor(o.out);
    fs.writeFileSync(tmp, silentWav());
    fs.renameSync(tmp, path.resolve(o.out));
    return { durationMs: 0 };
  }

  const tools = o.tools ?? (await getTools());
  const key = ttsCacheKey(tools, voice, rate, pitch, text);
  const cached = o.cacheDir ? path.join(o.cacheDir, `tts-${key}.wav`) : undefined;
  if (cached && fs.existsSync(cached)) {
    const info = readWavInfo(cached);
    if (info) {
      await copyAtomic(cached, o.out);
      return { durationMs: info.durationMs };
    }
    removeQuietly(cached); // unreadable entry: synthesise again
  }

  const tmp = tempPathFor(o.out);
  try {
    await runEspeak(tools, ["-b", "1", "-v", voice, "-s", String(rate), "-p", String(pitch)], text, tmp, o.signal);
    const info = readWavInfo(tmp);
    if (!info) throw new RenderError("espeak-ng wrote no readable WAV", { tool: "espeak-ng" });
    if (cached) {
      fs.mkdirSync(path.dirname(cached), { recursive: true });
      await copyAtomic(tmp, cached);
    }
    fs.renameSync(tmp, path.resolve(o.out));
    return { durationMs: info.durationMs };
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  }
}
