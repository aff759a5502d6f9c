/**
 * A plan as a timeline people can read (`mediagen plan show`, the wizard's running summary): each
 * block with its voice and look, each sequence with its estimated start and end (speech estimated
 * from the text at the TTS rate, silences as written), the look that applies (sequence, else block),
 * its action and media, and the plan's length and price. Pure.
 */
import { estimateGenerate } from "../estimate.js";
import { planHasMedia, type PlanBlock, type PlanMedia } from "../plan.js";
import { estimateSpeechMs } from "../text.js";

export interface TimelineSequence {
  index: number;
  text: string | null;
  silent: boolean;
  start_ms: number;
  end_ms: number;
  /** Estimated (spoken) or written (silent) length. */
  duration_ms: number;
  look_id: string | null;
  /** Where the look comes from: the sequence, its block, or the request (`generate --avatar`). */
  look_from: "sequence" | "block" | "request";
  action: string | null;
  media: PlanMedia | null;
}

export interface TimelineBlock {
  index: number;
  voice_id: string | null;
  look_id: string | null;
  audio_url: string | null;
  silent: boolean;
  start_ms: number;
  end_ms: number;
  sequences: TimelineSequence[];
}

export interface PlanTimeline {
  blocks: TimelineBlock[];
  total_ms: number;
  /** Automatic b-roll fills the slots only when no sequence has media. */
  automatic_broll: boolean;
  estimated_credits: number | null;
  /** True when the target computes exactly this figure. */
  exact: boolean;
}

export function planTimeline(blocks: readonly PlanBlock[], target: "local" | "hosted"): PlanTimeline {
  let t = 0;
  const out: TimelineBlock[] = blocks.map((b, i) => {
    const start = t;
    const sequences = b.sequences.map((s, j): TimelineSequence => {
      const d = s.text === null ? (s.duration_ms ?? 0) : estimateSpeechMs(s.text);
      const seq: TimelineSequence = {
        index: j,
        text: s.text,
        silent: s.text === null,
        start_ms: t,
        end_ms: t + d,
        duration_ms: d,
        look_id: s.look_id ?? b.look_id,
        look_from: s.look_id !== null ? "sequence" : b.look_id !== null ? "block" : "request",
        action: s.action,
        media: s.media,
      };
      t += d;
      return seq;
    });
    return {
      index: i,
      voice_id: b.voice_id,
      look_id: b.look_id,
      audio_url: b.audio_url,
      silent: b.sequences.every((s) => s.text === null),
      start_ms: start,
      end_ms: t,
      sequences,
    };
  });
  const est = estimateGenerate({ sequence_plan: blocksAsPlan(blocks) }, target);
  return { blocks: out, total_ms: t, automatic_broll: !planHasMedia(blocks), estimated_credits: est.credits, exact: est.exact };
}

/** The normalised blocks back as a plan (nulls dropped), as the wizard saves it. */
export function blocksAsPlan(blocks: readonly PlanBlock[]): Record<string, unknown>[] {
  return blocks.map((b) => {
    const o: Record<string, unknown> = {};
    if (b.voice_id !== null) o.voice_id = b.voice_id;
    if (b.look_id !== null) o.look_id = b.look_id;
    if (b.audio_url !== null) o.audio_url = b.audio_url;
    if (b.avatar_id !== null) o.avatar_id = b.avatar_id;
    o.sequences = b.sequences.map((s) => {
      const q: Record<string, unknown> = { text: s.text };
      if (s.text === null && s.duration_ms !== null) q.duration_ms = s.duration_ms;
      if (s.look_id !== null) q.look_id = s.look_id;
      if (s.action !== null) q.action = s.action;
      if (s.media !== null) q.media = { ...s.media };
      return q;
    });
    return o;
  });
}

/** `m:ss.s` */
export function clock(ms: number): string {
  const s = ms / 1000;
  const m = Math.floor(s / 60);
  return `${m}:${(s - m * 60).toFixed(1).padStart(4, "0")}`;
}

const seconds = (ms: number) => `${(Math.round(ms / 100) / 10).toFixed(1)} s`;

/** The text quoted, cut at `max` characters with "…" (between words when one ends in the last third). */
function quote(text: string, max: number): string {
  if (text.length <= max) return `"${text}"`;
  const cut = text.slice(0, Math.max(1, max - 1));
  const space = cut.lastIndexOf(" ");
  const t = space >= (cut.length * 2) / 3 ? cut.slice(0, space).replace(/[\s,;:.]+$/, "") : cut;
  return `"${t}…"`;
}

/** An id of the service (`vc_emma`, `lk_maya_kitchen`), maybe in brackets or before a comma: never cut. */
const ID_WORD = /^\(?[A-Za-z]+_[\w-]+\)?[,.;:]?$/;

/** A word longer than `room` (a link, a path) shortened in its middle, its end (the file's name) kept; an id stays whole. */
function shortenWord(word: string, room: number): string {
  if (word.length <= room || room < 8 || ID_WORD.test(word)) return word;
  const head = Math.floor((room - 1) * 0.4);
  return `${word.slice(0, head)}…${word.slice(word.length - (room - 1 - head))}`;
}

/**
 * A line fitted to `width` columns: broken between words (a "·" stays with the word after it, so no
 * line ends with one), each further line indented by the line's own leading spaces plus `indent`; a
 * word too long for a line is shortened in its middle, an id never. Unchanged when the width is unknown.
 */
export function wrapWords(text: string, width: number, indent = "  "): string[] {
  if (!Number.isFinite(width) || width <= 0 || text.length <= width) return [text];
  const lead = /^ */.exec(text)![0];
  const words: string[] = [];
  for (const w of text.slice(lead.length).split(/ +/)) {
    const prev = words[words.length - 1];
    if (prev === "·") words[words.length - 1] = `· ${w}`;
    else words.push(w);
  }
  const out: string[] = [];
  let line = lead;
  let empty = true;
  const rest = width - lead.length - indent.length;
  for (const word of words) {
    // A word too long for any line (a link) is shortened where it is, when some room is left there.
    const inPlace = word.length > rest && !ID_WORD.test(word) && width - line.length - 1 >= 20;
    if (!empty && !inPlace && line.length + 1 + word.length > width) {
      out.push(line);
      line = lead + indent;
      empty = true;
    }
    const w = shortenWord(word, width - line.length - (empty ? 0 : 1));
    line = empty ? line + w : `${line} ${w}`;
    empty = false;
  }
  out.push(line);
  return out;
}

/**
 * Parts of a line joined by " · " within `width`: a part that does not fit on the line starts the
 * next one (indented by `lead` and "  · "), and is itself wrapped between words when longer than a line.
 */
export function fitParts(parts: readonly string[], width: number, lead = ""): string[] {
  const one = lead + parts.join(" · ");
  if (!Number.isFinite(width) || width <= 0 || one.length <= width) return [one];
  const out: string[] = [];
  let line = lead + parts[0];
  for (const part of parts.slice(1)) {
    if (line.length + 3 + part.length <= width) line += ` · ${part}`;
    else {
      out.push(...wrapWords(line, width));
      line = `${lead}  · ${part}`;
    }
  }
  out.push(...wrapWords(line, width, "    "));
  return out;
}

export function mediaText(m: PlanMedia): string {
  const what = m.asset_id !== undefined ? `asset ${m.asset_id}` : (m.url ?? "?");
  return `${m.show} ${what}${m.start_at ? ` from ${m.start_at} s` : ""}`;
}

export interface ShowNames {
  voice?(id: string): string | undefined;
  look?(id: string): string | undefined;
}

/**
 * The timeline as lines: one header per block, one line per sequence, then the totals. With a
 * `width` (the wizard's terminal), every line fits it: texts are cut shorter, the rest wraps between
 * words, ids whole.
 */
export function timelineLines(tl: PlanTimeline, names: ShowNames = {}, width?: number): string[] {
  const w = width ?? 100;
  const fit = width === undefined ? Infinity : width;
  const voice = (id: string | null) => (id === null ? "request's voice" : names.voice?.(id) ? `${names.voice(id)} (${id})` : id);
  const look = (id: string | null) => (id === null ? "request's avatar" : names.look?.(id) ? `${names.look(id)} (${id})` : id);
  const lines: string[] = [];
  // Below 80 columns the notes under a sequence are indented less, so their words have room.
  const pad = fit < 80 ? "    " : " ".repeat(17);
  for (const b of tl.blocks) {
    const head = b.silent ? ["silent"] : [`voice ${b.audio_url ? `audio ${b.audio_url}` : voice(b.voice_id)}`];
    lines.push(...fitParts([`Block ${b.index + 1}`, ...head, `look ${look(b.look_id)}`], fit));
    for (const s of b.sequences) {
      const when = `  ${clock(s.start_ms)}–${clock(s.end_ms)}`;
      const about = ` (about ${seconds(s.duration_ms)})`;
      const room = Math.max(16, Math.min(w - 40, w - when.length - about.length - 4));
      const say = s.silent ? `(silence, ${seconds(s.duration_ms)})` : `${quote(s.text!, room)}${about}`;
      lines.push(...wrapWords(`${when}  ${say}`, fit, "    "));
      const extras: string[] = [];
      if (s.look_from === "sequence") extras.push(`look ${look(s.look_id)}`);
      if (s.action) extras.push(`action: ${s.action}`);
      if (s.media) extras.push(`media: ${mediaText(s.media)}`);
      if (extras.length) lines.push(...fitParts(extras, fit, pad));
    }
  }
  const price = tl.estimated_credits === null ? "price unknown" : `${tl.exact ? "" : "about "}${tl.estimated_credits} credit${tl.estimated_credits === 1 ? "" : "s"}`;
  lines.push(
    ...wrapWords(
      `Total: about ${seconds(tl.total_ms)} (${clock(tl.total_ms)}), ${tl.blocks.length} block${tl.blocks.length === 1 ? "" : "s"}, ${price}` +
        (tl.automatic_broll ? "; no sequence has media, so automatic b-roll fills the slots" : ""),
      fit,
    ),
  );
  return lines;
}
