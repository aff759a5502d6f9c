/**
 * The extractive script writer: length fitted to the duration at the local TTS rate (checked with
 * espeak-ng itself once), the pages' text used and summarised, images collected, every sentence
 * ended, the same input giving the same script.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PageContent } from "../../src/features/script/emulator/html.js";
import { countWords, splitSentences } from "../../src/features/script/emulator/text.js";
import { extractedImages, ScriptWriterError, targetWords, topicOf, WORDS_PER_SECOND, writeExtractive } from "../../src/features/script/emulator/writer.js";
import { synthesize } from "../../src/media/tts.js";

const page = (over: Partial<PageContent> = {}): PageContent => ({
  url: "https://rail.example/night-trains",
  title: "Night trains",
  blocks: [
    "The return of night trains",
    "Night trains are coming back across Europe as travellers look for greener ways to cross the continent.",
    "A sleeper from Vienna to Paris now runs three times a week, and bookings have doubled since last spring.",
    "Operators say the biggest challenge is finding enough modern sleeping cars for every route.",
    "Home",
    "Accept cookies to continue reading this article on our website today.",
    "Tickets | Timetable | 2025 | 12:30 | 14:45 | 17:00 | 19:15",
    "New sleeping cars with private cabins, showers and breakfast will arrive on the Vienna route next year.",
  ],
  images: ["https://rail.example/og.jpg", "https://rail.example/cabin.png"],
  ...over,
});

const PROMPTS = [
  "Write a script about the benefits of green tea for busy people.",
  "Our bakery opens a second shop in Lyon on May 3. We bake sourdough every morning. Keep it upbeat.",
  "hi",
  "Create a video explaining how solar panels work",
  "Écris un script sur le vélo en ville.",
  "A 30-second video about AI",
  "Summarise this: " + "Remote work changed how teams meet, plan and write things down. ".repeat(200),
];
const DURATIONS = [10, 11, 25, 45.5, 60, 61, 90, 180, 300, 600];

describe("length", () => {
  it(`is ${WORDS_PER_SECOND} words per second, within ±20 %, for every kind of prompt and duration, with and without pages`, () => {
    for (const prompt of PROMPTS) {
      for (const duration of DURATIONS) {
        for (const pages of [[], [page()]]) {
          const script = writeExtractive({ prompt, duration, pages });
          const n = countWords(script);
          const target = targetWords(duration);
          expect(
            Math.abs(n - target) / target,
            `${JSON.stringify(prompt.slice(0, 40))} ${duration} s, ${pages.length} page(s): ${n} words for ${target}`,
          ).toBeLessThanOrEqual(0.2);
        }
      }
    }
  });

  it("ends every sentence with punctuation and leaves no empty paragraph", () => {
    for (const prompt of PROMPTS) {
      const script = writeExtractive({ prompt, duration: 90, pages: [page()] });
      for (const para of script.split("\n\n")) {
        expect(para.trim()).not.toBe("");
        for (const s of splitSentences(para)) expect(s, s).toMatch(/[.!?…]["'”’)\]]*$/u);
      }
      expect(script).not.toMatch(/ {2}|[ \t]\n|\n[ \t]|\n{3}|^\s|\s$/);
    }
  });

  it("sounds as long as asked when espeak-ng reads it (60 s → 48 to 72 s)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-script-tts-"));
    try {
      const script = writeExtractive({ prompt: "Write a script about night trains in Europe.", duration: 60, pages: [page()] });
      const { durationMs } = await synthesize({ text: script, out: path.join(dir, "script.wav") });
      expect(durationMs).toBeGreaterThanOrEqual(48_000);
      expect(durationMs).toBeLessThanOrEqual(72_000);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("content", () => {
  it("opens on the topic of a writing instruction and does not read the instruction or directions out", () => {
    const script = writeExtractive({ prompt: "Write a script about the benefits of green tea. Keep it upbeat. Make it short.", duration: 30, pages: [] });
    expect(script).toMatch(/^(Let's talk about|Here is a quick look at|Today, we are taking a closer look at) the benefits of green tea\./);
    expect(script).not.toMatch(/Write a script|Keep it upbeat|Make it short/);
    expect(script).toMatch(/Thanks for watching\.$/);
  });

  it("drops a leading direction before a colon, and reads out a topic too long to name", () => {
    const notes = writeExtractive({ prompt: "Summarise this: Remote work changed how teams meet.", duration: 20, pages: [] });
    expect(notes.startsWith("Remote work changed how teams meet.")).toBe(true);
    expect(notes).not.toMatch(/Summarise/);
    const words30 = Array.from({ length: 30 }, (_, i) => `topic${i}`).join(" ");
    const long = writeExtractive({ prompt: `Write a script about ${words30}`, duration: 60, pages: [] });
    expect(long).not.toMatch(/^(Let's talk about|Here is a quick look at|Today)/);
    expect(long).toMatch(/^Topic0 topic1 /);
  });

  it("reads out a descriptive prompt's own sentences first", () => {
    const script = writeExtractive({ prompt: "Our bakery opens a second shop in Lyon on May 3. We bake sourdough every morning.", duration: 30, pages: [] });
    expect(script.startsWith("Our bakery opens a second shop in Lyon on May 3. We bake sourdough every morning.")).toBe(true);
  });

  it("uses the pages' sentences, leaving out headings, menus, boilerplate and tables", () => {
    const script = writeExtractive({ prompt: "Write a script about night trains.", duration: 60, pages: [page()] });
    expect(script).toContain("Night trains are coming back across Europe as travellers look for greener ways to cross the continent.");
    expect(script).toContain("A sleeper from Vienna to Paris now runs three times a week");
    expect(script).not.toMatch(/The return of night trains|cookies|Timetable|Home/);
  });

  it("summarises: when the pages say more than fits, the sentences closest to the prompt are kept, in page order", () => {
    const filler = Array.from({ length: 30 }, (_, i) => `Paragraph number ${i + 1} talks about the weather in a town that nobody visits anymore.`);
    const big = page({ blocks: [...filler.slice(0, 15), "Sleeping cars with private cabins are the reason travellers choose night trains.", ...filler.slice(15)] });
    const script = writeExtractive({ prompt: "Write a script about sleeping cars with private cabins.", duration: 20, pages: [big] });
    expect(script).toContain("Sleeping cars with private cabins are the reason travellers choose night trains.");
    expect(countWords(script)).toBeLessThanOrEqual(72);
  });

  it("cuts very long sentences into spoken ones", () => {
    const longSentence = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    const script = writeExtractive({ prompt: `Notes: ${longSentence}`, duration: 60, pages: [] });
    for (const s of splitSentences(script)) expect(countWords(s)).toBeLessThanOrEqual(40);
  });

  it("is deterministic, and varies with the input", () => {
    const input = { prompt: "Write a script about night trains.", duration: 45, pages: [page()] };
    expect(writeExtractive(input)).toBe(writeExtractive(structuredClone(input)));
    expect(writeExtractive({ ...input, prompt: "Write a script about sleeper trains." })).not.toBe(writeExtractive(input));
    expect(writeExtractive({ ...input, duration: 90 })).not.toBe(writeExtractive(input));
  });

  it("fails when there is not a single word to write about", () => {
    expect(() => writeExtractive({ prompt: "!!! 🎉 ???", duration: 60, pages: [] })).toThrow(ScriptWriterError);
    // A page with text is enough.
    expect(countWords(writeExtractive({ prompt: "🎉", duration: 10, pages: [page()] }))).toBeGreaterThan(20);
  });

  it("collects the pages' images in request order, each once", () => {
    const a = page();
    const b = page({ url: "https://b.example/", images: ["https://b.example/1.jpg", "https://rail.example/cabin.png"] });
    expect(extractedImages([a, b])).toEqual(["https://rail.example/og.jpg", "https://rail.example/cabin.png", "https://b.example/1.jpg"]);
    expect(extractedImages([])).toEqual([]);
  });
});

describe("topic of a prompt", () => {
  it.each([
    ["Write a script about green tea.", "green tea"],
    ["Please write a 60-second video script on the history of Rome", "the history of Rome"],
    ["Create a video explaining how solar panels work", "how solar panels work"],
    ["Make a TikTok ad for our new running shoes!", "our new running shoes"],
    ["Talk about remote work", "remote work"],
    ["A short video about The Beatles in 45 seconds.", "the Beatles"],
    ["Can you write a script for The office party?", "the office party"],
  ])("%s → %s", (sentence, topic) => {
    expect(topicOf(sentence)).toEqual({ text: topic, fromInstruction: true });
  });

  it("a sentence that is not an instruction has no topic and is read out", () => {
    expect(topicOf("Our bakery opens a second shop.")).toEqual({ text: undefined, fromInstruction: false });
    expect(topicOf("Write a script.")).toEqual({ text: undefined, fromInstruction: true });
  });
});

afterAll(() => undefined);
