/**
 * Burned-in subtitles as an ASS script: chunks of about four words, timed inside each sentence by
 * character weight (espeak-ng reports no word timings; this is about 0.2 s off on average). PlayResX/Y
 * equal the output size so font sizes and margins are in output pixels, and the font is named so
 * libass finds it in the `fontsdir` we pass (the bundled DejaVu Sans), not through system fontconfig.
 */
import type { RenderPlan } from "./spec.js";

export const SUBTITLE_FONT = "DejaVu Sans";
const WORDS_PER_CUE = 4;

export interface Cue {
  startMs: number;
  endMs: number;
  text: string;
}

/** Text as ASS shows it: override braces and backslashes removed, whitespace collapsed. */
export function assText(text: string): string {
  return (
    text
      .replace(/[{}\\]/g, "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** Splits [startMs, endMs) over ~4-word chunks of `text`, in proportion to their length. */
export function chunkCues(text: string, startMs: number, endMs: number): Cue[] {
  const words = assText(text).split(" ").filter(Boolean);
  if (words.length === 0 || endMs <= startMs) return [];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_CUE) chunks.push(words.slice(i, i + WORDS_PER_CUE).join(" "));
  // +2 per chunk: the pause between chunks takes time too, so short chunks are not flashed.
  const weights = chunks.map((c) => c.length + 2);
  const sum = weights.reduce((a, b) => a + b, 0);
  const cues: Cue[] = [];
  let acc = 0;
  chunks.forEach((c, i) => {
    const a = startMs + ((endMs - startMs) * acc) / sum;
    acc += weights[i]!;
    const b = i === chunks.length - 1 ? endMs : startMs + ((endMs - startMs) * acc) / sum;
    cues.push({ startMs: a, endMs: b, text: c });
  });
  return cues;
}

export function planCues(plan: RenderPlan): Cue[] {
  const cues: Cue[] = [];
  const msOf = (frame: number): number => (frame * 1000) / plan.fps;
  for (const p of plan.sequences) {
    const s = p.seq;
    if (s.sentences.length > 0) {
      for (const sen of s.sentences) cues.push(...chunkCues(sen.text, sen.start_ms, sen.end_ms));
    } else if (s.text) {
      // Speech given as block audio has no sentence times: spread the text over the sequence.
      cues.push(...chunkCues(s.text, msOf(p.start), msOf(p.start + p.frames)));
    }
  }
  return cues;
}

/** h:mm:ss.cc, as ASS wants (centiseconds). */
export function assTime(ms: number): string {
  let cs = Math.max(0, Math.round(ms / 10));
  const h = Math.floor(cs / 360000);
  cs -= h * 360000;
  const m = Math.floor(cs / 6000);
  cs -= m * 6000;
  const s = Math.floor(cs / 100);
  cs -= s * 100;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${String(cs).padStart(2, "0")}`;
}

export function buildAss(plan: Pick<RenderPlan, "W" | "H">, cues: Cue[]): string {
  const { W, H } = plan;
  // Portrait: a size that reads on a phone; landscape: relative to the shorter side.
  const fs = H >= W ? Math.round(H * 0.033) : Math.round(H * 0.055);
  const outline = Math.max(2, Math.floor(fs / 14));
  const marginH = Math.round(W * 0.055);
  const marginV = Math.round(H * 0.15);
  const lines = [
    "[Script Info]",
    "ScriptType: v4.00+",
    `PlayResX: ${W}`,
    `PlayResY: ${H}`,
    "WrapStyle: 0",
    "ScaledBorderAndShadow: yes",
    "",
    "[V4+ Styles]",
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
    `Style: Default,${SUBTITLE_FONT},${fs},&H00FFFFFF,&H000000FF,&H00000000,&H80000000,1,0,0,0,100,100,0,0,1,${outline},0,2,${marginH},${marginH},${marginV},1`,
    "",
    "[Events]",
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
  ];
  for (const c of cues) {
    const a = assTime(c.startMs);
    const b = assTime(c.endMs);
    if (a !== b) lines.push(`Dialogue: 0,${a},${b},Default,,0,0,0,,${c.text}`);
  }
  return lines.join("\n") + "\n";
}
