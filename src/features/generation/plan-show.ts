/**
 * A plan as a timeline people can read (`mediagen plan show`, the wizard's running summary): each
 * block with its voice and look, each sequence with its estimated start and end (speech estimated
 * from the text at the TTS rate, silences as written), the look that applies (sequence, else block),
 * its action and media, and the plan's length and price. Pure.
 */
import { estimateGenerate } from "./estimate.js";
import { planHasMedia, type PlanBlock, type PlanMedia } from "./plan.js";
import { estimateSpeechMs } from "./text.js";

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

function quote(text: string, max: number): string {
  const t = text.length > max ? text.slice(0, Math.max(1, max - 1)) + "…" : text;
  return `"${t}"`;
}

export function mediaText(m: PlanMedia): string {
  const what = m.asset_id !== undefined ? `asset ${m.asset_id}` : (m.url ?? "?");
  return `${m.show} ${what}${m.start_at ? ` from ${m.start_at} s` : ""}`;
}

export interface ShowNames {
  voice?(id: string): string | undefined;
  look?(id: string): string | undefined;
}

/** The timeline as lines: one header per block, one line per sequence, then the totals. */
export function timelineLines(tl: PlanTimeline, names: ShowNames = {}, width = 100): string[] {
  const voice = (id: string | null) => (id === null ? "request's voice" : names.voice?.(id) ? `${names.voice(id)} (${id})` : id);
  const look = (id: string | null) => (id === null ? "request's avatar" : names.look?.(id) ? `${names.look(id)} (${id})` : id);
  const lines: string[] = [];
  for (const b of tl.blocks) {
    const head = b.silent ? `Block ${b.index + 1} · silent` : `Block ${b.index + 1} · voice ${b.audio_url ? `audio ${b.audio_url}` : voice(b.voice_id)}`;
    lines.push(`${head} · look ${look(b.look_id)}`);
    for (const s of b.sequences) {
      const when = `  ${clock(s.start_ms)}–${clock(s.end_ms)}`;
      const say = s.silent ? `(silence, ${seconds(s.duration_ms)})` : `${quote(s.text!, Math.max(20, width - 40))} (about ${seconds(s.duration_ms)})`;
      lines.push(`${when}  ${say}`);
      const extras: string[] = [];
      if (s.look_from === "sequence") extras.push(`look ${look(s.look_id)}`);
      if (s.action) extras.push(`action: ${s.action}`);
      if (s.media) extras.push(`media: ${mediaText(s.media)}`);
      if (extras.length) lines.push(`                 ${extras.join(" · ")}`);
    }
  }
  const price = tl.estimated_credits === null ? "price unknown" : `${tl.exact ? "" : "about "}${tl.estimated_credits} credit${tl.estimated_credits === 1 ? "" : "s"}`;
  lines.push(
    `Total: about ${seconds(tl.total_ms)} (${clock(tl.total_ms)}), ${tl.blocks.length} block${tl.blocks.length === 1 ? "" : "s"}, ${price}` +
      (tl.automatic_broll ? "; no sequence has media, so automatic b-roll fills the slots" : ""),
  );
  return lines;
}
