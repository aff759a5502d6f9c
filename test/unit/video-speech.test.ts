/**
 * Speech of a video: timing on the frame grid (pure), drift under half a frame, supplied audio timed
 * by characters, the voice track (real TTS, exact length, sentences placed at their start), and a
 * timeline taken back to a draft.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { draftOf } from "../../src/features/video/emulator/local.js";
import { layoutBlocks, readPcm, speakSentence, writeVoiceTrack, TRACK_RATE, type DraftBlock } from "../../src/features/video/emulator/public/speech.js";
import { snapMs, spokenMs, TIMELINE_FPS, type VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";
import { readWavInfo } from "../../src/media/wav.js";

const FRAME = 1000 / TIMELINE_FPS;
const media = fs.mkdtempSync(path.join(os.tmpdir(), "mg-speech-"));
afterAll(() => fs.rmSync(media, { recursive: true, force: true }));

function ttsBlock(ms: number[], voice = "vc_emma"): DraftBlock {
  return {
    voice_id: voice,
    tts_voice: "en-us+f3",
    look_id: null,
    sequences: [
      {
        text: ms.map((_, i) => `S${i}.`).join(" "),
        look_id: null,
        look_image_path: null,
        sentences: ms.map((m, i) => ({ text: `S${i}.`, audio_path: `speech/${i}.wav`, ms: m })),
      },
    ],
  };
}
const silent = (ms: number): DraftBlock => ({
  voice_id: null,
  tts_voice: null,
  look_id: null,
  sequences: [{ text: null, look_id: null, look_image_path: null, sentences: [], silent_ms: ms }],
});

describe("layoutBlocks", () => {
  it("puts every boundary on the frame grid and makes neighbours share it", () => {
    const { blocks, duration_ms } = layoutBlocks([ttsBlock([1234.5, 2000.2, 999.9]), silent(1500), ttsBlock([777.7])]);
    const all = blocks.flatMap((b) => [b, ...b.sequences, ...b.sequences.flatMap((s) => s.sentences)]);
    for (const x of all) {
      expect(snapMs(x.start_ms)).toBe(x.start_ms);
      expect(snapMs(x.end_ms)).toBe(x.end_ms);
    }
    expect(blocks.map((b) => [b.start_ms, b.end_ms])).toEqual([
      [0, 4233],
      [4233, 5733],
      [5733, 6500],
    ]);
    const s = blocks[0]!.sequences[0]!.sentences;
    expect(s.map((x) => [x.start_ms, x.end_ms])).toEqual([
      [0, 1233],
      [1233, 3233],
      [3233, 4233],
    ]);
    expect(blocks[1]!.sequences[0]).toMatchObject({ text: null, start_ms: 4233, end_ms: 5733, sentences: [] });
    expect(duration_ms).toBe(6500);
  });

  it("keeps cumulative drift under half a frame over many sentences", () => {
    const ms = Array.from({ length: 300 }, (_, i) => 900 + ((i * 37) % 400) + 0.37);
    const { blocks } = layoutBlocks([ttsBlock(ms)]);
    let exact = 0;
    blocks[0]!.sequences[0]!.sentences.forEach((x, i) => {
      exact += ms[i]!;
      expect(Math.abs(x.end_ms - exact)).toBeLessThanOrEqual(FRAME / 2 + 0.5);
    });
  });

  it("times supplied audio by each sentence's share of the block's characters; a sequence without words takes the whole", () => {
    const block: DraftBlock = {
      voice_id: null,
      tts_voice: null,
      look_id: null,
      audio_path: "fetched/a.wav",
      audio_ms: 9000,
      sequences: [
        {
          text: "Aaaa. Bbbbbbbb.",
          look_id: null,
          look_image_path: null,
          sentences: [
            { text: "Aaaa.", audio_path: null, ms: 0 },
            { text: "Bbbbbbbb.", audio_path: null, ms: 0 },
          ],
        },
        { text: "Cccc.", look_id: null, look_image_path: null, sentences: [{ text: "Cccc.", audio_path: null, ms: 0 }] },
      ],
    };
    const { blocks, duration_ms } = layoutBlocks([block]);
    expect(duration_ms).toBe(9000);
    expect(blocks[0]!.audio_path).toBe("fetched/a.wav");
    expect(blocks[0]!.sequences.flatMap((s) => s.sentences.map((x) => [x.start_ms, x.end_ms]))).toEqual([
      [0, 2367],
      [2367, 6633],
      [6633, 9000],
    ]);
    const bare = layoutBlocks([{ ...block, sequences: [{ text: "", look_id: null, look_image_path: null, sentences: [] }] }]);
    expect(bare.blocks[0]!.sequences[0]).toMatchObject({ text: "", start_ms: 0, end_ms: 9000, sentences: [] });
  });
});

describe("the voice track", () => {
  it("is exactly the video's length, with each sentence's speech at its start and silence between", async () => {
    const a = await speakSentence(media, "Hello there.", "en-us+f3");
    const b = await speakSentence(media, "This is the second sentence.", "en-us+f3");
    // Cached: the same text and voice are one file, made once.
    expect(await speakSentence(media, "Hello there.", "en-us+f3")).toEqual(a);
    const draft: DraftBlock[] = [
      {
        ...ttsBlock([a.ms, b.ms]),
        sequences: [
          {
            text: "x",
            look_id: null,
            look_image_path: null,
            sentences: [
              { text: "Hello there.", ...a },
              { text: "This is the second sentence.", ...b },
            ],
          },
        ],
      },
      silent(1000),
    ];
    const { blocks, duration_ms } = layoutBlocks(draft);
    await writeVoiceTrack(media, "videos/v1/voice.wav", blocks, duration_ms);
    const track = path.join(media, "videos/v1/voice.wav");
    expect(readWavInfo(track)!.durationMs).toBeCloseTo(duration_ms, 0);
    const pcm = readPcm(track)!;
    expect([pcm.sampleRate, pcm.channels, pcm.bits]).toEqual([TRACK_RATE, 1, 16]);
    const second = readPcm(path.join(media, b.audio_path))!.data;
    const at = Math.round((blocks[0]!.sequences[0]!.sentences[1]!.start_ms * TRACK_RATE) / 1000) * 2;
    expect(pcm.data.subarray(at, at + 2000).equals(second.subarray(0, 2000))).toBe(true);
    // The silent block is silence.
    const silentFrom = Math.round((blocks[1]!.start_ms * TRACK_RATE) / 1000) * 2;
    expect(pcm.data.subarray(silentFrom + 200).every((x) => x === 0)).toBe(true);
  });
});

describe("a timeline back to a draft", () => {
  const timeline = (): VideoTimeline => {
    const { blocks, duration_ms } = layoutBlocks([ttsBlock([1234.5, 2000.2]), silent(1500), ttsBlock([800])]);
    return {
      version: 1,
      format: "vertical",
      width: 1080,
      height: 1920,
      fps: 30,
      duration_ms,
      options: { subtitles: true, broll: true, music: false, transitions: true },
      native_avatar: false,
      enhance_emotions: false,
      save_to_library: true,
      voice_path: "videos/x/voice.wav",
      thumbnail_path: "videos/x/thumbnail.jpg",
      blocks,
    };
  };

  it("lays out again to the same timeline when nothing changes", () => {
    const t = timeline();
    const { drafts, respoken } = draftOf(t);
    expect(respoken).toBe(0);
    expect(layoutBlocks(drafts)).toEqual({ blocks: t.blocks, duration_ms: t.duration_ms });
    expect(spokenMs(t)).toBe(t.duration_ms - 1500);
  });

  it("with a new voice, spoken blocks lose their speech and take the voice; silences keep their length", () => {
    const { drafts, respoken } = draftOf(timeline(), { voice_id: "vc_noah", tts: "en-us+m3" });
    expect(respoken).toBe(2);
    expect(drafts[0]).toMatchObject({ voice_id: "vc_noah", tts_voice: "en-us+m3" });
    expect(drafts[0]!.sequences[0]!.sentences.every((s) => s.audio_path === null && s.ms === 0)).toBe(true);
    expect(drafts[1]).toMatchObject({ voice_id: null, tts_voice: null });
    expect(drafts[1]!.sequences[0]!.silent_ms).toBe(1500);
  });
});
