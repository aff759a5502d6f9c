/**
 * Plain-text tools of the script writer: words, sentences, terminal punctuation, keywords. Pure and
 * deterministic; no language model involved.
 */

const WORD = /[\p{L}\p{N}]+(?:['’\-.][\p{L}\p{N}]+)*/gu;

/** Words as a speaker says them, roughly: runs of letters and digits (`don't`, `e-mail`, `3.5` are one). */
export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

export function countWords(text: string): number {
  return words(text).length;
}

/** Whitespace collapsed to single spaces, control characters removed. */
export function collapse(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b\ufeff]/g, "")
      .replace(/\s+/g, " ")
      .trim()
  );
}

const TERMINAL = /[.!?…。！？]["'”’»)\]]*$/u;

/** The sentence with terminal punctuation (a period when it has none), so TTS ends it cleanly. */
export function ensureTerminal(sentence: string): string {
  const s = sentence.trim();
  if (s === "" || TERMINAL.test(s)) return s;
  return s.replace(/[\s,;:–—-]+$/u, "") + ".";
}

export function capitalize(s: string): string {
  return s.replace(/^(["'“‘(]*)(\p{Ll})/u, (_, pre: string, c: string) => pre + c.toUpperCase());
}

/** Abbreviations whose period does not end a sentence. */
const ABBREVIATIONS = new Set(
  "mr mrs ms dr prof sr jr st mt vs etc e.g i.e eg ie no nos fig figs inc ltd co corp dept est approx ca cf al jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun gen col lt sgt capt rev vol pp".split(
    " ",
  ),
);

/**
 * Sentences of a text. A period, `!`, `?` or `…` (with closing quotes or brackets) followed by
 * space ends a sentence unless it closes an abbreviation or an initial, or the next word starts in
 * lower case. Line breaks are treated as spaces; split blocks first when they matter.
 */
export function splitSentences(text: string): string[] {
  const t = collapse(text);
  if (!t) return [];
  const out: string[] = [];
  const boundary = /([.!?…。！？]+)(["'”’»)\]]*)\s+/gu;
  let start = 0;
  for (let m = boundary.exec(t); m; m = boundary.exec(t)) {
    const end = m.index + m[1]!.length + m[2]!.length;
    const before = t.slice(start, m.index);
    const lastWord = /([\p{L}.]+)$/u.exec(before)?.[1]?.toLowerCase() ?? "";
    const next = t.slice(m.index + m[0].length, m.index + m[0].length + 2);
    const isAbbrev = m[1] === "." && (ABBREVIATIONS.has(lastWord) || /^\p{L}$/u.test(lastWord) || /^(\p{L}\.)+\p{L}$/u.test(lastWord));
    const nextStartsLower = /^["'“‘(]?\p{Ll}/u.test(next);
    if (isAbbrev || nextStartsLower) continue;
    const s = t.slice(start, end).trim();
    if (s) out.push(s);
    start = m.index + m[0].length;
  }
  const rest = t.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/**
 * A sentence cut into pieces of at most `maxWords` words: at clause marks (`,` `;` `:` dashes)
 * when it can, else between words. Every piece is a sentence of its own, capitalised and ended.
 */
export function splitLong(sentence: string, maxWords: number): string[] {
  const s = collapse(sentence);
  if (countWords(s) <= maxWords) return s ? [ensureTerminal(capitalize(s))] : [];
  const clauses = s.split(/(?<=[,;:])\s+|\s+[–—-]\s+/u).filter((c) => c.trim() !== "");
  const pieces: string[] = [];
  let current: string[] = [];
  let n = 0;
  const flush = (): void => {
    if (current.length) pieces.push(current.join(" "));
    current = [];
    n = 0;
  };
  for (const clause of clauses) {
    const k = countWords(clause);
    if (k > maxWords) {
      flush();
      const tokens = clause.split(" ");
      let chunk: string[] = [];
      let m = 0;
      for (const tok of tokens) {
        const w = countWords(tok);
        if (m + w > maxWords && chunk.length) {
          pieces.push(chunk.join(" "));
          chunk = [];
          m = 0;
        }
        chunk.push(tok);
        m += w;
      }
      if (chunk.length) pieces.push(chunk.join(" "));
      continue;
    }
    if (n + k > maxWords) flush();
    current.push(clause);
    n += k;
  }
  flush();
  return pieces
    .map((p) => p.replace(/[\s,;:–—-]+$/u, ""))
    .filter((p) => countWords(p) > 0)
    .map((p) => ensureTerminal(capitalize(p)));
}

/** Common English words, and the words of writing instructions, that never make a keyword. */
export const STOPWORDS = new Set(
  (
    "a about above after again against all almost also although always am among an and another any anyone anything are " +
    "around as at away back be became because become been before being below between both but by can cannot could did " +
    "do does doing done down during each either else enough even ever every few for from further get gets getting give " +
    "given go goes going gone got had has have having he her here hers herself him himself his how however i if in into " +
    "is it its itself just keep know last least less let like made make makes making many may me might more most much " +
    "must my myself near need needs never new next no nor not now of off often on once one only onto or other others our " +
    "ours ourselves out over own per perhaps please put quite rather really same say says see seem seems several shall " +
    "she should show since so some something sometimes soon still such take than that the their theirs them themselves " +
    "then there these they thing things this those though through thus to too toward towards under until up upon us use " +
    "used using very via want was way ways we well were what whatever when where whether which while who whom whose why " +
    "will with within without would yet you your yours yourself yourselves " +
    // instructions to a writer
    "write written writing script scripts video videos create creating generate short long brief minute minutes second " +
    "seconds sec secs words word voiceover voice-over narration narrator tone style audience viewers viewer tiktok reel " +
    "reels youtube instagram post clip explainer ad ads advert include mention explain describe tell talk"
  ).split(" "),
);

/** Words that open a noun phrase. Articles become "the" in the phrase; the others are kept. */
const DETERMINERS = new Set("a an the our your my their his her its this these those".split(" "));
/** Words that say where or how much rather than what: never the whole of a phrase. */
const NOT_HEADS = new Set(
  "first second third fourth fifth last next half rest same other end start top bottom part lot lots number kind type sort way time times day days week weeks year years moment bit".split(
    " ",
  ),
);
/** Capitalised mid-sentence for other reasons than being a name. */
const NOT_NAMES = new Set(
  "january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday i".split(" "),
);

export interface Phrase {
  /** As it reads mid-sentence: "the second shop", "our bakery", "Lyon". */
  text: string;
  score: number;
  /** A name keeps its capital letters. */
  name: boolean;
}

const isContent = (w: string): boolean => {
  const k = w.toLowerCase();
  return k.length > 1 && !STOPWORDS.has(k) && !DETERMINERS.has(k) && /\p{L}/u.test(k);
};

/**
 * The things some weighted texts talk about, most frequent first: noun phrases opened by a
 * determiner ("a second shop" → "the second shop", "our bakery", "the benefits of green tea") and
 * names (capitalised words inside a sentence: "Lyon", "New York"). Without a part-of-speech tagger
 * this is a heuristic; it is deterministic (ties go to the phrase seen first).
 */
export function phrases(sources: readonly { text: string; weight: number }[], limit: number): Phrase[] {
  const stats = new Map<string, { text: string; score: number; first: number; name: boolean }>();
  let order = 0;
  const add = (text: string, weight: number, name: boolean): void => {
    const key = text.toLowerCase().replace(/^(the|a|an)\s+/, "");
    const st = stats.get(key) ?? { text, score: 0, first: order++, name };
    st.score += weight;
    stats.set(key, st);
  };
  for (const { text, weight } of sources) {
    for (const sentence of splitSentences(text)) {
      const ws = words(sentence);
      for (let i = 0; i < ws.length; i++) {
        const w = ws[i]!;
        const lower = w.toLowerCase();
        if (DETERMINERS.has(lower)) {
          const head: string[] = [];
          let j = i + 1;
          while (j < ws.length && head.length < 3 && isContent(ws[j]!) && !/^\p{N}/u.test(ws[j]!)) {
            // A word followed by a determiner or "to" is a verb ("our bakery opens a shop"); "-ly" is an adverb.
            const after = ws[j + 1]?.toLowerCase();
            if (head.length && ((after !== undefined && (DETERMINERS.has(after) || after === "to")) || /ly$/i.test(ws[j]!))) break;
            // "the shop sells bread": a word in -s after a singular noun, before another word, is a verb.
            const prev = head[head.length - 1]!;
            if (head.length && /[^s]s$/i.test(ws[j]!) && !/s$/i.test(prev) && after !== undefined && isContent(after)) break;
            head.push(ws[j++]!);
          }
          if (!head.length || (head.length === 1 && NOT_HEADS.has(head[0]!.toLowerCase()))) continue;
          // "the benefits of green tea": one "of" and up to two more words.
          if (ws[j]?.toLowerCase() === "of" && j + 1 < ws.length && isContent(ws[j + 1]!)) {
            const tail: string[] = [];
            let k = j + 1;
            while (k < ws.length && tail.length < 2 && isContent(ws[k]!)) tail.push(ws[k++]!);
            head.push("of", ...tail);
          }
          const det = lower === "a" || lower === "an" ? "the" : lower;
          add(`${det} ${head.join(" ")}`, weight, false);
          continue;
        }
        // Names: capitalised words inside the sentence (not its first word), in a run.
        if (i > 0 && /^\p{Lu}/u.test(w) && isContent(w) && !NOT_NAMES.has(lower)) {
          const run = [w];
          while (i + 1 < ws.length && /^\p{Lu}/u.test(ws[i + 1]!) && isContent(ws[i + 1]!)) run.push(ws[++i]!);
          add(run.join(" "), weight, true);
        }
      }
    }
  }
  return [...stats.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, limit)
    .map(({ text, score, name }) => ({ text, score, name }));
}

/** 32-bit FNV-1a: a stable small number from a text, to vary phrasing deterministically. */
export function stableHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
