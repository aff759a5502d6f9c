import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { getTools, MediaInputError, readWavInfo, synthesize, type Tools } from "../../src/media/index.js";
import { leftoverTemps, tempDir } from "./media-fixtures.js";

let tools: Tools;
let dir: string;

beforeAll(async () => {
  tools = await getTools();
  dir = tempDir();
});

describe("synthesize", () => {
  it("writes a WAV whose duration comes from its header and grows with the text", async () => {
    const short = path.join(dir, "short.wav");
    const long = path.join(dir, "long.wav");
    const sentence = "The quick brown fox jumps over the lazy dog.";
    const a = await synthesize({ text: sentence, out: short });
    const b = await synthesize({ text: Array(4).fill(sentence).join(" "), out: long });
    expect(a.durationMs).toBeGreaterThan(1000);
    expect(readWavInfo(short)!.durationMs).toBe(a.durationMs);
    expect(b.durationMs / a.durationMs).toBeGreaterThan(3);
    expect(b.durationMs / a.durationMs).toBeLessThan(5);
  });

  it.each(["en-us", "fr", "de", "es"])("speaks with voice %s", async (voice) => {
    const out = path.join(dir, `v-${voice}.wav`);
    const r = await synthesize({ text: "Bonjour, hallo, hola, hello.", out, voice });
    expect(r.durationMs).toBeGreaterThan(500);
  });

  it("speaks faster with a higher rate", async () => {
    const text = "Speaking rate changes how long this sentence takes to say.";
    const slow = await synthesize({ text, out: path.join(dir, "slow.wav"), rate: 120 });
    const fast = await synthesize({ text, out: path.join(dir, "fast.wav"), rate: 300 });
    expect(fast.durationMs).toBeLessThan(slow.durationMs * 0.7);
  });

  it("turns empty text into an empty WAV without running the TTS", async () => {
    const out = path.join(dir, "empty.wav");
    const r = await synthesize({ text: " \n\t ", out, tools: { ...tools, tts: { ...tools.tts, command: "/nonexistent/espeak" } } });
    expect(r.durationMs).toBe(0);
    expect(readWavInfo(out)!.durationMs).toBe(0);
  });

  it("caches by engine, voice, rate, pitch and text: a hit needs no TTS at all", async () => {
    const cacheDir = path.join(dir, "cache");
    const text = "Cache me if you can.";
    const first = await synthesize({ text, out: path.join(dir, "c1.wav"), cacheDir });
    expect(fs.readdirSync(cacheDir)).toHaveLength(1);
    const broken = { ...tools, tts: { ...tools.tts, command: "/nonexistent/espeak" } };
    const again = await synthesize({ text, out: path.join(dir, "c2.wav"), cacheDir, tools: broken });
    expect(again.durationMs).toBe(first.durationMs);
    expect(fs.readFileSync(path.join(dir, "c2.wav"))).toEqual(fs.readFileSync(path.join(dir, "c1.wav")));
    // Any other parameter is another entry, so it really runs (and fails with the broken tool).
    await expect(synthesize({ text, out: path.join(dir, "c3.wav"), cacheDir, tools: broken, pitch: 70 })).rejects.toThrow();
    await synthesize({ text, out: path.join(dir, "c4.wav"), cacheDir, voice: "fr" });
    expect(fs.readdirSync(cacheDir)).toHaveLength(2);
    expect(leftoverTemps(dir)).toEqual([]);
  });

  it("rejects unknown and malformed voices with the field named", async () => {
    await expect(synthesize({ text: "hi", out: path.join(dir, "x.wav"), voice: "xx-nope" })).rejects.toMatchObject({ name: "MediaInputError", field: "voice" });
    await expect(synthesize({ text: "hi", out: path.join(dir, "x.wav"), voice: "-w /etc/passwd" })).rejects.toBeInstanceOf(MediaInputError);
    expect(fs.existsSync(path.join(dir, "x.wav"))).toBe(false);
    expect(leftoverTemps(dir)).toEqual([]);
  });

  it("reads text that looks like options as text", async () => {
    const r = await synthesize({ text: "--help -v xx", out: path.join(dir, "opt.wav") });
    expect(r.durationMs).toBeGreaterThan(300);
  });

  it("never imports the GPL espeak-ng WASM package into this process", () => {
    const srcDir = fileURLToPath(new URL("../../src", import.meta.url));
    const offenders: string[] = [];
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith(".ts") && /(?:from|import\()\s*["']espeak-ng["']/.test(fs.readFileSync(p, "utf8"))) offenders.push(p);
      }
    };
    walk(srcDir);
    expect(offenders).toEqual([]);
  });
});
