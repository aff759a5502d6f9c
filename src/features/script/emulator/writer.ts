/**
 * The local script writer. It cannot imagine content, so it renders its inputs: the prompt's own
 * sentences, an extractive summary of the given pages (their sentences ranked by how much they share
 * with the prompt and with each other), and, when that is not enough to fill the requested duration,
 * plain spoken points about the topic built from a fixed phrase book. The length is fitted to the
 * duration at the local TTS speaking rate. Same input, same script.
 */
import type { PageContent } from "./html.js";
import { collapse, countWords, ensureTerminal, phrases, splitLong, splitSentences, stableHash, STOPWORDS, words } from "./text.js";

/**
 * Words per second of the local TTS (espeak-ng, voice en-us, its default 175 words per minute),
 * measured with src/media/tts.ts on English prose with its sentence pauses: 144 words in 46.8 s
 * (3.08/s) and 112 words in 38.0 s (2.94/s). See docs/local-differences.md.
 */
export const WORDS_PER_SECOND = 3;

export function targetWords(durationSeconds: number): number {
  return Math.max(1, Math.round(durationSeconds * WORDS_PER_SECOND));
}

export class ScriptWriterError extends Error {
  override readonly name = "ScriptWriterError";
}

/** Longest sentence the writer speaks in one go; longer ones are cut at clause marks. */
export const MAX_SENTENCE_WORDS = 32;
/** A topic longer than this is read out as a sentence rather than named in the opening. */
const TOPIC_MAX_WORDS = 24;
/** Page sentences shorter than this are menu items, captions or buttons rather than prose. */
const MIN_PAGE_SENTENCE_WORDS = 5;
const BOILERPLATE =
  /\b(cookies?|javascript|all rights reserved|privacy policy|terms of (use|service)|sign (up|in)|log ?in|subscribe|newsletter|click here|skip to|copyright)\b|©/i;

/** Writing instructions at the start of a prompt: what follows them is the topic. */
const SCRIPT_NOUNS = "script|video|voice-?over|narration|story|ad|advert(?:isement)?|explainer|post|reel|short|clip|presentation|pitch|commercial|promo";
const INSTRUCTION = new RegExp(
  String.raw`^(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:write|create|make|generate|draft|produce|prepare|compose|give\s+me|i\s+(?:need|want)|we\s+(?:need|want))\b` +
    String.raw`[^.!?]*?\b(?:${SCRIPT_NOUNS})s?(?:\s+(?:${SCRIPT_NOUNS})s?)*\b` +
    String.raw`(?:\s+(?:about|on|for|of|explaining|describing|introducing|presenting|showing|covering|that\s+explains|that\s+shows|to\s+explain|to\s+present|to\s+introduce|to\s+promote|promoting|advertising))?\s*[:,-]?\s*`,
  "i",
);
const TALK = /^(?:please\s+)?(?:write|talk|tell\s+(?:me|us|people|viewers)|speak)\s+(?:about|on)\s+/i;
const NOUN_FIRST = /^(?:an?\s+)?(?:(?:short|quick|brief|fun|funny|\d+[\s-]*(?:s|sec|second|minute)s?)\s+)*(?:video|script|explainer|ad|story)\s+(?:about|on|for)\s+/i;
/** "Summarise this: …", "Rewrite the notes below: …": what follows the colon is content. */
const LEADING_DIRECTION = /^(?:please\s+)?(?:summari[sz]e|rewrite|turn|convert|adapt|based\s+on)\b[^:.!?]{0,60}:\s*/i;
/** Prompt sentences that tell the writer how to write are not read out. */
const DIRECTION =
  /^(?:please\s+)?(?:make|keep|use|include|add|write|mention|avoid|focus|end|start|begin|target|aim|do\s+not|don't|no\s+more\s+than|limit|tone|style|audience|format|language|length|duration)\b/i;

export interface Topic {
  /** A noun phrase to talk about ("green tea", "how solar panels work"), or undefined. */
  text: string | undefined;
  /** Whether the first sentence was an instruction (it is then not read out). */
  fromInstruction: boolean;
}

/** The topic of a prompt whose first sentence is a writing instruction ("Write a script about X."). */
export function topicOf(firstSentence: string): Topic {
  const s = collapse(firstSentence);
  for (const re of [INSTRUCTION, TALK, NOUN_FIRST]) {
    const m = re.exec(s);
    if (!m) continue;
    let rest = s
      .slice(m[0].length)
      .replace(/[\s.!?…:;,]+$/u, "")
      .trim();
    // "… for 60 seconds", "… in 30 words": the length is not part of the topic.
    rest = rest.replace(/\s+(?:in|for|of|under|within)\s+(?:about\s+)?\d+\s*(?:s|sec|secs|seconds?|minutes?|words?)$/i, "").trim();
    // The topic is spoken mid-sentence: lower-case its first word unless it looks like a name.
    if (/^\p{Lu}\p{Ll}/u.test(rest) && STOPWORDS.has(rest.split(/\s+/)[0]!.toLowerCase())) rest = rest[0]!.toLowerCase() + rest.slice(1);
    return { text: countWords(rest) > 0 ? rest : undefined, fromInstruction: true };
  }
  return { text: undefined, fromInstruction: false };
}

interface Candidate {
  text: string;
  words: number;
  /** 0 for the prompt, 1… for the pages in request order. */
  source: number;
  index: number;
  score: number;
}

function pageSentences(page: PageContent): string[] {
  const out: string[] = [];
  for (const block of page.blocks) {
    const n = countWords(block);
    // Headings and menu entries: short blocks that do not end like a sentence.
    if (n < 8 && !/[.!?…]["'”’)\]]*$/u.test(block)) continue;
    for (const s of splitSentences(block)) {
      const k = countWords(s);
      if (k < MIN_PAGE_SENTENCE_WORDS || BOILERPLATE.test(s)) continue;
      const letters = (s.match(/\p{L}/gu) ?? []).length;
      if (letters < s.replace(/\s/g, "").length * 0.6) continue; // tables of numbers, code, URLs
      out.push(...splitLong(s, MAX_SENTENCE_WORDS));
    }
  }
  return out;
}

const norm = (s: string): string => words(s).join(" ").toLowerCase();

/**
 * Scores page sentences for an extractive summary: the share of their words that the prompt uses
 * (weighted 3) and that recur across the pages (centrality), favouring earlier sentences a little.
 */
function rankPages(pages: readonly string[][], promptWords: ReadonlySet<string>): Candidate[] {
  const freq = new Map<string, number>();
  for (const sentences of pages) {
    for (const s of sentences) {
      for (const w of new Set(words(s).map((x) => x.toLowerCase()))) {
        if (!STOPWORDS.has(w) && w.length > 2) freq.set(w, (freq.get(w) ?? 0) + 1);
      }
    }
  }
  const maxFreq = Math.max(1, ...freq.values());
  const out: Candidate[] = [];
  pages.forEach((sentences, p) => {
    sentences.forEach((text, index) => {
      const content = [...new Set(words(text).map((x) => x.toLowerCase()))].filter((w) => !STOPWORDS.has(w) && w.length > 2);
      let score = 0;
      for (const w of content) score += (promptWords.has(w) ? 3 : 0) + (freq.get(w) ?? 0) / maxFreq;
      score = score / Math.sqrt(Math.max(1, content.length)) + 1 / (1 + index * 0.1);
      out.push({ text, words: countWords(text), source: p + 1, index, score });
    });
  });
  return out;
}

// ---- the phrase book --------------------------------------------------------------------------------
// Every template takes its subject as an object, so a plural ("the benefits") or a name reads right.

const OPENINGS = ["Let's talk about {x}.", "Here is a quick look at {x}.", "Today, we are taking a closer look at {x}."];
const CLOSINGS = ["Now you know a little more about {x}.", "That was a quick look at {x}.", "And that is a short introduction to {x}."];
const THANKS = "Thanks for watching.";
const POINTS = [
  "Let's take a closer look at {x}.",
  "Think about the place of {x} in everyday life.",
  "Small details about {x} make a real difference.",
  "People often overlook {x}, and that is a mistake.",
  "Ask yourself what {x} could change for you.",
  "Take a moment to picture {x} in action.",
  "The simplest way to understand {x} is to start with the basics.",
  "Start small with {x} and build from there.",
  "Notice the links between {x} and everything else.",
  "A clear plan for {x} saves time later.",
  "You do not need to be an expert in {x} to begin.",
  "Focus on one part of {x} at a time.",
  "The best results with {x} come from steady habits.",
  "When it comes to {x}, the basics matter most.",
  "Keep {x} in mind as we go.",
  "Many people have questions about {x}.",
  "There is always more to learn about {x}.",
  "Understanding {x} is easier than it looks.",
  "That is the real value of {x}.",
  "It pays to know a little more about {x}.",
  "Here is one thing worth knowing about {x}.",
  "Give {x} a little of your time.",
];
/** Short lines with no subject, to land on the length when no point fits the last few words. */
const SHORT = [
  "It matters.",
  "Think about it.",
  "Keep that in mind.",
  "Let that sink in.",
  "That is worth knowing.",
  "And that is not all.",
  "Here is the thing to remember.",
];
const LEAD_INS = ["Also,", "Remember,", "In practice,", "Above all,", "On top of that,", "Over time,", "Put simply,", "In the end,", "Step by step,", "Most of all,"];

interface Subject {
  text: string;
}

const fill = (template: string, subject: Subject): string => template.replace("{x}", subject.text);

/**
 * The n-th spoken point. Templates turn fastest and subjects step so that every pair comes once
 * (23, one more than the number of templates, is prime); then everything again behind a lead-in.
 */
function point(n: number, seed: number, subjects: readonly Subject[]): { text: string; key: string } {
  const cycle = POINTS.length * subjects.length;
  const k = n % cycle;
  const t = (seed + k) % POINTS.length;
  const subject = subjects[(k + Math.floor(k / POINTS.length)) % subjects.length]!;
  const text = fill(POINTS[t]!, subject);
  const pass = Math.floor(n / cycle);
  const key = `${pass}:${t}:${subject.text}`;
  if (pass === 0) return { text, key };
  const lead = LEAD_INS[(seed + pass - 1) % LEAD_INS.length]!;
  return { text: `${lead} ${text[0]!.toLowerCase()}${text.slice(1)}`, key };
}

/**
 * Points that add up to `budget` words (± `tolerance`): in phrase-book order while the gap is wide; near
 * the end the point whose length is closest to the gap (one not said yet if possible), then a short
 * line for the last few words. `limit` bounds the steps.
 */
function fillPoints(budget: number, tolerance: number, subjects: readonly Subject[], seed: number, limit: number): string[] {
  const out: string[] = [];
  // A point is a template said of a subject; each pair is said once per pass.
  const used = new Set<string>();
  const saidBefore = (p: { key: string }) => used.has(p.key) || used.has(p.key.replace(/^\d+:/, "0:"));
  let total = 0;
  for (let n = 0; total < budget - tolerance && n < limit; n++) {
    const gap = budget - total;
    let pick: { text: string; key: string } | undefined = point(n, seed, subjects);
    if (countWords(pick.text) > gap + tolerance || gap < 16) {
      const closest = (skip: (p: { key: string }) => boolean) => {
        let best: { p: { text: string; key: string }; diff: number } | undefined;
        for (let k = n; k < n + POINTS.length * subjects.length; k++) {
          const p = point(k, seed, subjects);
          if (skip(p)) continue;
          const diff = Math.abs(gap - countWords(p.text));
          if (!best || diff < best.diff) best = { p, diff };
        }
        return best && countWords(best.p.text) <= gap + tolerance ? best.p : undefined;
      };
      const short = SHORT.filter((t) => !used.has(t) && countWords(t) <= gap + tolerance).sort(
        (a, b) => Math.abs(gap - countWords(a)) - Math.abs(gap - countWords(b)),
      )[0];
      pick = closest(saidBefore) ?? closest((p) => used.has(p.key)) ?? (short ? { text: short, key: short } : undefined);
      if (!pick) break;
    }
    if (used.has(pick.key)) continue;
    used.add(pick.key);
    out.push(pick.text);
    total += countWords(pick.text);
  }
  return out;
}

// ---- the writer ---------------------------------------------------------------------------------------

export interface WriterInput {
  prompt: string;
  duration: number;
  /** Pages that could be read, in request order. */
  pages: readonly PageContent[];
}

export interface WriterMaterial {
  topic: Topic;
  /** Sentences of the prompt that are read out (instructions left out). */
  promptSentences: string[];
  /** Readable sentences of each page, in page order. */
  pageSentences: string[][];
  subjects: Subject[];
  seed: number;
}

/** What the writer works from: shared by the extractive writer and the language-model brief. */
export function material(input: WriterInput): WriterMaterial {
  const blocks = input.prompt
    .split(/\r?\n+/)
    .map(collapse)
    .filter(Boolean);
  const sentences = blocks.flatMap(splitSentences);
  let topic: Topic = sentences.length ? topicOf(sentences[0]!) : { text: undefined, fromInstruction: false };
  const rest = topic.fromInstruction ? sentences.slice(1) : sentences;
  if (topic.text !== undefined && countWords(topic.text) > TOPIC_MAX_WORDS) {
    rest.unshift(topic.text);
    topic = { text: undefined, fromInstruction: true };
  }
  const promptSentences = rest
    .map((s) => s.replace(LEADING_DIRECTION, ""))
    .filter((s) => s !== "" && !DIRECTION.test(s))
    .flatMap((s) => splitLong(s, MAX_SENTENCE_WORDS));
  const pageSentencesList = input.pages.map(pageSentences);
  const seen = new Set<string>();
  const dedup = (list: string[]): string[] =>
    list.filter((s) => {
      const k = norm(s);
      if (!k || seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  const promptKept = dedup(promptSentences);
  const pagesKept = pageSentencesList.map(dedup);

  // What the points talk about: the topic when it is short, and the things the texts name most.
  const found = phrases(
    [
      { text: topic.text ? `About ${topic.text}.` : "", weight: 5 },
      { text: promptKept.join(" "), weight: 3 },
      ...input.pages.map((p) => ({ text: p.title ? `${p.title}.` : "", weight: 2 })),
      ...pagesKept.map((s) => ({ text: s.join(" "), weight: 1 })),
    ],
    4,
  );
  const subjects: Subject[] = [];
  const seenSubjects = new Set<string>();
  const addSubject = (text: string): void => {
    const k = text.toLowerCase().replace(/^the\s+/, "");
    if (seenSubjects.has(k)) return;
    seenSubjects.add(k);
    subjects.push({ text });
  };
  // A clause ("how solar panels work") opens and closes the script but makes poor points.
  const clause = topic.text !== undefined && /^(how|why|what|when|where|who|which|whether|if)\b/i.test(topic.text);
  if (topic.text && !clause && countWords(topic.text) <= 4) addSubject(topic.text);
  for (const p of found) addSubject(p.text);
  // Nothing named: the points speak of "this".
  if (!subjects.length) addSubject("this");
  return { topic, promptSentences: promptKept, pageSentences: pagesKept, subjects, seed: stableHash(input.prompt) };
}

/**
 * The extractive script: about `targetWords(duration)` words in paragraphs (opening and the
 * prompt's sentences; a summary of each page; points about the topic; closing). Throws
 * ScriptWriterError when the input has nothing to say anything about.
 */
export function writeExtractive(input: WriterInput): string {
  const m = material(input);
  const target = targetWords(input.duration);
  if (!words(input.prompt).length && !m.pageSentences.some((s) => s.length)) {
    throw new ScriptWriterError("the prompt has no words to write a script about");
  }
  // Opening and closing take at most half the script: a long topic gives way to the plain forms.
  const opening0 = m.topic.text ? fill(OPENINGS[m.seed % OPENINGS.length]!, { text: m.topic.text }) : "";
  const closing0 = m.topic.text ? `${fill(CLOSINGS[m.seed % CLOSINGS.length]!, { text: m.topic.text })} ${THANKS}` : THANKS;
  const frames: [string, string][] = [
    [opening0, closing0],
    [opening0, THANKS],
    ["", THANKS],
  ];
  const [opening, closing] = frames.find(([o, c]) => countWords(o) + countWords(c) <= target / 2) ?? ["", THANKS];
  const budget = target - countWords(opening) - countWords(closing);
  const tolerance = Math.max(2, Math.round(target * 0.05));

  // Prompt sentences first, in their order; then the page sentences by rank.
  const promptWordSet = new Set(words(input.prompt).map((w) => w.toLowerCase()));
  const candidates: Candidate[] = [
    ...m.promptSentences.map((text, index) => ({ text, words: countWords(text), source: 0, index, score: 1_000_000 - index })),
    ...rankPages(m.pageSentences, promptWordSet),
  ].sort((a, b) => b.score - a.score || a.source - b.source || a.index - b.index);
  const chosen: Candidate[] = [];
  let total = 0;
  for (const c of candidates) {
    if (total >= budget - tolerance) break;
    if (total + c.words <= budget + tolerance) {
      chosen.push(c);
      total += c.words;
    }
  }
  chosen.sort((a, b) => a.source - b.source || a.index - b.index);

  // Points about the topic fill what the sources did not.
  const points = fillPoints(budget - total, tolerance, m.subjects, m.seed, target * 4);

  const paragraphs: string[][] = [];
  const first = [opening, ...chosen.filter((c) => c.source === 0).map((c) => c.text)].filter(Boolean);
  if (first.length) paragraphs.push(first);
  for (let p = 1; p <= m.pageSentences.length; p++) {
    const fromPage = chosen.filter((c) => c.source === p).map((c) => c.text);
    for (let i = 0; i < fromPage.length; i += 5) paragraphs.push(fromPage.slice(i, i + 5));
  }
  for (let i = 0; i < points.length; i += 5) paragraphs.push(points.slice(i, i + 5));
  paragraphs.push([closing]);
  return paragraphs.map((ss) => ss.map((s) => ensureTerminal(s)).join(" ")).join("\n\n");
}

/** The images of the pages, in request order, each once. */
export function extractedImages(pages: readonly PageContent[]): string[] {
  return [...new Set(pages.flatMap((p) => p.images))];
}
