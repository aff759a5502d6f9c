/**
 * The work of a generation job, step by step, each visible in GET /generation/status:
 *
 *   MEDIA_UPLOAD       supplied media fetched (or copied) into the media dir and probed; supplied
 *                      speech decoded; look pictures resolved (catalog ones rendered on first need)
 *   SCRIPT_GENERATION  prompt-based only: the local writer (writer.ts)
 *   VOICE_GENERATION   one TTS run per sentence, cached by text and voice
 *   TRANSCRIPTION      sentence timings from the WAV durations on the 30 fps grid (supplied speech:
 *                      by characters), and the voice track
 *   SEARCH_MEDIA       automatic b-roll only: candidates (media_urls, then the library)
 *   PLACE_BROLL        automatic b-roll only: candidates placed on the sequences
 *   ANIMATE_IMAGES     animate_image only: the stills to animate
 *   DISPLAY_BROLL      every media fitted to its sequence (trim within the source)
 *   ASSEMBLY           music, thumbnail, the timeline
 *
 * A step that cannot be done fails the job with its code (StepFailure); anything else is a crash
 * the queue retries.
 */
import fs from "node:fs";
import path from "node:path";
import { ensureFile } from "../../../local/media-cache.js";
import { MediaFetchError, MediaInputError, MediaToolError, RenderError } from "../../../media/errors.js";
import { QUIET, runTool } from "../../../media/run.js";
import { getTools } from "../../../media/tools.js";
import type { DB } from "../../../local/types.js";
import { layoutBlocks, speakDraft, writeVoiceTrack, type DraftBlock, type DraftSequence } from "../../video/emulator/public/speech.js";
import { makeThumbnail } from "../../video/emulator/public/thumbnail.js";
import { TIMELINE_FPS, TIMELINE_VERSION, sequencesOf, type TimelineMedia, type TimelineSequence, type VideoTimeline } from "../../video/emulator/public/timeline.js";
import { videoDir } from "../../video/emulator/public/record.js";
import { lookImages } from "./public/looks.js";
import { adopt, probeVisual, supplyAudio, type FetchPolicy } from "./media.js";
import { extensionOf, kindOfExtension, planHasMedia } from "../plan.js";
import type { GENERATION_STEPS } from "../contract.js";
import type { GenerationSpec, ResolvedMedia } from "./request.js";
import { scriptSequences, splitSentences } from "../text.js";
import { writeScript } from "./writer.js";

/** The steps a worker reports (GENERATION_STEPS without QUEUE, which is the status of a job not taken yet). */
export type StepName = Exclude<(typeof GENERATION_STEPS)[number], "QUEUE">;

/** The job error code of a step that cannot be done (hosted-facts' codes). */
export const STEP_FAILURE: Record<StepName, string> = {
  MEDIA_UPLOAD: "MEDIA_PROCESSING_FAILED",
  SCRIPT_GENERATION: "SCRIPT_GENERATION_FAILED",
  VOICE_GENERATION: "VOICE_GENERATION_FAILED",
  TRANSCRIPTION: "VOICE_GENERATION_FAILED",
  SEARCH_MEDIA: "MEDIA_PROCESSING_FAILED",
  PLACE_BROLL: "MEDIA_PROCESSING_FAILED",
  ANIMATE_IMAGES: "MEDIA_PROCESSING_FAILED",
  DISPLAY_BROLL: "MEDIA_PROCESSING_FAILED",
  ASSEMBLY: "ASSEMBLY_FAILED",
};

/** A step that cannot be done: the job fails with `code` (no retry). */
export class StepFailure extends Error {
  override readonly name = "StepFailure";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const line = m.split("\n")[0] ?? m;
  return line.length > 300 ? line.slice(0, 300) + "…" : line;
}

/** Errors of the media layer mean "this input cannot be made into a video", not a crash. */
function cannotBeDone(e: unknown): boolean {
  if (e instanceof RenderError) return !e.aborted;
  return e instanceof MediaFetchError || e instanceof MediaInputError || e instanceof MediaToolError;
}

export interface BuildContext {
  db: DB;
  mediaDir: string;
  spaceId: string;
  videoId: string;
  spec: GenerationSpec;
  signal: AbortSignal;
  /** Reports the step and the progress within it (0..100). */
  progress(step: StepName, pct: number): void;
}

interface LibraryItem {
  id: string;
  type: "image" | "video";
  file_path: string;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
}

/** Completed images and videos of the space's library, oldest first: the automatic b-roll candidates. */
function libraryMedia(db: DB, spaceId: string): LibraryItem[] {
  return db
    .prepare(
      `SELECT id, type, file_path, width, height, duration_seconds FROM assets
       WHERE space_id = ? AND status = 'completed' AND type IN ('image', 'video') ORDER BY created_at, rowid`,
    )
    .all(spaceId) as LibraryItem[];
}

const MUSIC_REL = "music/default-v1.wav";

/** The local default music: an 8 s chord with a slow swell that loops without a click (whole cycles). */
async function defaultMusic(mediaDir: string, signal?: AbortSignal): Promise<string> {
  const abs = path.join(mediaDir, MUSIC_REL);
  await ensureFile(abs, async (tmp) => {
    const tools = await getTools();
    const expr = "(0.5+0.5*sin(2*PI*0.25*t))*(0.08*sin(2*PI*220*t)+0.06*sin(2*PI*277.125*t)+0.06*sin(2*PI*329.625*t))";
    await runTool(
      tools.ffmpeg,
      [...QUIET, "-f", "lavfi", "-i", `aevalsrc=${expr}:s=44100:d=8`, "-c:a", "pcm_s16le", "-f", "wav", `file:${tmp}`],
      signal ? { signal } : {},
    );
  });
  return MUSIC_REL;
}

/** What MEDIA_UPLOAD brings in: supplied speech, the avatar, plan media, media_urls, music, look pictures. */
interface Supplied {
  voice: { audio_path: string; ms: number } | undefined;
  blockAudio: Map<number, { audio_path: string; ms: number }>;
  avatar: { kind: "image" | "video"; path: string } | undefined;
  planMedia: Map<string, TimelineMedia>;
  mediaUrls: TimelineMedia[];
  music: string | undefined;
  looks: Map<string, string>;
}

type Net = FetchPolicy & { signal: AbortSignal };
type Step = <T>(name: StepName, fn: () => Promise<T> | T, code?: string) => Promise<T>;

/** Runs one step: its progress from 0 to 100, and a failure that cannot be helped as its StepFailure. */
function stepRunner(b: BuildContext): Step {
  return async (name, fn, code = STEP_FAILURE[name]) => {
    b.progress(name, 0);
    try {
      const out = await fn();
      b.progress(name, 100);
      return out;
    } catch (e) {
      if (b.signal.aborted || !cannotBeDone(e)) throw e;
      throw new StepFailure(code, `${name.toLowerCase().replace(/_/g, " ")}: ${firstLine(e)}`);
    }
  };
}

/** The fetches and decodes of MEDIA_UPLOAD, as tasks filling `out`. */
function uploadTasks(b: BuildContext, out: Supplied, net: Net, brollApplies: boolean): (() => Promise<void>)[] {
  const { spec, mediaDir, signal } = b;
  const tasks: (() => Promise<void>)[] = [];
  const voiceFromUrl = spec.voice_url !== null && (spec.method === "script" || spec.method === "media");
  if (voiceFromUrl)
    tasks.push(async () => {
      out.voice = await supplyAudio(mediaDir, spec.voice_url!, "voice_url", net);
    });
  if (spec.avatar_url) {
    const av = spec.avatar_url;
    tasks.push(async () => {
      const rel = await adopt(mediaDir, av.url, net);
      await probeVisual(mediaDir, rel, av.kind, "avatar_url", signal);
      out.avatar = { kind: av.kind, path: rel };
      // A video avatar with nothing else to say speaks with its own sound.
      if (spec.method === "media" && !voiceFromUrl) out.voice = await supplyAudio(mediaDir, av.url, "avatar_url", net);
    });
  }
  spec.plan?.forEach((block, i) => {
    if (block.audio_url) {
      const url = block.audio_url;
      tasks.push(async () => void out.blockAudio.set(i, await supplyAudio(mediaDir, url, `sequence_plan[${i}].audio_url`, net)));
    }
    block.sequences.forEach((s, j) => {
      const m = s.media;
      if (!m) return;
      const field = `sequence_plan[${i}].sequences[${j}].media`;
      tasks.push(async () => void out.planMedia.set(`${i}.${j}`, await planMediaOf(mediaDir, m, field, net)));
    });
  });
  if (brollApplies) {
    spec.media_urls.forEach((url, i) => {
      tasks.push(async () => {
        const kind = kindOfExtension(extensionOf(url)) as "image" | "video";
        const rel = await adopt(mediaDir, url, net);
        const p = await probeVisual(mediaDir, rel, kind, `media_urls[${i}]`, signal);
        out.mediaUrls[i] = { kind, source: { url }, path: rel, show: "full", ...p };
      });
    });
  }
  if (spec.options.music) {
    tasks.push(async () => {
      out.music = await defaultMusic(mediaDir, signal);
    });
  }
  return tasks;
}

/** The looks' pictures: one that cannot be made is the avatar's failure, not the media's. */
async function lookPictures(b: BuildContext): Promise<Map<string, string>> {
  const { spec, signal } = b;
  const lookIds = new Set<string>();
  if (spec.avatar_id) lookIds.add(spec.avatar_id);
  for (const block of spec.plan ?? []) {
    if (block.look_id) lookIds.add(block.look_id);
    for (const s of block.sequences) if (s.look_id) lookIds.add(s.look_id);
  }
  let looks: Map<string, string>;
  try {
    looks = await lookImages(b.db, b.mediaDir, b.spaceId, [...lookIds], signal);
  } catch (e) {
    if (signal.aborted || !cannotBeDone(e)) throw e;
    throw new StepFailure("AVATAR_PROCESSING_FAILED", `media upload: a look's picture could not be made: ${firstLine(e)}`);
  }
  for (const id of lookIds) {
    if (!looks.has(id)) throw new StepFailure("AVATAR_PROCESSING_FAILED", `media upload: look ${id} is not ready any more`);
  }
  return looks;
}

/** MEDIA_UPLOAD: supplied media and speech in, probed; then the looks' pictures. */
async function mediaUpload(b: BuildContext, step: Step, brollApplies: boolean): Promise<Supplied> {
  // Rows written before the policy existed came from in-process or loopback use: allowed, as then.
  const net = { signal: b.signal, allowPrivateNetwork: b.spec.allow_private_network ?? true };
  return step("MEDIA_UPLOAD", async () => {
    const out: Supplied = { voice: undefined, blockAudio: new Map(), avatar: undefined, planMedia: new Map(), mediaUrls: [], music: undefined, looks: new Map() };
    const tasks = uploadTasks(b, out, net, brollApplies);
    let done = 0;
    for (const t of tasks) {
      b.signal.throwIfAborted();
      await t();
      b.progress("MEDIA_UPLOAD", Math.round((++done / (tasks.length + 1)) * 100));
    }
    out.looks = await lookPictures(b);
    return out;
  });
}

/** The draft: blocks and sequences with their looks and media, speech still to make. */
function draftBlocks(spec: GenerationSpec, supplied: Supplied, script: string | null): DraftBlock[] {
  const lookOf = (...ids: (string | null)[]): Pick<TimelineSequence, "look_id" | "look_image_path" | "avatar_video_path"> => {
    const id = ids.find((x) => x !== null) ?? null;
    if (id !== null) return { look_id: id, look_image_path: supplied.looks.get(id)! };
    if (supplied.avatar?.kind === "image") return { look_id: null, look_image_path: supplied.avatar.path };
    if (supplied.avatar?.kind === "video") return { look_id: null, look_image_path: null, avatar_video_path: supplied.avatar.path };
    return { look_id: null, look_image_path: null };
  };
  const spoken = (text: string): DraftSequence["sentences"] => splitSentences(text).map((t) => ({ text: t, audio_path: null, ms: 0 }));
  if (spec.plan) {
    return spec.plan.map((block, i): DraftBlock => {
      const audio = supplied.blockAudio.get(i);
      return {
        voice_id: block.voice?.voice_id ?? null,
        tts_voice: audio ? null : (block.voice?.tts ?? null),
        look_id: block.look_id,
        ...(audio ? { audio_path: audio.audio_path, audio_ms: audio.ms } : {}),
        ...(block.avatar_id ? { parent_avatar_id: block.avatar_id } : {}),
        sequences: block.sequences.map((s, j): DraftSequence => {
          const media = supplied.planMedia.get(`${i}.${j}`);
          return {
            text: s.text,
            ...lookOf(s.look_id, block.look_id, spec.avatar_id),
            ...(s.action !== null ? { action: s.action } : {}),
            ...(media ? { media } : {}),
            sentences: s.text === null ? [] : spoken(s.text),
            ...(s.text === null ? { silent_ms: s.duration_ms! } : {}),
          };
        }),
      };
    });
  }
  const audio = supplied.voice;
  const texts = script !== null ? scriptSequences(script) : [""];
  return [
    {
      voice_id: spec.voice?.voice_id ?? null,
      tts_voice: audio ? null : (spec.voice?.tts ?? null),
      look_id: spec.avatar_id,
      ...(audio ? { audio_path: audio.audio_path, audio_ms: audio.ms } : {}),
      sequences: texts.map((t): DraftSequence => ({ text: t, ...lookOf(spec.avatar_id), sentences: t ? spoken(t) : [] })),
    },
  ];
}

/** SEARCH_MEDIA, PLACE_BROLL: automatic b-roll when no sequence of the plan has media. */
async function placeBroll(b: BuildContext, step: Step, supplied: Supplied, sequences: TimelineSequence[]): Promise<void> {
  const candidates = await step("SEARCH_MEDIA", () => {
    const found: TimelineMedia[] = supplied.mediaUrls.filter(Boolean);
    if (b.spec.use_space_media) {
      for (const a of libraryMedia(b.db, b.spaceId)) {
        if (!a.width || !a.height || !fs.existsSync(path.join(b.mediaDir, a.file_path))) continue;
        found.push({
          kind: a.type,
          source: { broll_asset_id: a.id },
          path: a.file_path,
          show: "full",
          width: a.width,
          height: a.height,
          ...(a.type === "video" && a.duration_seconds ? { duration_ms: Math.round(a.duration_seconds * 1000) } : {}),
        });
      }
    }
    return found;
  });
  await step("PLACE_BROLL", () => {
    // Every other sequence, from the second, shows b-roll full screen; a video with no avatar at
    // all shows b-roll on every sequence. Candidates are used in order, then again from the first.
    const faceless = sequences.every((s) => !s.look_image_path && !s.avatar_video_path);
    const slots = sequences.filter((_s, i) => faceless || i % 2 === 1);
    if (!candidates.length) return;
    slots.forEach((s, k) => {
      s.media = { ...candidates[k % candidates.length]! };
    });
  });
}

/** ANIMATE_IMAGES: supplied stills (plan media, media_urls), at most animate_image_max of them. */
function markAnimated(spec: GenerationSpec, sequences: TimelineSequence[]): void {
  const chosen = new Set<string>();
  const cap = spec.animate_image_max ?? Infinity;
  for (const s of sequences) {
    const m = s.media;
    if (m?.kind !== "image" || "broll_asset_id" in m.source) continue;
    const key = "asset_id" in m.source ? m.source.asset_id : m.source.url;
    if (!chosen.has(key) && chosen.size >= cap) continue;
    chosen.add(key);
    m.animate = true;
  }
}

/** DISPLAY_BROLL: each media fitted to its sequence (a trim past the end of the source starts it over). */
function fitMedia(sequences: TimelineSequence[]): void {
  for (const s of sequences) {
    const m = s.media;
    if (m?.kind !== "video" || m.trim_start === undefined || m.duration_ms === undefined) continue;
    if (m.trim_start * 1000 >= m.duration_ms) m.trim_start = 0;
  }
}

/** ASSEMBLY: the record, and its thumbnail. */
async function assemble(b: BuildContext, supplied: Supplied, laid: ReturnType<typeof layoutBlocks>, dir: string, voicePath: string): Promise<VideoTimeline> {
  const { spec } = b;
  const thumbnailPath = `${dir}/thumbnail.jpg`;
  const timeline: VideoTimeline = {
    version: TIMELINE_VERSION,
    format: spec.format,
    width: spec.width,
    height: spec.height,
    fps: TIMELINE_FPS,
    duration_ms: laid.duration_ms,
    options: { ...spec.options },
    ...(supplied.music ? { music_path: supplied.music } : {}),
    native_avatar: spec.use_native_avatar,
    ...(spec.use_native_avatar ? { native_avatar_model: spec.native_avatar_model } : {}),
    enhance_emotions: spec.emotion_enhancement,
    save_to_library: spec.save_media_to_space,
    ...(spec.use_veo3 ? { use_veo3: true } : {}),
    ...(spec.animate_image ? { animate_mode: spec.animate_mode } : {}),
    voice_path: voicePath,
    thumbnail_path: thumbnailPath,
    blocks: laid.blocks,
  };
  await makeThumbnail(b.mediaDir, timeline, thumbnailPath, b.signal);
  return timeline;
}

export async function buildTimeline(b: BuildContext): Promise<VideoTimeline> {
  const { spec, mediaDir, signal } = b;
  const step = stepRunner(b);
  const brollApplies = spec.options.broll && !(spec.plan && planHasMedia(spec.plan));
  const supplied = await mediaUpload(b, step, brollApplies);

  let script = spec.script;
  if (spec.method === "prompt") script = await step("SCRIPT_GENERATION", () => writeScript(spec.prompt!, spec.duration!));
  const drafts = draftBlocks(spec, supplied, script);

  await step("VOICE_GENERATION", () =>
    speakDraft(mediaDir, drafts, { signal, onProgress: (done, total) => b.progress("VOICE_GENERATION", Math.floor((done / total) * 100)) }),
  );

  // TRANSCRIPTION: timing on the frame grid, and the voice track.
  const dir = videoDir(b.videoId);
  const voicePath = `${dir}/voice.wav`;
  const laid = await step("TRANSCRIPTION", async () => {
    const l = layoutBlocks(drafts);
    b.progress("TRANSCRIPTION", 50);
    await writeVoiceTrack(mediaDir, voicePath, l.blocks, l.duration_ms, signal);
    return l;
  });

  const sequences = sequencesOf(laid).map((x) => x.sequence);
  if (brollApplies) await placeBroll(b, step, supplied, sequences);
  if (spec.animate_image) await step("ANIMATE_IMAGES", () => markAnimated(spec, sequences));
  if (sequences.some((s) => s.media)) await step("DISPLAY_BROLL", () => fitMedia(sequences));
  return step("ASSEMBLY", () => assemble(b, supplied, laid, dir, voicePath));
}

async function planMediaOf(mediaDir: string, m: ResolvedMedia, field: string, net: Net): Promise<TimelineMedia> {
  const { signal } = net;
  const base = { show: m.show, ...(m.start_at !== undefined && m.kind === "video" ? { trim_start: m.start_at } : {}) };
  if (m.asset) {
    if (!fs.existsSync(path.join(mediaDir, m.asset.path))) throw new MediaFetchError(`${field}.asset_id: asset ${m.asset.asset_id} has no file any more`, "not_found");
    const { width, height, duration_ms } = m.asset;
    return {
      kind: m.asset.kind,
      source: { asset_id: m.asset.asset_id },
      path: m.asset.path,
      ...base,
      width,
      height,
      ...(duration_ms !== undefined ? { duration_ms } : {}),
    };
  }
  const rel = await adopt(mediaDir, m.url!, net);
  const p = await probeVisual(mediaDir, rel, m.kind, `${field}.url`, signal);
  return { kind: m.kind, source: { url: m.url! }, path: rel, ...base, ...p };
}
