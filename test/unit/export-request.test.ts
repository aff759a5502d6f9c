/**
 * POST /export/start rules without an instance: the order of the checks, the output size of every
 * format (the video's own when none is given; custom rounded up to even), the avatar model against
 * the looks a video shows, the seconds of avatar on screen, and the price arithmetic.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/engine/errors.js";
import { throughDoor } from "../helpers/door.js";
import { avatarOnScreenMs, exportPrice, looksOf, validateExportStart, type ExportLookups } from "../../src/features/export/emulator/request.js";
import type { VideoRow } from "../../src/features/video/emulator/public/record.js";
import type { TimelineSequence, VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";

const SPACE = "sp_me";

function seq(over: Partial<TimelineSequence> & { start_ms: number; end_ms: number }): TimelineSequence {
  return { text: "Hi.", look_id: "lk_a", look_image_path: "looks/a.png", sentences: [], ...over };
}

function timeline(over: Partial<VideoTimeline> = {}, sequences?: TimelineSequence[]): VideoTimeline {
  const seqs = sequences ?? [seq({ start_ms: 0, end_ms: 2000 }), seq({ start_ms: 2000, end_ms: 4000, look_id: "lk_b", look_image_path: "looks/b.png" })];
  const end = seqs.at(-1)!.end_ms;
  return {
    version: 1,
    format: "vertical",
    width: 1080,
    height: 1920,
    fps: 30,
    duration_ms: end,
    options: { subtitles: true, broll: true, music: false, transitions: true },
    native_avatar: false,
    enhance_emotions: false,
    save_to_library: true,
    voice_path: "videos/v/voice.wav",
    thumbnail_path: "videos/v/thumbnail.jpg",
    blocks: [{ voice_id: "vc_emma", tts_voice: "en-us+f3", look_id: null, start_ms: 0, end_ms: end, sequences: seqs }],
    ...over,
  };
}

function row(id: string, t: VideoTimeline | null, over: Partial<VideoRow> = {}): VideoRow {
  return {
    id,
    space_id: SPACE,
    status: t ? "done" : "generating",
    origin: "generation",
    generation_id: null,
    parent_video_id: null,
    timeline: t ? JSON.stringify(t) : null,
    duration_ms: t?.duration_ms ?? null,
    thumbnail_path: t?.thumbnail_path ?? null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    ...over,
  };
}

const MODELS: Record<string, string[]> = {
  lk_a: ["standard", "premium", "ultra", "omni-flash"],
  lk_b: ["standard", "premium", "omni-flash"],
};

function lookups(videos: VideoRow[]): ExportLookups {
  return { video: (id) => videos.find((v) => v.id === id), lookModels: (id) => MODELS[id], knownModels: () => new Set(Object.values(MODELS).flat()) };
}

const V = "a".repeat(24);
const std = lookups([
  row(V, timeline()),
  row("b".repeat(24), timeline({ format: "custom", width: 721, height: 405 })),
  row("c".repeat(24), null),
  row("d".repeat(24), null, { status: "failed" }),
  row("e".repeat(24), timeline(), { space_id: "sp_other" }),
]);

function refusal(input: Record<string, unknown>, l: ExportLookups = std): [number, string, string | undefined] {
  try {
    // Judged as the local dispatch judges it: the contract at the door, then the instance's rules.
    throughDoor("exportStart", input, (checked) => validateExportStart(checked, SPACE, l));
  } catch (e) {
    if (e instanceof ApiError) return [e.status, e.code, e.field];
    throw e;
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`);
}

describe("the order of the checks", () => {
  it("refuses each problem with its code and field, the first problem in the documented order winning", () => {
    const cases: [Record<string, unknown>, [number, string, string | undefined]][] = [
      [{}, [400, "MISSING_VIDEO_ID", "video_id"]],
      [{ video_id: "  " }, [400, "MISSING_VIDEO_ID", "video_id"]],
      [{ video_id: 7, format: "cinema" }, [400, "INVALID_VALUE", "video_id"]],
      // Request-only checks come before the video is looked up.
      [{ video_id: "f".repeat(24), format: "cinema" }, [400, "INVALID_FORMAT", "format"]],
      [{ video_id: "f".repeat(24), format: "custom", width: 0 }, [400, "INVALID_FORMAT", "width"]],
      [{ video_id: "f".repeat(24), avatar_model: "Premium" }, [400, "INVALID_AVATAR_MODEL", "avatar_model"]],
      [{ video_id: "f".repeat(24), webhook_url: "not a url" }, [400, "INVALID_VALUE", "webhook_url"]],
      [{ video_id: "f".repeat(24), webhook_url: 5 }, [400, "INVALID_VALUE", "webhook_url"]],
      [{ video_id: "f".repeat(24) }, [404, "VIDEO_NOT_FOUND", undefined]],
      [{ video_id: "e".repeat(24), avatar_model: "ultra" }, [403, "UNAUTHORIZED_VIDEO", undefined]],
      [{ video_id: "c".repeat(24), avatar_model: "ultra" }, [400, "VIDEO_NOT_READY", undefined]],
      [{ video_id: "d".repeat(24) }, [400, "VIDEO_NOT_READY", undefined]],
      // lk_b (the second sequence's look) has no ultra.
      [{ video_id: V, avatar_model: "ultra" }, [400, "INCOMPATIBLE_AVATAR_MODEL", "avatar_model"]],
      [{ video_id: V, format: "vertical", height: 1920 }, [400, "INVALID_FORMAT", "height"]],
      [{ video_id: V, format: "custom", height: 5001 }, [400, "INVALID_FORMAT", "height"]],
      [{ video_id: V, format: "custom", width: 1.5 }, [400, "INVALID_FORMAT", "width"]],
    ];
    for (const [input, want] of cases) expect(refusal(input), JSON.stringify(input)).toEqual(want);
  });

  it("avatar_model is any name at the door; this instance knows the names its looks offer (synced hosted names too)", () => {
    const synced: Record<string, string[]> = { lk_a: ["standard", "seedance-2", "veo-3"], lk_b: ["standard", "seedance-2"], lk_other: ["ora-pro-max"] };
    const l: ExportLookups = { ...std, lookModels: (id) => synced[id], knownModels: () => new Set(Object.values(synced).flat()) };
    const accepted = throughDoor("exportStart", { video_id: V, avatar_model: "seedance-2" }, (checked) => validateExportStart(checked, SPACE, l));
    expect(accepted.avatar_model).toBe("seedance-2");
    // Offered by one look of the video but not the other; offered only by a look the video does not show.
    expect(refusal({ video_id: V, avatar_model: "veo-3" }, l)).toEqual([400, "INCOMPATIBLE_AVATAR_MODEL", "avatar_model"]);
    expect(refusal({ video_id: V, avatar_model: "ora-pro-max" }, l)).toEqual([400, "INCOMPATIBLE_AVATAR_MODEL", "avatar_model"]);
    // A name no look of this instance offers, and not one of the spec's: INVALID_AVATAR_MODEL, before the video.
    expect(refusal({ video_id: "f".repeat(24), avatar_model: "veo-9" }, l)).toEqual([400, "INVALID_AVATAR_MODEL", "avatar_model"]);
  });

  it("null is 'not given' for the optional fields", () => {
    // Called directly (the door refuses null for these): the handler still reads null as not given.
    const p = validateExportStart({ video_id: V, format: null, width: null, height: null, avatar_model: null, webhook_url: null } as never, SPACE, std);
    expect([p.format, p.width, p.height, p.avatar_model, p.webhook_url]).toEqual(["vertical", 1080, 1920, "standard", null]);
  });
});

describe("the output size", () => {
  it("each format has its size; without a format the video's own is used", () => {
    const size = (input: Record<string, unknown>) => {
      const p = validateExportStart({ video_id: V, ...input }, SPACE, std);
      return [p.format, p.width, p.height];
    };
    expect(size({})).toEqual(["vertical", 1080, 1920]);
    expect(size({ format: "square" })).toEqual(["square", 1080, 1080]);
    expect(size({ format: "ads" })).toEqual(["ads", 1080, 1350]);
    expect(size({ format: "horizontal" })).toEqual(["horizontal", 1920, 1080]);
    expect(size({ format: "custom" })).toEqual(["custom", 1080, 1920]);
    expect(size({ format: "custom", width: 720, height: 720 })).toEqual(["custom", 720, 720]);
    expect(size({ format: "custom", width: 5000, height: 1 })).toEqual(["custom", 5000, 2]);
  });

  it("odd custom sides are rounded up to even, with a note; a custom video keeps its own size unless told otherwise", () => {
    const p = validateExportStart({ video_id: V, format: "custom", width: 721, height: 1279 }, SPACE, std);
    expect([p.width, p.height]).toEqual([722, 1280]);
    expect(p.warnings).toEqual([expect.stringMatching(/width 721 rounded to 722/), expect.stringMatching(/height 1279 rounded to 1280/)]);
    const own = validateExportStart({ video_id: "b".repeat(24) }, SPACE, std);
    expect([own.format, own.width, own.height]).toEqual(["custom", 722, 406]);
    const told = validateExportStart({ video_id: "b".repeat(24), format: "custom", width: 640 }, SPACE, std);
    expect([told.width, told.height]).toEqual([640, 1920]);
    const big = validateExportStart({ video_id: V, format: "custom", width: 4500, height: 4500 }, SPACE, std);
    expect(big.warnings.join(" ")).toMatch(/above 4096/);
  });
});

describe("the avatar model", () => {
  it("must be offered by every look the video shows; without one, standard is used and not checked", () => {
    expect(validateExportStart({ video_id: V, avatar_model: "premium" }, SPACE, std)).toMatchObject({ avatar_model: "premium", avatar_model_given: true });
    expect(validateExportStart({ video_id: V }, SPACE, std)).toMatchObject({ avatar_model: "standard", avatar_model_given: false });
    // A look that no longer exists offers nothing.
    const gone = lookups([row(V, timeline({}, [seq({ start_ms: 0, end_ms: 1000, look_id: "lk_gone" })]))]);
    expect(refusal({ video_id: V, avatar_model: "standard" }, gone)).toEqual([400, "INCOMPATIBLE_AVATAR_MODEL", "avatar_model"]);
    // A video without looks (a supplied avatar image or video) takes any model.
    const none = lookups([row(V, timeline({}, [seq({ start_ms: 0, end_ms: 1000, look_id: null, look_image_path: "fetched/face.png" })]))]);
    expect(validateExportStart({ video_id: V, avatar_model: "vidB-2-5-1080p" }, SPACE, none).avatar_model).toBe("vidB-2-5-1080p");
  });

  it("the avatar is on screen where a look or avatar video shows and no full media covers it", () => {
    const t = timeline({}, [
      seq({ start_ms: 0, end_ms: 1000 }),
      seq({ start_ms: 1000, end_ms: 2500, media: { kind: "image", source: { url: "x" }, path: "p.png", show: "full", width: 1, height: 1 } }),
      seq({ start_ms: 2500, end_ms: 3000, media: { kind: "image", source: { url: "x" }, path: "p.png", show: "half", width: 1, height: 1 } }),
      seq({ start_ms: 3000, end_ms: 4500, text: null, media: { kind: "image", source: { url: "x" }, path: "p.png", show: "background", width: 1, height: 1 } }),
      seq({ start_ms: 4500, end_ms: 5000, look_id: null, look_image_path: null }),
      seq({ start_ms: 5000, end_ms: 6000, look_id: null, look_image_path: null, avatar_video_path: "fetched/talk.mp4" }),
    ]);
    expect(avatarOnScreenMs(t)).toBe(1000 + 500 + 1500 + 1000);
    expect(looksOf(t)).toEqual(["lk_a"]);
  });
});

describe("the price", () => {
  const t = timeline({}, [seq({ start_ms: 0, end_ms: 61_000 })]);
  const price = (over: Record<string, unknown>, first = true) =>
    exportPrice({ format: "vertical", width: 1080, height: 1920, timeline: t, avatar_model: "standard", avatar_seconds: 61, ...over }, first);
  it("formats and small custom sizes are free; custom over 1920 wide or 1080 tall adds 2.5 per started 30 s", () => {
    expect(price({})).toBe(0);
    expect(price({}, false)).toBe(0);
    expect(price({ format: "custom", width: 1920, height: 1080 })).toBe(0);
    expect(price({ format: "custom", width: 1922, height: 1080 })).toBe(7.5);
    expect(price({ format: "custom", width: 1080, height: 1920 })).toBe(7.5);
    // A 1920x1080 horizontal export is a format, not a custom size.
    expect(price({ format: "horizontal", width: 1920, height: 1080 })).toBe(0);
  });
  it("premium and ultra models add their rate per started second of avatar on screen; the others nothing", () => {
    expect(price({ avatar_model: "premium", avatar_seconds: 60.2 })).toBe(6.1);
    expect(price({ avatar_model: "ultra", avatar_seconds: 10 })).toBe(2);
    expect(price({ avatar_model: "omni-flash" })).toBe(0);
    expect(price({ avatar_model: "ultra", avatar_seconds: 10, format: "custom", width: 2160, height: 3840 })).toBe(9.5);
  });
});
