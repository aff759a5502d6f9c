/**
 * POST /video/duplicate on the local instance. The copy is made synchronously and is `done` at once:
 * an exact copy of the timeline; with `voice_id`, every spoken block is spoken again with that voice
 * and the whole timeline re-timed (subtitles follow the sentences); with `avatar_look_id`, every
 * sequence's look is replaced. A video's own files (voice track, thumbnail) are copied or remade
 * under the new video's folder; shared files (speech cache, looks, media) are named as they are.
 *
 * Order of checks (the spec's list): MISSING_VIDEO_ID, INVALID_TYPE (both at the door, before the
 * handler runs), INVALID_VOICE_ID, INVALID_AVATAR_ID, VIDEO_NOT_FOUND, UNAUTHORIZED_VIDEO, VIDEO_NOT_READY; INTERNAL_ERROR when the
 * new speech cannot be made.
 */
import fs from "node:fs";
import path from "node:path";
import { MediaFetchError, MediaInputError, MediaToolError, RenderError } from "../../../media/errors.js";
import type { HandlerTable, RequestContext } from "../../../local/types.js";
import { codeError } from "../../generation/emulator/public/errors.js";
import { lookImages, lookLookups } from "../../generation/emulator/public/looks.js";
import { findVoice } from "../../voice/emulator/public/lookup.js";
import type { VideoDuplicateInput, VideoDuplicateResponse } from "../contract.js";
import { insertVideo, readVideo, timelineOf, videoDir } from "./public/record.js";
import { layoutBlocks, speakDraft, writeVoiceTrack, type DraftBlock } from "./public/speech.js";
import { makeThumbnail } from "./public/thumbnail.js";
import type { VideoTimeline } from "./public/timeline.js";

/** A timeline taken back to a draft: timings become lengths; blocks in `respeak` lose their speech. */
export function draftOf(t: VideoTimeline, voice?: { voice_id: string; tts: string }): { drafts: DraftBlock[]; respoken: number } {
  let respoken = 0;
  const drafts = t.blocks.map((b): DraftBlock => {
    const spoken = b.sequences.some((s) => s.text !== null);
    // Words are needed to speak again: supplied speech without a script keeps its sound and voice.
    const canRespeak = spoken && b.sequences.every((s) => s.text === null || s.sentences.length > 0);
    const respeak = voice !== undefined && canRespeak;
    if (respeak) respoken++;
    const { start_ms, end_ms, sequences, audio_path, ...rest } = b;
    const keepAudio = audio_path !== undefined && !respeak;
    return {
      ...rest,
      ...(respeak ? { voice_id: voice!.voice_id, tts_voice: voice!.tts } : {}),
      ...(keepAudio ? { audio_path, audio_ms: end_ms - start_ms } : {}),
      sequences: sequences.map((s) => {
        const { start_ms: ss, end_ms: se, sentences, ...srest } = s;
        return {
          ...srest,
          sentences: sentences.map((x) => ({ text: x.text, audio_path: respeak ? null : x.audio_path, ms: respeak || keepAudio ? 0 : x.end_ms - x.start_ms })),
          ...(s.text === null ? { silent_ms: se - ss } : {}),
        };
      }),
    };
  });
  return { drafts, respoken };
}

function copyFile(mediaDir: string, from: string, to: string): void {
  const dest = path.join(mediaDir, to);
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.copyFileSync(path.join(mediaDir, from), dest);
}

/** `input` passed the check at the door (MISSING_VIDEO_ID, INVALID_TYPE, unknown fields: contract.ts). */
async function videoDuplicate(ctx: RequestContext, input: VideoDuplicateInput): Promise<VideoDuplicateResponse> {
  const { instance, space } = ctx;
  const videoId = input.video_id;
  const voiceId = input.voice_id;
  const lookId = input.avatar_look_id;

  let voice: { voice_id: string; tts: string } | undefined;
  if (voiceId !== undefined) {
    const v = findVoice(instance.db, space.id, space.plan, voiceId);
    if (!v) throw codeError("INVALID_VOICE_ID", `Voice not found: ${voiceId} (GET /voice/list lists the voices of this space's plan)`, "voice_id");
    voice = { voice_id: v.id, tts: v.tts };
  }
  if (lookId !== undefined && !lookLookups(instance.db, space.id).look(lookId)) {
    throw codeError("INVALID_AVATAR_ID", `Look not found: ${lookId} (avatar_look_id takes a look id, see GET /avatar/list)`, "avatar_look_id");
  }

  const row = readVideo(instance.db, videoId);
  if (!row) throw codeError("VIDEO_NOT_FOUND", `Video not found: ${videoId}`);
  if (row.space_id !== space.id) throw codeError("UNAUTHORIZED_VIDEO", `Video ${videoId} does not belong to this space`);
  const source = row.status === "done" ? timelineOf(row) : undefined;
  if (!source) throw codeError("VIDEO_NOT_READY", `Video ${videoId} is ${row.status}: only a done video can be duplicated`);

  const newId = instance.ids.hex24();
  const dir = videoDir(newId);
  const voicePath = `${dir}/voice.wav`;
  const thumbnailPath = `${dir}/thumbnail.jpg`;
  let timeline: VideoTimeline = { ...structuredClone(source), voice_path: voicePath, thumbnail_path: thumbnailPath };
  let voiceChanged = false;
  const avatarChanged = lookId !== undefined;

  try {
    if (lookId !== undefined) {
      const image = (await lookImages(instance.db, instance.mediaDir, space.id, [lookId])).get(lookId)!;
      for (const b of timeline.blocks) {
        b.look_id = lookId;
        for (const s of b.sequences) {
          s.look_id = lookId;
          s.look_image_path = image;
          delete s.avatar_video_path;
        }
      }
    }
    if (voice && timeline.native_avatar) {
      // Native-avatar videos get their sound at export: the new voice is recorded, the timing kept.
      for (const b of timeline.blocks) {
        if (b.sequences.some((s) => s.text !== null) && b.audio_path === undefined) {
          b.voice_id = voice.voice_id;
          b.tts_voice = voice.tts;
          voiceChanged = true;
        }
      }
    } else if (voice) {
      const { drafts, respoken } = draftOf(timeline, voice);
      if (respoken > 0) {
        await speakDraft(instance.mediaDir, drafts);
        const laid = layoutBlocks(drafts, timeline.fps);
        timeline = { ...timeline, blocks: laid.blocks, duration_ms: laid.duration_ms };
        await writeVoiceTrack(instance.mediaDir, voicePath, timeline.blocks, timeline.duration_ms);
        voiceChanged = true;
      }
    }
    if (!fs.existsSync(path.join(instance.mediaDir, voicePath))) copyFile(instance.mediaDir, source.voice_path, voicePath);
    if (avatarChanged) await makeThumbnail(instance.mediaDir, timeline, thumbnailPath);
    else copyFile(instance.mediaDir, source.thumbnail_path, thumbnailPath);
  } catch (e) {
    fs.rmSync(path.join(instance.mediaDir, dir), { recursive: true, force: true });
    if (e instanceof RenderError || e instanceof MediaInputError || e instanceof MediaToolError || e instanceof MediaFetchError || (e as NodeJS.ErrnoException).code) {
      throw codeError("INTERNAL_ERROR", `The duplicate could not be made: ${(e as Error).message.split("\n")[0]}`);
    }
    throw e;
  }

  const what = [voiceChanged ? `voice ${voice!.voice_id}` : "", avatarChanged ? `look ${lookId}` : ""].filter(Boolean).join(" and ");
  const skipped = voice && !voiceChanged ? " (its speech was supplied without a script, so the voice was kept)" : "";
  const answer: VideoDuplicateResponse = {
    video_id: newId,
    status: "done",
    message: `${what ? `Video duplicated with ${what}` : "Video duplicated (exact copy)"}${skipped}; export it to produce output`,
    changes_applied: { voice_changed: voiceChanged, avatar_changed: avatarChanged },
  };
  instance.tx(() => {
    insertVideo(instance.db, {
      id: newId,
      space_id: space.id,
      status: "done",
      origin: "duplicate",
      generation_id: null,
      parent_video_id: row.id,
      created_at: instance.nowIso(),
      timeline,
    });
    ctx.keepStart?.(answer);
  });
  return answer;
}

export const videoHandlers: HandlerTable = {
  videoDuplicate: (ctx, input) => videoDuplicate(ctx, input as VideoDuplicateInput),
};
