/**
 * How `mediagen local videos` shows videos: the record with its timeline as JSON, or the timeline
 * laid out for reading (blocks, sequences, sentences with their times, looks and media). Pure.
 */
import type { VideoRow } from "./public/record.js";
import { spokenMs, type TimelineMedia, type VideoTimeline } from "./public/timeline.js";

export interface VideoView {
  video_id: string;
  space_id: string;
  status: VideoRow["status"];
  origin: VideoRow["origin"];
  generation_id: string | null;
  parent_video_id: string | null;
  duration_ms: number | null;
  created_at: string;
  updated_at: string;
  timeline: VideoTimeline | null;
}

export function videoView(row: VideoRow): VideoView {
  return {
    video_id: row.id,
    space_id: row.space_id,
    status: row.status,
    origin: row.origin,
    generation_id: row.generation_id,
    parent_video_id: row.parent_video_id,
    duration_ms: row.duration_ms,
    created_at: row.created_at,
    updated_at: row.updated_at,
    timeline: row.timeline ? (JSON.parse(row.timeline) as VideoTimeline) : null,
  };
}

/** Seconds with milliseconds: 12.345. */
export function sec(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function span(a: { start_ms: number; end_ms: number }): string {
  return `${sec(a.start_ms)}–${sec(a.end_ms)}`;
}

function mediaText(m: TimelineMedia): string {
  const from = "asset_id" in m.source ? `asset ${m.source.asset_id}` : "broll_asset_id" in m.source ? `b-roll ${m.source.broll_asset_id}` : m.source.url;
  const extra = [m.trim_start !== undefined ? `from ${m.trim_start} s` : "", m.animate ? "animated" : ""].filter(Boolean).join(", ");
  return `${m.show} ${m.kind} ${m.width}×${m.height} ${from}${extra ? ` (${extra})` : ""}`;
}

export function videoLines(v: VideoView): string[] {
  const origin = v.origin === "duplicate" ? `duplicate of ${v.parent_video_id}` : `generation ${v.generation_id}`;
  const out = [`video ${v.video_id}  ${v.status}  (${origin}, ${v.created_at})`];
  const t = v.timeline;
  if (!t) return out;
  const on = (Object.keys(t.options) as (keyof VideoTimeline["options"])[]).filter((k) => t.options[k]);
  out.push(
    `format     ${t.format} ${t.width}×${t.height} @ ${t.fps} fps, ${sec(t.duration_ms)} s (${sec(spokenMs(t))} s spoken)`,
    `options    ${on.length ? on.join(", ") : "none"}${t.native_avatar ? `; native avatar ${t.native_avatar_model ?? ""}`.trimEnd() : ""}${t.enhance_emotions ? "; enhanced emotions" : ""}`,
    `voice      ${t.voice_path}`,
    `thumbnail  ${t.thumbnail_path}`,
  );
  if (t.music_path) out.push(`music      ${t.music_path}`);
  t.blocks.forEach((b, i) => {
    const voice = b.audio_path !== undefined ? `supplied audio ${b.audio_path}` : b.voice_id ? `voice ${b.voice_id} (${b.tts_voice})` : "silent";
    out.push("", `block ${i + 1}  ${span(b)}  ${voice}${b.look_id ? `  look ${b.look_id}` : ""}`);
    b.sequences.forEach((s, j) => {
      const look = s.look_id
        ? `look ${s.look_id}`
        : s.look_image_path
          ? `avatar image ${s.look_image_path}`
          : s.avatar_video_path
            ? `avatar video ${s.avatar_video_path}`
            : "no avatar";
      out.push(`  sequence ${j + 1}  ${span(s)}  ${s.text === null ? "silent" : "spoken"}  ${look}${s.action ? `  action "${s.action}"` : ""}`);
      if (s.media) out.push(`    media  ${mediaText(s.media)}`);
      for (const x of s.sentences) out.push(`    ${span(x)}  ${JSON.stringify(x.text)}`);
      if (s.text === "" && s.sentences.length === 0) out.push("    (supplied speech, words not known)");
    });
  });
  return out;
}
