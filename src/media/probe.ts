/** probe: the facts renderers and callers check (duration, size, codecs) from one ffprobe run. */
import fs from "node:fs";
import path from "node:path";
import { RenderError } from "./errors.js";
import { DECODE_LIMIT_ARGS } from "./image-header.js";
import { checkFile } from "./inputs.js";
import { runTool } from "./run.js";
import { getTools, type Tools } from "./tools.js";

export interface ProbeResult {
  durationSeconds: number;
  width?: number;
  height?: number;
  videoCodec?: string;
  audioCodec?: string;
  audioSampleRate?: number;
  /** Number of frames of the first video stream when the container says (MP4 does). */
  videoFrames?: number;
  streams: number;
}

interface FfprobeJson {
  format?: { duration?: string };
  streams?: Array<{
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    sample_rate?: string;
    duration?: string;
    nb_frames?: string;
  }>;
}

function num(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * What ffprobe said of a file, by the file's identity and state (device, inode, size, modification
 * and change times): a worker renders the same inputs again and again (a preview then the export,
 * every sequence on one clip), and each ffprobe start costs more than the probe. Any write changes
 * the change time, so a changed file is probed again. Only answers are kept, at most MEMO_MAX.
 */
const memo = new Map<string, ProbeResult>();
const MEMO_MAX = 256;

function memoKey(file: string, tools: Tools): string | undefined {
  try {
    const st = fs.statSync(file, { bigint: true });
    return [tools.ffprobe, path.resolve(file), st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join("\0");
  } catch {
    return undefined;
  }
}

export async function probe(file: string, o: { signal?: AbortSignal; tools?: Tools } = {}): Promise<ProbeResult> {
  checkFile(file, "path");
  const tools = o.tools ?? (await getTools());
  const key = memoKey(file, tools);
  const known = key === undefined ? undefined : memo.get(key);
  if (known) return { ...known };
  const result = await probeNow(file, tools, o.signal);
  if (key !== undefined) {
    if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
    memo.set(key, result);
  }
  return { ...result };
}

async function probeNow(file: string, tools: Tools, signal: AbortSignal | undefined): Promise<ProbeResult> {
  const r = await runTool(tools.ffprobe, ["-v", "error", ...DECODE_LIMIT_ARGS, "-print_format", "json", "-show_format", "-show_streams", `file:${file}`], {
    signal,
  });
  let j: FfprobeJson;
  try {
    j = JSON.parse(r.stdout) as FfprobeJson;
  } catch {
    throw new RenderError(`ffprobe printed no JSON for ${file}`, { tool: "ffprobe" });
  }
  const streams = j.streams ?? [];
  const v = streams.find((s) => s.codec_type === "video");
  const a = streams.find((s) => s.codec_type === "audio");
  const duration = num(j.format?.duration) ?? Math.max(0, ...streams.map((s) => num(s.duration) ?? 0));
  return {
    durationSeconds: duration,
    width: v?.width,
    height: v?.height,
    videoCodec: v?.codec_name,
    audioCodec: a?.codec_name,
    audioSampleRate: num(a?.sample_rate),
    videoFrames: num(v?.nb_frames),
    streams: streams.length,
  };
}
