/**
 * Text rules of generation, pure: sentences, how long speech will take, how a script is cut into
 * sequences. The estimate is what a start debits, so it is a pure function of the text.
 */

/** Whitespace collapsed, control characters removed (what the TTS is given). */
export function cleanText(s: string): string {
  return (
    s
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/**
 * Sentences of a text, each with its closing punctuation: a sentence ends at `.`, `!`, `?`, `…`
 * (and runs of them, and closing quotes or brackets after them) followed by white space, or at a
 * line break. Abbreviation-free on purpose: the TTS pauses at a full stop anyway.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    let carry = "";
    for (const part of line.split(/(?<=[.!?…]["'”’)\]]*)\s+/)) {
      const s = cleanText(carry + " " + part);
      // Punctuation alone ("..." opening a line) joins the next sentence instead of being spoken.
      if (!/[\p{L}\p{N}]/u.test(s)) {
        carry = s;
        continue;
      }
      carry = "";
      out.push(s);
    }
    if (carry && out.length) out[out.length - 1] = cleanText(out[out.length - 1] + " " + carry);
  }
  return out;
}

/**
 * The TTS rate the estimate assumes, measured on espeak-ng at its default 175 words a minute: about
 * 0.35 s per sentence (start and end silence) plus 55 ms per character (within 3 % on English prose;
 * French is a little faster, German a little slower).
 */
export const MS_PER_SENTENCE = 350;
export const MS_PER_CHAR = 55;

/** Estimated milliseconds of speech for one sentence. */
export function estimateSentenceMs(sentence: string): number {
  return MS_PER_SENTENCE + MS_PER_CHAR * cleanText(sentence).length;
}

/** Estimated milliseconds of speech for a text (sum over its sentences). */
export function estimateSpeechMs(text: string): number {
  return splitSentences(text).reduce((ms, s) => ms + estimateSentenceMs(s), 0);
}

/**
 * A script cut into the sequences of its one speech block: paragraphs (blank-line separated), each
 * cut into runs of at most `perSequence` sentences, so b-roll and looks change every few seconds.
 */
export function scriptSequences(script: string, perSequence = 2): string[] {
  const out: string[] = [];
  for (const para of script.split(/\n\s*\n/)) {
    const sentences = splitSentences(para);
    for (let i = 0; i < sentences.length; i += perSequence) out.push(sentences.slice(i, i + perSequence).join(" "));
  }
  return out;
}
