/**
 * The sequence plan's rules, pure (no SQLite, no zod): the local handler of POST /generation/start
 * and `mediagen generate --plan` (before sending) both check a plan here, so a plan file gets the
 * same verdict, with the same JSON paths, as the service would give. Every problem carries the path
 * of the offending field (`sequence_plan[1].sequences[0].duration_ms`); the handler answers with the
 * first, the CLI prints them all.
 *
 * What is checked here is the plan's shape and its rules; whether its ids (voices, looks, avatars,
 * assets) exist is for the handler (PLAN_RESOLUTION_FAILED).
 */
import { estimateSpeechMs } from "./text.js";

export const MEDIA_SHOW = ["full", "half", "background", "hide"] as const;
export type MediaShowValue = (typeof MEDIA_SHOW)[number];
export const DEFAULT_SHOW: MediaShowValue = "hide";

export const IMAGE_EXTENSIONS = [".jpg", ".jpeg", ".png", ".webp"] as const;
export const VIDEO_EXTENSIONS = [".mp4", ".mov", ".webm", ".m4v"] as const;
export const AUDIO_EXTENSIONS = [".mp3", ".wav", ".m4a"] as const;

/** Generation job duration limits (spec, Limits). */
export const MIN_DURATION_SECONDS = 10;
export const MAX_DURATION_SECONDS = 600;
/** A silent sequence is at most the longest video. */
export const MAX_SILENT_MS = MAX_DURATION_SECONDS * 1000;

export const PLAN_FIELD = "sequence_plan";

export interface PlanProblem {
  code: "INVALID_PLAN";
  field: string;
  message: string;
}

export interface PlanMedia {
  asset_id?: string;
  url?: string;
  show: MediaShowValue;
  start_at?: number;
}

export interface PlanSequence {
  text: string | null;
  duration_ms: number | null;
  look_id: string | null;
  action: string | null;
  media: PlanMedia | null;
}

export interface PlanBlock {
  voice_id: string | null;
  look_id: string | null;
  audio_url: string | null;
  avatar_id: string | null;
  sequences: PlanSequence[];
}

export interface CheckPlanOptions {
  /** Whether media may be local paths or file:// URLs (in process: yes; over HTTP: no). */
  allowLocalFiles: boolean;
  /**
   * Why a local picture (a path or file:// URL) is refused by its size, read from its header only;
   * undefined when it is within the limits. Unset, pictures are measured when the job adopts them.
   */
  localImageProblem?(ref: string): string | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const absent = (v: unknown) => v === undefined || v === null;

/** A plain path, or a file:// URL (one letter before ":" is a Windows drive, not a scheme). */
export function isLocalRef(s: string): boolean {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s.trim())?.[1];
  return !scheme || scheme.length === 1 || scheme.toLowerCase() === "file";
}

/** The extension of a URL's path or of a file path, lower-cased ("" when none). */
export function extensionOf(ref: string): string {
  let p = ref.trim();
  if (!isLocalRef(p)) {
    try {
      p = decodeURIComponent(new URL(p).pathname);
    } catch {
      return "";
    }
  } else if (/^file:/i.test(p)) {
    p = p.replace(/^file:\/*/i, "/").replace(/[?#].*$/, "");
  }
  const m = /(\.[A-Za-z0-9]+)$/.exec(p);
  return m ? m[1]!.toLowerCase() : "";
}

export type MediaKind = "image" | "video" | "audio";

/** What an extension says a media file is, if anything the service takes. */
export function kindOfExtension(ext: string): MediaKind | undefined {
  if ((IMAGE_EXTENSIONS as readonly string[]).includes(ext)) return "image";
  if ((VIDEO_EXTENSIONS as readonly string[]).includes(ext)) return "video";
  if ((AUDIO_EXTENSIONS as readonly string[]).includes(ext)) return "audio";
  return undefined;
}

/**
 * Why a media reference is refused, or undefined when it is fine: not http(s)/file/path, a local file
 * where they are not allowed, or an extension outside `kinds`.
 */
export function refProblem(ref: string, kinds: readonly MediaKind[], o: CheckPlanOptions): string | undefined {
  const s = ref.trim();
  if (s === "") return "must not be empty";
  if (isLocalRef(s)) {
    if (!o.allowLocalFiles) return "local files are not accepted over HTTP; use an http(s) URL";
  } else if (!/^https?:\/\//i.test(s)) {
    return "must be an http(s) URL";
  } else {
    try {
      new URL(s);
    } catch {
      return "is not a valid URL";
    }
  }
  const kind = kindOfExtension(extensionOf(s));
  if (!kind || !kinds.includes(kind)) {
    const exts = kinds.flatMap((k) => (k === "image" ? IMAGE_EXTENSIONS : k === "video" ? VIDEO_EXTENSIONS : AUDIO_EXTENSIONS));
    return `must end in ${exts.join(", ")}`;
  }
  if (kind === "image" && isLocalRef(s)) return o.localImageProblem?.(s);
  return undefined;
}

/** Checks a whole plan. `blocks` is the normalised plan, present only when there is no problem. */
export function checkPlan(plan: unknown, o: CheckPlanOptions): { problems: PlanProblem[]; blocks?: PlanBlock[] } {
  const problems: PlanProblem[] = [];
  const bad = (field: string, message: string) => {
    if (!problems.some((p) => p.field === field && p.message === `${field}: ${message}`)) {
      problems.push({ code: "INVALID_PLAN", field, message: `${field}: ${message}` });
    }
  };

  if (!Array.isArray(plan)) {
    bad(PLAN_FIELD, "must be an array of speech blocks");
    return { problems };
  }
  if (plan.length === 0) {
    bad(PLAN_FIELD, "needs at least one speech block");
    return { problems };
  }

  const blocks: PlanBlock[] = [];
  plan.forEach((rawBlock, i) => {
    const bp = `${PLAN_FIELD}[${i}]`;
    if (!isObject(rawBlock)) {
      bad(bp, "a speech block must be an object with `sequences`");
      return;
    }
    const block: PlanBlock = { voice_id: null, look_id: null, audio_url: null, avatar_id: null, sequences: [] };
    for (const key of ["voice_id", "look_id", "avatar_id"] as const) {
      const v = rawBlock[key];
      if (absent(v)) continue;
      if (typeof v !== "string" || v.trim() === "") bad(`${bp}.${key}`, "must be a non-empty string");
      else block[key] = v.trim();
    }
    if (!absent(rawBlock.audio_url)) {
      const v = rawBlock.audio_url;
      const why = typeof v === "string" ? refProblem(v, ["audio"], o) : "must be a string (an audio URL: mp3, wav, m4a)";
      if (why) bad(`${bp}.audio_url`, why);
      else block.audio_url = (v as string).trim();
    }

    const seqs = rawBlock.sequences;
    if (!Array.isArray(seqs)) {
      bad(`${bp}.sequences`, absent(seqs) ? "is required: the block's sequences in playback order" : "must be an array of sequences");
      return;
    }
    if (seqs.length === 0) {
      bad(`${bp}.sequences`, "needs at least one sequence");
      return;
    }
    seqs.forEach((rawSeq, j) => {
      const sp = `${bp}.sequences[${j}]`;
      if (!isObject(rawSeq)) {
        bad(sp, "a sequence must be an object with `text`");
        return;
      }
      const seq: PlanSequence = { text: null, duration_ms: null, look_id: null, action: null, media: null };
      const text = rawSeq.text;
      let silent = false;
      if (text === undefined) bad(`${sp}.text`, "is required: a string, or null for a silent sequence");
      else if (text === null) silent = true;
      else if (typeof text !== "string") bad(`${sp}.text`, "must be a string, or null for a silent sequence");
      else if (text.trim() === "") bad(`${sp}.text`, "must not be empty (null makes a silent sequence)");
      else seq.text = text.trim();

      const d = rawSeq.duration_ms;
      if (silent) {
        if (absent(d)) bad(`${sp}.duration_ms`, "is required for a silent sequence (text: null)");
        else if (typeof d !== "number" || !Number.isFinite(d) || d <= 0) bad(`${sp}.duration_ms`, "must be a positive number of milliseconds");
        else if (d > MAX_SILENT_MS) bad(`${sp}.duration_ms`, `must be at most ${MAX_SILENT_MS}`);
        else seq.duration_ms = d;
        if (seqs.length > 1) bad(sp, "a silent sequence (text: null) must be alone in its own speech block");
        if (!absent(rawBlock.voice_id)) bad(`${bp}.voice_id`, "a block with a silent sequence must not have a voice_id");
        if (!absent(rawBlock.audio_url)) bad(`${bp}.audio_url`, "a block with a silent sequence has no audio");
      } else if (!absent(d)) {
        bad(`${sp}.duration_ms`, "only silent sequences (text: null) take duration_ms; spoken sequences are timed from their audio");
      }

      if (!absent(rawSeq.look_id)) {
        if (typeof rawSeq.look_id !== "string" || rawSeq.look_id.trim() === "") bad(`${sp}.look_id`, "must be a non-empty string");
        else seq.look_id = rawSeq.look_id.trim();
      }
      if (!absent(rawSeq.action)) {
        if (typeof rawSeq.action !== "string") bad(`${sp}.action`, "must be a string");
        else seq.action = rawSeq.action;
      }
      if (rawSeq.media !== undefined) seq.media = checkMedia(rawSeq.media, `${sp}.media`, bad, o);
      block.sequences.push(seq);
    });
    blocks.push(block);
  });

  if (problems.length) return { problems };
  const ms = planEstimateMs(blocks);
  if (ms > MAX_DURATION_SECONDS * 1000) {
    bad(PLAN_FIELD, `is about ${Math.round(ms / 1000)} s of video (speech estimated from its text, plus silences); a video is at most ${MAX_DURATION_SECONDS} s`);
    return { problems };
  }
  return { problems, blocks };
}

function checkMedia(raw: unknown, mp: string, bad: (field: string, message: string) => void, o: CheckPlanOptions): PlanMedia | null {
  if (!isObject(raw)) {
    bad(mp, "must be an object with an asset_id or a url (omit it to let automatic b-roll fill the slot)");
    return null;
  }
  const media: PlanMedia = { show: DEFAULT_SHOW };
  const before = { n: 0 };
  const note = (field: string, message: string) => {
    before.n++;
    bad(field, message);
  };
  if (!absent(raw.asset_id)) {
    if (typeof raw.asset_id !== "string" || raw.asset_id.trim() === "") note(`${mp}.asset_id`, "must be a non-empty string");
    else media.asset_id = raw.asset_id.trim();
  }
  if (!absent(raw.url)) {
    if (typeof raw.url !== "string") note(`${mp}.url`, "must be a string");
    // asset_id wins over url: a url beside an asset_id is not used, so it is not judged either.
    else if (media.asset_id === undefined && absent(raw.asset_id)) {
      const why = refProblem(raw.url, ["image", "video"], o);
      if (why) note(`${mp}.url`, why);
      else media.url = raw.url.trim();
    }
  }
  if (absent(raw.asset_id) && absent(raw.url)) note(mp, "needs an asset_id (library media) or a url (public image or video)");
  if (!absent(raw.show)) {
    if (typeof raw.show !== "string" || !(MEDIA_SHOW as readonly string[]).includes(raw.show)) {
      note(`${mp}.show`, `must be one of ${MEDIA_SHOW.join(", ")}`);
    } else media.show = raw.show as MediaShowValue;
  }
  if (!absent(raw.start_at)) {
    if (typeof raw.start_at !== "number" || !Number.isFinite(raw.start_at) || raw.start_at < 0) {
      note(`${mp}.start_at`, "must be a number of seconds, 0 or more");
    } else media.start_at = raw.start_at;
  }
  return before.n ? null : media;
}

/** Estimated length of a plan: its text at the TTS rate plus its silences. */
export function planEstimateMs(blocks: readonly PlanBlock[]): number {
  let ms = 0;
  for (const b of blocks) for (const s of b.sequences) ms += s.text === null ? (s.duration_ms ?? 0) : estimateSpeechMs(s.text);
  return ms;
}

/** Automatic b-roll happens only when no sequence of the whole plan has media. */
export function planHasMedia(blocks: readonly { sequences: readonly { media: unknown }[] }[]): boolean {
  return blocks.some((b) => b.sequences.some((s) => s.media !== null));
}
