/**
 * The local script writer of prompt-based generation (the SCRIPT_GENERATION step). The hosted
 * service writes with a language model; the local instance cannot, so it writes a deterministic
 * script about the prompt's subject, in English, sized so that its estimated speech (text.ts, the
 * same estimate the start debited) is as close as possible to the requested duration. Same prompt
 * and duration, same script.
 */
import { cleanText, estimateSentenceMs } from "../text.js";

const STOP = new Set(
  "a an the and or but of for to in on at by with from about into over under this that these those is are was were be been it its our your their my his her we you they i me us them make video short clip create generate please".split(
    " ",
  ),
);

/** The subject: the prompt's first clause, without a trailing full stop, lower-cased at the start. */
export function subjectOf(prompt: string): string {
  const first =
    cleanText(prompt)
      .split(/[.!?;:\n]/)[0]!
      .trim() || cleanText(prompt);
  const short = first.length > 80 ? first.slice(0, 80).replace(/\s+\S*$/, "") : first;
  return short.charAt(0).toLowerCase() + short.slice(1);
}

/** Words of the prompt worth a sentence of their own, in order of first appearance. */
export function keywordsOf(prompt: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of cleanText(prompt)
    .toLowerCase()
    .match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []) {
    if (w.length < 4 || STOP.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

const BODY: ((subject: string, word: string, n: number) => string)[] = [
  (s) => `Here is what makes ${s} worth your time.`,
  (_s, w) => `It starts with ${w}, and everything else follows from it.`,
  (s) => `Most people overlook one simple thing about ${s}.`,
  (_s, w) => `Think about ${w} for a moment, and picture the difference it makes.`,
  (_s, _w, n) => `Tip number ${n}: keep it simple, and do it every day.`,
  (s) => `The best results with ${s} come from small, steady steps.`,
  (_s, w) => `When ${w} is done right, you notice it right away.`,
  (s) => `Ask yourself what ${s} could change for you this week.`,
  (_s, _w, n) => `Step ${n} is easy: try it once, then make it a habit.`,
  (_s, w) => `People who care about ${w} tend to see results sooner.`,
];

const INTRO = (s: string) => `Let's talk about ${s}.`;
const OUTRO = "Thanks for watching, and see you next time.";

/** A script about `prompt` whose estimated speech is as close as it gets to `durationSeconds`. */
export function writeScript(prompt: string, durationSeconds: number): string {
  const subject = subjectOf(prompt) || "this idea";
  const words = keywordsOf(prompt);
  const target = durationSeconds * 1000;
  const sentences = [INTRO(subject)];
  let ms = estimateSentenceMs(sentences[0]!) + estimateSentenceMs(OUTRO);
  for (let i = 0; ; i++) {
    const word = words.length ? words[i % words.length]! : subject;
    const next = BODY[i % BODY.length]!(subject, word, Math.floor(i / BODY.length) + 1);
    const with_ = ms + estimateSentenceMs(next);
    // Stop when one more sentence would overshoot by more than stopping now undershoots.
    if (with_ - target > target - ms) break;
    sentences.push(next);
    ms = with_;
  }
  sentences.push(OUTRO);
  // Paragraphs of four sentences: the script reads like one, and sequences follow paragraphs.
  const paragraphs: string[] = [];
  for (let i = 0; i < sentences.length; i += 4) paragraphs.push(sentences.slice(i, i + 4).join(" "));
  return paragraphs.join("\n\n");
}
