/** Text rules of generation (pure): sentences, the TTS-rate estimate, script sequences, the local writer. */
import { describe, expect, it } from "vitest";
import { estimateSentenceMs, estimateSpeechMs, scriptSequences, splitSentences, MS_PER_CHAR, MS_PER_SENTENCE } from "../../src/features/generation/text.js";
import { keywordsOf, subjectOf, writeScript } from "../../src/features/generation/emulator/writer.js";

describe("sentences", () => {
  it("end at . ! ? … (with closing quotes) before white space, and at line breaks", () => {
    expect(splitSentences("Hello there. How are you?  Fine!\nNew line without stop\n\nWait… what?")).toEqual([
      "Hello there.",
      "How are you?",
      "Fine!",
      "New line without stop",
      "Wait…",
      "what?",
    ]);
    expect(splitSentences('He said "stop." Then left.')).toEqual(['He said "stop."', "Then left."]);
  });

  it("do not break numbers or dotted names, and keep stray punctuation with a sentence", () => {
    expect(splitSentences("It costs 3.5 dollars at example.com today. Really.")).toEqual(["It costs 3.5 dollars at example.com today.", "Really."]);
    expect(splitSentences("... and so it begins.")).toEqual(["... and so it begins."]);
    expect(splitSentences("   \n  ")).toEqual([]);
  });
});

describe("the estimate", () => {
  it("is 350 ms per sentence plus 55 ms per character (espeak-ng at 175 wpm)", () => {
    expect(estimateSentenceMs("Hello world.")).toBe(MS_PER_SENTENCE + 12 * MS_PER_CHAR);
    expect(estimateSpeechMs("Hello world. Hello world.")).toBe(2 * (MS_PER_SENTENCE + 12 * MS_PER_CHAR));
    expect(estimateSpeechMs("")).toBe(0);
  });
});

describe("script sequences", () => {
  it("are paragraphs cut into runs of at most two sentences", () => {
    expect(scriptSequences("One. Two. Three.\n\nFour.\n \nFive. Six.")).toEqual(["One. Two.", "Three.", "Four.", "Five. Six."]);
  });
});

describe("the local writer", () => {
  it("writes about the prompt's subject, deterministically", () => {
    const a = writeScript("Why cats purr, explained for kids", 30);
    expect(a).toBe(writeScript("Why cats purr, explained for kids", 30));
    expect(a).toMatch(/^Let's talk about why cats purr, explained for kids\./);
    expect(a).toMatch(/Thanks for watching, and see you next time\.$/);
    expect(subjectOf("Our new coffee grinder. Make it fun!")).toBe("our new coffee grinder");
    expect(keywordsOf("Why cats purr, explained for kids")).toEqual(["cats", "purr", "explained", "kids"]);
  });

  it("sizes the script to the requested duration (by the same estimate the start debited)", () => {
    for (const d of [10, 30, 60, 120, 300, 600]) {
      const ms = estimateSpeechMs(writeScript("A tour of the old harbour at sunrise", d));
      // Within half of one body sentence (about 4 s) of the target, whatever the length.
      expect(Math.abs(ms - d * 1000), `${d} s`).toBeLessThanOrEqual(2_500);
    }
  });
});
