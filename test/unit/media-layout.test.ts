import { describe, expect, it } from "vitest";
import { cardLayout, cleanText, fitLine, tileGrid, wrapText } from "../../src/media/layout.js";
import { escapeFilterValue, even, hslHex, num } from "../../src/media/filtergraph.js";
import { textEm } from "../../src/media/textwidth.js";
import { parseFfmpegVersion, parseFilters } from "../../src/media/tools.js";
import { parseWav, silentWav } from "../../src/media/wav.js";
import { fitSpeech, resolveMode } from "../../src/media/video.js";

describe("text wrapping", () => {
  it("keeps every line within the width and loses no word", () => {
    const text = "A red fox jumps over the lazy dog while the northern lights dance above a frozen lake";
    for (const maxEm of [6, 10, 17.5, 40]) {
      const lines = wrapText(text, maxEm);
      for (const l of lines) expect(textEm(l)).toBeLessThanOrEqual(maxEm);
      expect(lines.join(" ")).toBe(text);
    }
  });

  it("splits words longer than a line", () => {
    const lines = wrapText("supercalifragilisticexpialidocious", 5);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.join("")).toBe("supercalifragilisticexpialidocious");
    for (const l of lines) expect(textEm(l)).toBeLessThanOrEqual(5);
  });

  it("cleans control characters and collapses whitespace", () => {
    expect(cleanText(" a\n\tb\u0000c   d ")).toBe("a b c d");
  });

  it("fits a line with an ellipsis only when it is too long", () => {
    expect(fitLine("short", 10)).toBe("short");
    const cut = fitLine("a much longer label than fits", 6);
    expect(cut.endsWith("…")).toBe(true);
    expect(textEm(cut)).toBeLessThanOrEqual(6);
  });

  it("measures capitals wider than lower case and CJK as one em", () => {
    expect(textEm("WWW")).toBeGreaterThan(textEm("iii"));
    expect(textEm("漢字")).toBe(2);
  });
});

describe("card layout", () => {
  const sizes: Array<[number, number]> = [
    [1024, 1024],
    [1280, 720],
    [720, 1280],
    [333, 77],
    [64, 64],
  ];
  it.each(sizes)("keeps text, label and tiles inside %ix%i", (width, height) => {
    const l = cardLayout({ width, height, prompt: "A lighthouse on a rocky coast at dusk ".repeat(4), label: "veo-3", tiles: 3 });
    for (const t of l.tiles) {
      expect(t.x).toBeGreaterThanOrEqual(0);
      expect(t.y).toBeGreaterThanOrEqual(0);
      expect(t.x + t.w).toBeLessThanOrEqual(width);
      expect(t.y + t.h).toBeLessThanOrEqual(height);
    }
    if (l.prompt) {
      const p = l.prompt;
      for (const line of p.lines) expect(p.x + textEm(line) * p.fontSize).toBeLessThanOrEqual(width);
      expect(p.y + p.lines.length * p.fontSize * 1.45).toBeLessThanOrEqual(height + 1);
    }
  });

  it("derives colours from the prompt: same prompt same colours, other prompt other colours", () => {
    const a = cardLayout({ width: 100, height: 100, prompt: "one", label: "", tiles: 0 });
    const b = cardLayout({ width: 100, height: 100, prompt: "one", label: "", tiles: 0 });
    const c = cardLayout({ width: 100, height: 100, prompt: "two", label: "", tiles: 0 });
    expect(b).toEqual(a);
    expect([c.background, ...c.shapes.map((s) => s.color)]).not.toEqual([a.background, ...a.shapes.map((s) => s.color)]);
  });

  it("truncates prompts that cannot fit with an ellipsis", () => {
    const l = cardLayout({ width: 320, height: 180, prompt: "word ".repeat(500), label: "", tiles: 0 });
    expect(l.prompt!.lines.at(-1)!.endsWith("…")).toBe(true);
  });

  it("lays out one row of tiles for up to 3 references and more rows beyond", () => {
    const area = { x: 0, y: 0, w: 300, h: 100 };
    expect(new Set(tileGrid(3, area, 2).map((t) => t.y)).size).toBe(1);
    expect(new Set(tileGrid(5, area, 2).map((t) => t.y)).size).toBe(2);
    expect(new Set(tileGrid(9, area, 2).map((t) => t.y)).size).toBe(3);
    expect(tileGrid(0, area, 2)).toEqual([]);
  });
});

describe("filtergraph helpers", () => {
  it.each([
    ["/plain/path.ttf", "/plain/path.ttf"],
    ["C:\\fonts\\a.ttf", "C\\\\:\\\\\\\\fonts\\\\\\\\a.ttf"],
    ["it's", "it\\\\\\'s"],
    ["a,b;c[d]", "a\\,b\\;c\\[d\\]"],
  ])("escapes %s", (input, expected) => {
    expect(escapeFilterValue(input)).toBe(expected);
  });

  it.each([
    [1, 2],
    [2, 2],
    [321, 322],
    [180, 180],
  ])("rounds %i up to even %i", (n, e) => expect(even(n)).toBe(e));

  it("prints numbers without exponents", () => {
    expect(num(1e-7)).toBe("0");
    expect(num(5)).toBe("5");
    expect(num(0.041666666)).toBe("0.041667");
  });

  it("converts HSL to hex", () => {
    expect(hslHex(0, 1, 0.5)).toBe("0xff0000");
    expect(hslHex(120, 1, 0.5)).toBe("0x00ff00");
    expect(hslHex(0, 0, 1)).toBe("0xffffff");
  });
});

describe("ffmpeg output parsing", () => {
  it("reads filter names from -filters output of old and new builds", () => {
    const text = [
      "Filters:",
      "  T.. = Timeline support",
      " ... acrossfade        AA->A      Cross fade two input audio streams.",
      " T.C drawtext          V->V       Draw text on top of video frames using libfreetype library.",
      " TSC xfade             VV->V      Cross fade one video with another video.",
      " ... color             |->V       Provide an uniformly colored input.",
    ].join("\n");
    expect([...parseFilters(text)].sort()).toEqual(["acrossfade", "color", "drawtext", "xfade"]);
  });

  it.each([
    ["ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026", "5.1.9-0+deb12u1"],
    ["ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/", "N-47683-g0e8eb07980-static"],
    ["garbage", "unknown"],
  ])("parses the version of %s", (text, v) => expect(parseFfmpegVersion(text)).toBe(v));
});

describe("WAV headers", () => {
  function wav(samples: number, rate: number, channels: number, extraChunk = false): Buffer {
    const data = Buffer.alloc(samples * channels * 2);
    const fmt = Buffer.alloc(24);
    fmt.write("fmt ", 0, "latin1");
    fmt.writeUInt32LE(16, 4);
    fmt.writeUInt16LE(1, 8);
    fmt.writeUInt16LE(channels, 10);
    fmt.writeUInt32LE(rate, 12);
    fmt.writeUInt32LE(rate * channels * 2, 16);
    fmt.writeUInt16LE(channels * 2, 20);
    fmt.writeUInt16LE(16, 22);
    const list = extraChunk ? Buffer.concat([Buffer.from("LIST", "latin1"), Buffer.from([5, 0, 0, 0]), Buffer.from("INFOx\0", "latin1")]) : Buffer.alloc(0);
    const dataHead = Buffer.alloc(8);
    dataHead.write("data", 0, "latin1");
    dataHead.writeUInt32LE(data.length, 4);
    const riff = Buffer.alloc(12);
    riff.write("RIFF", 0, "latin1");
    riff.write("WAVE", 8, "latin1");
    const all = Buffer.concat([riff, fmt, list, dataHead, data]);
    all.writeUInt32LE(all.length - 8, 4);
    return all;
  }
  it.each([
    [22050, 22050, 1, false, 1000],
    [48000, 24000, 2, false, 2000],
    [11025, 22050, 1, true, 500],
  ])("computes duration of %i samples at %i Hz x%i (extra chunk %s)", (samples, rate, ch, extra, ms) => {
    const b = wav(samples, rate, ch, extra);
    expect(parseWav(b, b.length)!.durationMs).toBeCloseTo(ms, 6);
  });
  it("falls back to the file size when the data size is a streaming placeholder", () => {
    const b = wav(22050, 22050, 1);
    b.writeUInt32LE(0x7fffffff, 40);
    expect(parseWav(b, b.length)!.durationMs).toBeCloseTo(1000, 6);
  });
  it("rejects non-WAV data and reads the silent WAV as zero", () => {
    expect(parseWav(Buffer.from("not a wav at all"), 16)).toBeUndefined();
    const s = silentWav();
    expect(parseWav(s, s.length)!.durationMs).toBe(0);
  });
});

describe("video planning", () => {
  it.each([
    [{}, "generate"],
    [{ startImage: "a" }, "generate"],
    [{ startImage: "a", endImage: "b" }, "first-last"],
    [{ sourceVideo: "v" }, "edit"],
    [{ motionVideo: "m", startImage: "a" }, "motion"],
    [{ mode: "upscale" as const, sourceVideo: "v" }, "upscale"],
  ])("infers mode from %o", (o, mode) => expect(resolveMode(o)).toBe(mode));

  it("cuts speech that cannot fit the duration at a word boundary", () => {
    const long = "word ".repeat(400);
    const fitted = fitSpeech(long, 4);
    expect(fitted.length).toBeLessThan(long.length);
    expect(fitted.length).toBeLessThanOrEqual(4 * 30 + 20);
    expect(fitted.endsWith("word")).toBe(true);
    expect(fitSpeech("short text", 4)).toBe("short text");
  });
});
