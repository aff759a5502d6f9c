/**
 * The WASM espeak-ng child kept between sentences (src/media/tts-wasm-server.ts): one child answers
 * one request after another, cancelling never leaves a WAV or a process behind, a child that ended
 * is replaced, and the child dies with the process that started it. Real child, real WASM module.
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readWavInfo } from "../../src/media/index.js";
import { espeakModuleUrl, wasmChildPath } from "../../src/media/tts-child-path.js";
import { speakWithChild } from "../../src/media/tts-wasm-server.js";
import { procStatFields } from "../../src/local/worker-registry.js";
import { tempDir } from "./media-fixtures.js";

const ARGS = ["-b", "1", "-v", "en-us", "-s", "175", "-p", "50"];
const DIST_TTS = fileURLToPath(new URL("../../dist/media/tts.js", import.meta.url));
let dir: string;
let script: string;
let moduleUrl: string;

beforeAll(() => {
  dir = tempDir();
  script = wasmChildPath()!;
  moduleUrl = espeakModuleUrl()!;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function speak(text: string, name: string, signal?: AbortSignal): Promise<void> {
  return speakWithChild(process.execPath, script, moduleUrl, { args: ARGS, text, out: path.join(dir, name) }, signal);
}

/** The TTS children of `parent` still running (a killed one may stay a zombie until reaped). */
function ttsChildren(parent = process.pid): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const f = procStatFields(entry);
    if (!f || Number(f[1]) !== parent || f[0] === "Z") continue;
    let cmd = "";
    try {
      cmd = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (cmd.includes("tts-wasm-child")) pids.push(Number(entry));
  }
  return pids;
}

function alive(pid: number): boolean {
  const f = procStatFields(String(pid));
  return f !== undefined && f[0] !== "Z";
}

const speechMs = (name: string): number => readWavInfo(path.join(dir, name))?.durationMs ?? 0;

describe.runIf(process.platform === "linux")("the kept WASM TTS child", () => {
  it("speaks one sentence after another in one child, and several asked at once in turn", async () => {
    await speak("The first sentence.", "a.wav");
    const [pid] = ttsChildren();
    expect(pid).toBeDefined();
    await speak("The second sentence, a little longer than the first.", "b.wav");
    await Promise.all([speak("Three.", "c.wav"), speak("Four at once.", "d.wav"), speak("And five, asked together.", "e.wav")]);
    expect(ttsChildren()).toEqual([pid]);
    for (const f of ["a.wav", "b.wav", "c.wav", "d.wav", "e.wav"]) expect(speechMs(f), f).toBeGreaterThan(300);
    expect(speechMs("b.wav")).toBeGreaterThan(speechMs("a.wav"));
  });

  it("drops a cancelled request that waits, and kills the child for the one it is speaking; nothing is written", async () => {
    const long = "A long sentence that takes the child a while to speak, so that others wait behind it. ".repeat(6);
    const waitAc = new AbortController();
    const first = speak(long, "long.wav");
    const queued = speak("Never spoken.", "queued.wav", waitAc.signal);
    waitAc.abort();
    await expect(queued).rejects.toMatchObject({ aborted: true });
    await first;
    expect(speechMs("long.wav")).toBeGreaterThan(5000);

    const [pid] = ttsChildren();
    const ac = new AbortController();
    const inFlight = speak(long, "cancelled.wav", ac.signal);
    setTimeout(() => ac.abort(), 30);
    await expect(inFlight).rejects.toMatchObject({ aborted: true });
    // Dead, so it can write nothing more.
    await expect.poll(() => alive(pid!)).toBe(false);
    expect(fs.existsSync(path.join(dir, "queued.wav"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "cancelled.wav"))).toBe(false);

    await speak("A new child for this one.", "after.wav");
    expect(speechMs("after.wav")).toBeGreaterThan(300);
    expect(ttsChildren()).not.toContain(pid);
  });

  it("replaces a child that ended between requests, even when the next request is already on its way", async () => {
    await speak("Before.", "before.wav");
    const [pid] = ttsChildren();
    // As when it times out idle just as a request is written: gone before its exit is seen here.
    process.kill(pid!, "SIGKILL");
    await speak("After its end.", "replaced.wav");
    expect(speechMs("replaced.wav")).toBeGreaterThan(300);
    expect(ttsChildren()).not.toContain(pid);
  });

  it("fails a request espeak cannot speak with espeak's message, and goes on with the next", async () => {
    const bad = speakWithChild(process.execPath, script, moduleUrl, { args: ["-v", "xx-nope"], text: "x", out: path.join(dir, "bad.wav") });
    await expect(bad).rejects.toMatchObject({ tool: "espeak-ng", stderrTail: expect.stringMatching(/voice/i) });
    await speak("Still speaking.", "still.wav");
    expect(speechMs("still.wav")).toBeGreaterThan(300);
  });

  it("ends with the process that started it, even a SIGKILLed one", async () => {
    const prog = [
      `const { synthesize } = await import(${JSON.stringify(DIST_TTS)});`,
      `await synthesize({ text: "Hello.", out: ${JSON.stringify(path.join(dir, "parent.wav"))} });`,
      `process.stdout.write("spoken\\n");`,
      `setInterval(() => {}, 1000);`,
    ].join("\n");
    const parent = spawn(process.execPath, ["--input-type=module", "-e", prog], {
      env: { ...process.env, MEDIAGEN_MEDIA_FALLBACK: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      parent.stdout.on("data", (d: Buffer) => d.toString().includes("spoken") && resolve());
      parent.on("exit", (code) => reject(new Error(`parent exited with ${code}`)));
    });
    const [pid] = ttsChildren(parent.pid);
    expect(pid).toBeDefined();
    parent.kill("SIGKILL");
    await expect.poll(() => alive(pid!)).toBe(false);
  });

  it("lets a command end at once: an idle child holds nothing open", async () => {
    const prog = `const { synthesize } = await import(${JSON.stringify(DIST_TTS)});\nawait synthesize({ text: "Bye.", out: ${JSON.stringify(path.join(dir, "bye.wav"))} });`;
    const started = Date.now();
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ["--input-type=module", "-e", prog], { env: { ...process.env, MEDIAGEN_MEDIA_FALLBACK: "1" }, timeout: 15_000 }, (e) =>
        e ? reject(e) : resolve(),
      ),
    );
    // The child's idle wait is 20 s: a command held by it would take that long.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(speechMs("bye.wav")).toBeGreaterThan(100);
  });
});
