/** WAV headers: durations come from here (exact and free), never from a probe. */
import fs from "node:fs";

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataBytes: number;
  durationMs: number;
}

export function parseWav(head: Buffer, fileSize: number): WavInfo | undefined {
  if (head.length < 12 || head.toString("latin1", 0, 4) !== "RIFF" || head.toString("latin1", 8, 12) !== "WAVE") {
    return undefined;
  }
  let off = 12;
  let fmt: { sampleRate: number; channels: number; bits: number; byteRate: number } | undefined;
  while (off + 8 <= head.length) {
    const id = head.toString("latin1", off, off + 4);
    const size = head.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === "fmt " && body + 16 <= head.length) {
      fmt = {
        channels: head.readUInt16LE(body + 2),
        sampleRate: head.readUInt32LE(body + 4),
        byteRate: head.readUInt32LE(body + 8),
        bits: head.readUInt16LE(body + 14),
      };
    } else if (id === "data") {
      if (!fmt || fmt.byteRate === 0) return undefined;
      // Streamed WAVs carry a placeholder size; the file's real length is then the truth.
      const dataBytes = Math.min(size, Math.max(0, fileSize - body));
      return {
        sampleRate: fmt.sampleRate,
        channels: fmt.channels,
        bitsPerSample: fmt.bits,
        dataBytes,
        durationMs: (dataBytes / fmt.byteRate) * 1000,
      };
    }
    off = body + size + (size % 2);
  }
  return undefined;
}

export function readWavInfo(file: string): WavInfo | undefined {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    fs.readSync(fd, head, 0, head.length, 0);
    return parseWav(head, size);
  } finally {
    fs.closeSync(fd);
  }
}

/** A mono 16-bit PCM WAV header for `dataBytes` of samples at `sampleRate`. */
export function wavHeader(dataBytes: number, sampleRate = 22050): Buffer {
  const h = Buffer.alloc(44);
  h.write("RIFF", 0, "latin1");
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write("WAVE", 8, "latin1");
  h.write("fmt ", 12, "latin1");
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36, "latin1");
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** A valid WAV with no samples (what empty text synthesises to). */
export function silentWav(sampleRate = 22050): Buffer {
  return wavHeader(0, sampleRate);
}
