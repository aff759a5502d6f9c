/**
 * The facts `probe` gives (duration, size, codecs, frame count, sample rate), read from an MP4's
 * `moov` box in this process. Only for files this program has just written (a render's or an
 * export's output, checked before it is renamed into place): starting ffprobe alone costs more than
 * the whole read (about 75 ms of CPU for Debian's build, most of it its dynamic linking). Anything it
 * cannot read (another container, a fragmented file, an unknown layout), or where ffprobe versions
 * would disagree, answers undefined and the caller asks ffprobe.
 * Files from elsewhere are always probed by ffprobe, behind its decode limits.
 */
import fs from "node:fs";
import type { ProbeResult } from "./probe.js";

/** moov boxes of our outputs are a few kB; more than this is not a file we wrote. */
const MAX_MOOV_BYTES = 16 * 1024 * 1024;

interface Box {
  type: string;
  /** Payload start and end, as offsets into the buffer the box was read from. */
  start: number;
  end: number;
}

function* boxes(buf: Buffer, start: number, end: number): Generator<Box> {
  let at = start;
  while (at + 8 <= end) {
    let size = buf.readUInt32BE(at);
    const type = buf.toString("latin1", at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) return;
      size = Number(buf.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end) return;
    yield { type, start: at + header, end: at + size };
    at += size;
  }
}

function child(buf: Buffer, parent: Box, type: string): Box | undefined {
  for (const b of boxes(buf, parent.start, parent.end)) if (b.type === type) return b;
  return undefined;
}

function path(buf: Buffer, parent: Box, ...types: string[]): Box | undefined {
  let b: Box | undefined = parent;
  for (const t of types) {
    b = b && child(buf, b, t);
    if (!b) return undefined;
  }
  return b;
}

/** Reads the top-level `moov` box without reading the media data around it. */
function readMoov(file: string): Buffer | undefined {
  const fd = fs.openSync(file, "r");
  try {
    const total = fs.fstatSync(fd).size;
    const head = Buffer.alloc(16);
    let at = 0;
    while (at + 8 <= total) {
      if (fs.readSync(fd, head, 0, 16, at) < 8) return undefined;
      let size = head.readUInt32BE(0);
      const type = head.toString("latin1", 4, 8);
      let header = 8;
      if (size === 1) {
        size = Number(head.readBigUInt64BE(8));
        header = 16;
      } else if (size === 0) {
        size = total - at;
      }
      if (size < header || at + size > total) return undefined;
      if (type === "moof") return undefined; // fragmented: the samples are not all in moov
      if (type === "moov") {
        if (size > MAX_MOOV_BYTES) return undefined;
        const moov = Buffer.alloc(size - header);
        if (fs.readSync(fd, moov, 0, moov.length, at + header) !== moov.length) return undefined;
        return moov;
      }
      at += size;
    }
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** timescale and duration of an mvhd payload (version 0 or 1). */
function timing(buf: Buffer, b: Box): { timescale: number; duration: number } | undefined {
  const version = buf.readUInt8(b.start);
  const need = version === 1 ? 32 : 20;
  if (b.end - b.start < need) return undefined;
  if (version === 1) return { timescale: buf.readUInt32BE(b.start + 20), duration: Number(buf.readBigUInt64BE(b.start + 24)) };
  return { timescale: buf.readUInt32BE(b.start + 12), duration: buf.readUInt32BE(b.start + 16) };
}

/** The MPEG-4 audio object types ffmpeg names "aac" (LC, HE, HEv2 all carry 0x40 in esds). */
function mp4aCodec(buf: Buffer, entry: Box): string {
  // The esds follows the 28-byte audio sample entry; its first descriptor byte after the tags tells.
  const esds = [...boxes(buf, entry.start + 28, entry.end)].find((b) => b.type === "esds");
  if (!esds) return "mp4a";
  const oti = findObjectType(buf, esds.start + 4, esds.end);
  return oti === 0x40 || oti === 0x66 || oti === 0x67 || oti === 0x68 ? "aac" : oti === 0x69 || oti === 0x6b ? "mp3" : "mp4a";
}

/** objectTypeIndication of the DecoderConfigDescriptor (tag 4) inside an ES_Descriptor (tag 3). */
function findObjectType(buf: Buffer, start: number, end: number): number | undefined {
  let at = start;
  const descriptor = (): { tag: number; start: number } | undefined => {
    if (at >= end) return undefined;
    const tag = buf.readUInt8(at++);
    for (let i = 0; i < 4 && at < end; i++) if ((buf.readUInt8(at++) & 0x80) === 0) break;
    return { tag, start: at };
  };
  const es = descriptor();
  if (es?.tag !== 3) return undefined;
  const flags = buf.readUInt8(at + 2);
  at += 3 + (flags & 0x80 ? 2 : 0);
  if (flags & 0x40) at += 1 + buf.readUInt8(at);
  if (flags & 0x20) at += 2;
  const dc = descriptor();
  return dc?.tag === 4 && at < end ? buf.readUInt8(at) : undefined;
}

const CODEC_NAMES: Record<string, string> = { avc1: "h264", avc3: "h264", hvc1: "hevc", hev1: "hevc", mp4v: "mpeg4", av01: "av1", vp09: "vp9" };

interface Track {
  kind: "vide" | "soun" | string;
  /** How long it plays, in the movie's timescale: its edit list's length, else the track header's. */
  presented?: number;
  codec?: string;
  width?: number;
  height?: number;
  sampleRate?: number;
  samples?: number;
}

/**
 * The track's length on the movie's timeline: the sum of its edit list's segments (an AAC track's
 * edit skips the encoder's priming samples), else the track header's duration.
 */
function presentedLength(buf: Buffer, trak: Box): number | undefined {
  const elst = path(buf, trak, "edts", "elst");
  if (elst && elst.end - elst.start >= 8) {
    const version = buf.readUInt8(elst.start);
    const count = buf.readUInt32BE(elst.start + 4);
    const entry = version === 1 ? 20 : 12;
    if (elst.start + 8 + count * entry > elst.end) return undefined;
    let total = 0;
    for (let i = 0; i < count; i++) {
      const at = elst.start + 8 + i * entry;
      total += version === 1 ? Number(buf.readBigUInt64BE(at)) : buf.readUInt32BE(at);
    }
    return total;
  }
  const tkhd = child(buf, trak, "tkhd");
  if (!tkhd || tkhd.end - tkhd.start < 32) return undefined;
  return buf.readUInt8(tkhd.start) === 1 ? Number(buf.readBigUInt64BE(tkhd.start + 28)) : buf.readUInt32BE(tkhd.start + 20);
}

function readTrack(buf: Buffer, trak: Box): Track | undefined {
  const hdlr = path(buf, trak, "mdia", "hdlr");
  const stbl = path(buf, trak, "mdia", "minf", "stbl");
  if (!hdlr || !stbl || hdlr.end - hdlr.start < 12) return undefined;
  const kind = buf.toString("latin1", hdlr.start + 8, hdlr.start + 12);
  const track: Track = { kind };
  const presented = presentedLength(buf, trak);
  if (presented !== undefined) track.presented = presented;
  const stsz = child(buf, stbl, "stsz");
  if (stsz && stsz.end - stsz.start >= 12) track.samples = buf.readUInt32BE(stsz.start + 8);
  const stsd = child(buf, stbl, "stsd");
  const entry = stsd ? boxes(buf, stsd.start + 8, stsd.end).next().value : undefined;
  if (!entry) return track;
  if (kind === "vide" && entry.end - entry.start >= 28) {
    track.codec = CODEC_NAMES[entry.type] ?? entry.type;
    track.width = buf.readUInt16BE(entry.start + 24);
    track.height = buf.readUInt16BE(entry.start + 26);
  } else if (kind === "soun" && entry.end - entry.start >= 28) {
    track.codec = entry.type === "mp4a" ? mp4aCodec(buf, entry) : entry.type;
    track.sampleRate = buf.readUInt32BE(entry.start + 24) >>> 16;
  }
  return track;
}

/** What `probe` would say of an MP4 this program wrote, or undefined when it cannot tell. */
export function mp4Info(file: string): ProbeResult | undefined {
  let moov: Buffer | undefined;
  try {
    moov = readMoov(file);
  } catch {
    return undefined;
  }
  if (!moov) return undefined;
  const root: Box = { type: "moov", start: 0, end: moov.length };
  try {
    // mvex: a fragmented file, whose samples are in moof boxes after this one.
    if (child(moov, root, "mvex")) return undefined;
    const mvhd = child(moov, root, "mvhd");
    const movie = mvhd && timing(moov, mvhd);
    if (!movie || movie.timescale <= 0) return undefined;
    const tracks = [...boxes(moov, 0, moov.length)].filter((b) => b.type === "trak").map((b) => readTrack(moov, b));
    if (tracks.some((t) => t === undefined)) return undefined;
    const v = tracks.find((t) => t!.kind === "vide");
    const a = tracks.find((t) => t!.kind === "soun");
    // ffprobe 5 and later report the movie header's length, 4.x the longest edit list: where the two
    // differ (some muxers count an AAC track's priming samples in the header), ffprobe is asked.
    const presented = tracks.map((t) => t!.presented);
    if (presented.some((p) => p === undefined) || Math.max(0, ...(presented as number[])) !== movie.duration) return undefined;
    return {
      durationSeconds: movie.duration / movie.timescale,
      width: v?.width,
      height: v?.height,
      videoCodec: v?.codec,
      audioCodec: a?.codec,
      audioSampleRate: a?.sampleRate,
      videoFrames: v?.samples,
      streams: tracks.length,
    };
  } catch {
    // A box shorter than its fields say: not one of ours.
    return undefined;
  }
}
