/**
 * POST /generation/start's rules, pure: the check at the door (the contract's schema, codes and
 * order) then the handler's rules that need the space (request.ts with fake lookups), as dispatch
 * runs them: input methods and their precedence, every code with its field and status, the
 * documented order when several things are wrong, defaults, formats, and the estimate that is
 * debited (pricing included).
 */
import { describe, expect, it } from "vitest";
import { generationCredits } from "../../src/contract/pricing.js";
import { ApiError } from "../../src/engine/errors.js";
import { checkRequest } from "../../src/contract/request-check.js";
import { requestCodes, type GenerationStartInput } from "../../src/features/generation/contract.js";
import { GenerationStartAtTheDoor } from "../../src/features/generation/door.js";
import { estimateCredits, validateStart, type StartLookups } from "../../src/features/generation/emulator/request.js";
import { planEstimateMs, checkPlan } from "../../src/features/generation/plan.js";
import { estimateSpeechMs } from "../../src/features/generation/text.js";
import { apiErrorOf } from "../helpers/errors.js";
import { GOOD_PLAN, goodPlan } from "./generation-fixtures.js";

const IMG = "0123456789abcdef01234567";

function lookups(over: Partial<StartLookups> = {}): StartLookups {
  const voices: Record<string, string> = { vc_emma: "en-us+f3", vc_noah: "en-us+m3" };
  const looks = new Set(["lk_maya_kitchen", "lk_maya_office", "lk_james_car"]);
  const assets: Record<string, ReturnType<StartLookups["asset"]>> = {
    [IMG]: { status: "completed", type: "image", ref: { asset_id: IMG, kind: "image", path: `assets/${IMG}/x.png`, width: 10, height: 10 } },
    vid1: { status: "completed", type: "video", ref: { asset_id: "vid1", kind: "video", path: "assets/vid1/x.mp4", width: 10, height: 10, duration_ms: 4000 } },
    gen1: { status: "generating", type: "image", ref: null },
    aud1: { status: "completed", type: "audio", ref: null },
  };
  return {
    voice: (id) => (voices[id] ? { voice_id: id, tts: voices[id]! } : undefined),
    look: (id) => looks.has(id),
    avatar: (id) => (id === "av_maya" ? { looks: ["lk_maya_kitchen", "lk_maya_office"] } : id === "av_james" ? { looks: ["lk_james_car"] } : undefined),
    asset: (id) => assets[id],
    allowLocalFiles: false,
    ...over,
  };
}

/** The door's check (one parse), then the handler's rules: what dispatch does with a start. */
function start(input: Record<string, unknown>, l = lookups()) {
  const refused = checkRequest(GenerationStartAtTheDoor, requestCodes.generationStart, input);
  if (refused) throw new ApiError(refused.status, refused.body);
  return validateStart(input as GenerationStartInput, l);
}
function fails(input: Record<string, unknown>, l = lookups()): ApiError {
  return apiErrorOf(() => start(input, l));
}
/** code, field, status of the error a request gets. */
function verdict(input: Record<string, unknown>, l = lookups()) {
  const e = fails(input, l);
  return { code: e.code, field: e.field, status: e.status };
}

describe("input methods", () => {
  it("prompt-based needs a duration and speaks with the default voice unless one is named", () => {
    const s = start({ prompt: "why cats purr", duration: 30 });
    expect(s).toMatchObject({ method: "prompt", prompt: "why cats purr", duration: 30, voice: { voice_id: "vc_emma", tts: "en-us+f3" }, estimated_ms: 30_000 });
    expect(start({ prompt: "x", duration: 30, voice_id: "vc_noah" }).voice).toEqual({ voice_id: "vc_noah", tts: "en-us+m3" });
  });

  it("script-based needs voice_id or voice_url; the script wins over a prompt", () => {
    // A prompt beside a script is not a prompt-based request: it needs no duration.
    const s = start({ script: "Hello there. Second sentence!", voice_id: "vc_noah", prompt: "ignored" });
    expect(s).toMatchObject({ method: "script", voice: { voice_id: "vc_noah" } });
    expect(s.estimated_ms).toBe(estimateSpeechMs("Hello there. Second sentence!"));
    expect(start({ script: "Hi.", voice_url: "https://x.test/v.mp3" })).toMatchObject({ method: "script", voice: null, voice_url: "https://x.test/v.mp3" });
  });

  it("media-based: a voice_url and/or an avatar_url (a video can speak for itself; an image alone cannot)", () => {
    expect(start({ voice_url: "https://x.test/v.wav" })).toMatchObject({ method: "media", estimated_ms: null });
    expect(start({ avatar_url: "https://x.test/me.mp4" })).toMatchObject({ method: "media", avatar_url: { url: "https://x.test/me.mp4", kind: "video" } });
    expect(start({ voice_url: "https://x.test/v.m4a", avatar_url: "https://x.test/me.png" }).avatar_url).toEqual({ url: "https://x.test/me.png", kind: "image" });
    expect(verdict({ avatar_url: "https://x.test/me.png" })).toEqual({ code: "MISSING_CONTENT", field: undefined, status: 400 });
  });

  it("plan-based wins over prompt and script, which are then not required to be complete", () => {
    const s = start({ sequence_plan: goodPlan(), prompt: "no duration given", script: "no voice given" });
    expect(s.method).toBe("plan");
    expect(s.plan).toHaveLength(3);
    expect(s.estimated_ms).toBe(planEstimateMs(checkPlan(GOOD_PLAN, { allowLocalFiles: false }).blocks!));
    // Resolved: voices with their TTS names, library media with their files.
    expect(s.plan![0]!.voice).toEqual({ voice_id: "vc_emma", tts: "en-us+f3" });
    expect(s.plan![1]!.voice).toBeNull();
    expect(s.plan![2]!.sequences[0]!.media).toMatchObject({ asset_id: IMG, kind: "image", show: "hide", asset: { path: `assets/${IMG}/x.png` } });
    expect(s.plan![0]!.sequences[1]!.media).toMatchObject({ url: "https://cdn.example.com/b.mp4", kind: "video", start_at: 1 });
  });
});

describe("every code with its field", () => {
  it("MISSING_CONTENT when there is nothing to make a video from (blank strings count as nothing)", () => {
    for (const input of [{}, { prompt: "  ", script: "" }, { voice_id: "vc_emma", duration: 30 }]) {
      expect(verdict(input)).toEqual({ code: "MISSING_CONTENT", field: undefined, status: 400 });
    }
    expect(fails({}).body).toMatchObject({ error: expect.stringMatching(/^Nothing to make a video from/), code: "MISSING_CONTENT" });
  });

  it("content fields of the wrong type are INVALID_VALUE on that field", () => {
    expect(verdict({ prompt: 5 })).toEqual({ code: "INVALID_VALUE", field: "prompt", status: 400 });
    expect(verdict({ script: ["a"] })).toEqual({ code: "INVALID_VALUE", field: "script", status: 400 });
    expect(verdict({ voice_url: {} })).toEqual({ code: "INVALID_VALUE", field: "voice_url", status: 400 });
  });

  it("MISSING_FIELD duration with a prompt; MISSING_VOICE with a script", () => {
    expect(verdict({ prompt: "x" })).toEqual({ code: "MISSING_FIELD", field: "duration", status: 400 });
    expect(fails({ prompt: "x" }).body).toEqual({
      error: "duration is required with prompt (seconds, 10 to 600)",
      code: "MISSING_FIELD",
      details: [{ code: "MISSING_FIELD", message: "duration is required with prompt (seconds, 10 to 600)", field: "duration" }],
    });
    expect(verdict({ script: "Hello." })).toEqual({ code: "MISSING_VOICE", field: "voice_id", status: 400 });
  });

  it("INVALID_VOICE_ID for a voice the space cannot use, or one that is not a string; voice_url must be mp3, wav or m4a", () => {
    expect(verdict({ script: "Hi.", voice_id: "vc_george" })).toEqual({ code: "INVALID_VOICE_ID", field: "voice_id", status: 400 });
    expect(verdict({ script: "Hi.", voice_id: 7 })).toEqual({ code: "INVALID_VOICE_ID", field: "voice_id", status: 400 });
    expect(verdict({ script: "Hi.", voice_url: "https://x.test/v.ogg" })).toEqual({ code: "INVALID_VALUE", field: "voice_url", status: 400 });
    expect(verdict({ script: "Hi.", voice_url: "/home/me/v.wav" })).toEqual({ code: "INVALID_VALUE", field: "voice_url", status: 400 });
    expect(start({ script: "Hi.", voice_url: "/home/me/v.wav" }, lookups({ allowLocalFiles: true })).voice_url).toBe("/home/me/v.wav");
  });

  it("INVALID_AVATAR_ID for anything but a ready look id (an avatar id gets a hint with its looks)", () => {
    expect(verdict({ prompt: "x", duration: 30, avatar_id: "lk_nope" })).toEqual({ code: "INVALID_AVATAR_ID", field: "avatar_id", status: 400 });
    expect(fails({ prompt: "x", duration: 30, avatar_id: "av_maya" }).message).toBe(
      "Look not found: av_maya (av_maya is an avatar: avatar_id takes a look id, e.g. lk_maya_kitchen, lk_maya_office)",
    );
    expect(verdict({ prompt: "x", duration: 30, avatar_id: 3 })).toEqual({ code: "INVALID_AVATAR_ID", field: "avatar_id", status: 400 });
    expect(verdict({ prompt: "x", duration: 30, avatar_url: "https://x.test/a.gif" })).toEqual({ code: "INVALID_VALUE", field: "avatar_url", status: 400 });
  });

  it("INVALID_FORMAT: the five formats; width and height only with custom, whole pixels 1 to 5000", () => {
    const p = { prompt: "x", duration: 30 };
    expect(verdict({ ...p, format: "wide" })).toEqual({ code: "INVALID_FORMAT", field: "format", status: 400 });
    expect(verdict({ ...p, format: 9 })).toEqual({ code: "INVALID_FORMAT", field: "format", status: 400 });
    expect(verdict({ ...p, width: 720 })).toEqual({ code: "INVALID_FORMAT", field: "width", status: 400 });
    expect(verdict({ ...p, format: "square", height: 720 })).toEqual({ code: "INVALID_FORMAT", field: "height", status: 400 });
    for (const bad of [0, 5001, 1.5, "720", -1]) {
      expect(verdict({ ...p, format: "custom", width: bad })).toEqual({ code: "INVALID_FORMAT", field: "width", status: 400 });
      expect(verdict({ ...p, format: "custom", height: bad })).toEqual({ code: "INVALID_FORMAT", field: "height", status: 400 });
    }
    expect(start({ ...p, format: "custom", width: 1, height: 5000 })).toMatchObject({ format: "custom", width: 1, height: 5000 });
  });

  it("formats have the spec's sizes; custom defaults to 1080×1920; no format is vertical", () => {
    const p = { prompt: "x", duration: 30 };
    const size = (f?: string) => {
      const s = start(f ? { ...p, format: f } : p);
      return [s.format, s.width, s.height];
    };
    expect(size()).toEqual(["vertical", 1080, 1920]);
    expect(size("square")).toEqual(["square", 1080, 1080]);
    expect(size("ads")).toEqual(["ads", 1080, 1350]);
    expect(size("horizontal")).toEqual(["horizontal", 1920, 1080]);
    expect(size("custom")).toEqual(["custom", 1080, 1920]);
    expect(start({ ...p, format: "custom", width: 1280 })).toMatchObject({ width: 1280, height: 1920 });
  });

  it("duration is seconds from 10 to 600", () => {
    for (const bad of [9.99, 601, "30", 0, Number.NaN])
      expect(verdict({ prompt: "x", duration: bad })).toEqual({ code: "INVALID_VALUE", field: "duration", status: 400 });
    expect(start({ prompt: "x", duration: 10 }).estimated_ms).toBe(10_000);
    expect(start({ prompt: "x", duration: 600 }).estimated_ms).toBe(600_000);
  });

  it("the other fields are checked with their paths", () => {
    const p = { prompt: "x", duration: 30 };
    const cases: [Record<string, unknown>, string][] = [
      [{ web_search: true }, "web_search"],
      [{ web_search: { images: "yes" } }, "web_search.images"],
      [{ animate_image: "true" }, "animate_image"],
      [{ use_native_avatar: 1 }, "use_native_avatar"],
      [{ webhook_url: "ftp://x.test/h" }, "webhook_url"],
      [{ webhook_url: 5 }, "webhook_url"],
      [{ enable: [] }, "enable"],
      [{ enable: { music: "on" } }, "enable.music"],
      [{ media_urls: "https://x.test/a.png" }, "media_urls"],
      [{ media_urls: ["https://x.test/a.png", "https://x.test/b.txt"] }, "media_urls[1]"],
      [{ web_urls: Array.from({ length: 11 }, (_, i) => `https://x.test/${i}`) }, "web_urls"],
      [{ web_urls: ["notaurl"] }, "web_urls[0]"],
      [{ animate_image_max: -1 }, "animate_image_max"],
      [{ animate_image_max: 1.5 }, "animate_image_max"],
      [{ animate_mode: "fast" }, "animate_mode"],
      [{ emotion_enhancement: "no" }, "emotion_enhancement"],
      [{ use_space_media: true, save_media_to_space: "no" }, "save_media_to_space"],
      [{ use_space_media: "yes" }, "use_space_media"],
      [{ use_veo3: 1 }, "use_veo3"],
    ];
    for (const [extra, field] of cases) expect(verdict({ ...p, ...extra }), field).toEqual({ code: "INVALID_VALUE", field, status: 400 });
  });

  it("a script longer than 600 s of speech is refused on script", () => {
    const script = "This sentence takes a few seconds to say out loud. ".repeat(200);
    expect(verdict({ script, voice_id: "vc_emma" })).toEqual({ code: "INVALID_VALUE", field: "script", status: 400 });
  });

  it("INVALID_PLAN with the JSON path of the offending field, in the envelope and beside the code", () => {
    const plan = goodPlan() as unknown as Record<string, unknown>[];
    (plan[1] as { voice_id?: string }).voice_id = "vc_emma";
    const e = fails({ sequence_plan: plan });
    expect(e.status).toBe(400);
    expect(e.body).toEqual({
      error: "sequence_plan[1].voice_id: a block with a silent sequence must not have a voice_id",
      code: "INVALID_PLAN",
      details: [
        { code: "INVALID_PLAN", message: "sequence_plan[1].voice_id: a block with a silent sequence must not have a voice_id", field: "sequence_plan[1].voice_id" },
      ],
    });
    expect(verdict({ sequence_plan: "plan.json" })).toEqual({ code: "INVALID_PLAN", field: "sequence_plan", status: 400 });
  });

  it("PLAN_RESOLUTION_FAILED for a voice, look, avatar or asset the space does not have", () => {
    const cases: [(p: ReturnType<typeof goodPlan>) => void, string][] = [
      [(p) => void (p[2]!.voice_id = "vc_george"), "sequence_plan[2].voice_id"],
      [(p) => void (p[0]!.look_id = "lk_nope"), "sequence_plan[0].look_id"],
      [(p) => void (p[0]!.sequences[0]!.look_id = "lk_nope"), "sequence_plan[0].sequences[0].look_id"],
      [(p) => void (p[0]!.avatar_id = "av_nope"), "sequence_plan[0].avatar_id"],
      [(p) => void (p[2]!.sequences[0]!.media = { asset_id: "nope", show: "hide" }), "sequence_plan[2].sequences[0].media.asset_id"],
      [(p) => void (p[2]!.sequences[0]!.media = { asset_id: "gen1", show: "hide" }), "sequence_plan[2].sequences[0].media.asset_id"],
      [(p) => void (p[2]!.sequences[0]!.media = { asset_id: "aud1", show: "hide" }), "sequence_plan[2].sequences[0].media.asset_id"],
    ];
    for (const [breakIt, field] of cases) {
      const p = goodPlan();
      breakIt(p);
      expect(verdict({ sequence_plan: p }), field).toEqual({ code: "PLAN_RESOLUTION_FAILED", field, status: 400 });
    }
    const p = goodPlan();
    p[0]!.avatar_id = "av_maya";
    expect(start({ sequence_plan: p }).plan![0]!.avatar_id).toBe("av_maya");
  });

  it("a spoken block needs a voice: its own, the request's, or its audio (MISSING_VOICE on its voice_id)", () => {
    const plan = [{ sequences: [{ text: "Hi." }] }];
    expect(verdict({ sequence_plan: plan })).toEqual({ code: "MISSING_VOICE", field: "sequence_plan[0].voice_id", status: 400 });
    expect(start({ sequence_plan: plan, voice_id: "vc_noah" }).plan![0]!.voice).toEqual({ voice_id: "vc_noah", tts: "en-us+m3" });
    expect(start({ sequence_plan: [{ audio_url: "https://x.test/a.mp3", sequences: [{ text: "Hi." }] }] }).plan![0]).toMatchObject({
      voice: null,
      audio_url: "https://x.test/a.mp3",
    });
    // A silent-only plan needs no voice at all.
    expect(start({ sequence_plan: [{ sequences: [{ text: null, duration_ms: 10_000 }] }] }).estimated_ms).toBe(10_000);
  });
});

describe("the documented order when several things are wrong", () => {
  const everything = {
    prompt: 5,
    voice_id: "vc_nope",
    avatar_id: "lk_nope",
    format: "wide",
    duration: 3,
    webhook_url: "nope",
    sequence_plan: [{ sequences: [] }],
  };
  // The request's shape is checked once at the door, in the spec's order; ids the space does not
  // have (INVALID_VOICE_ID, INVALID_AVATAR_ID, PLAN_RESOLUTION_FAILED) need the space, so they come after.
  it("content types, MISSING_CONTENT, MISSING_FIELD, MISSING_VOICE, voice_id's type, avatar_id's type, INVALID_FORMAT, duration, other fields, INVALID_PLAN; then INVALID_VOICE_ID, INVALID_AVATAR_ID, PLAN_RESOLUTION_FAILED", () => {
    const steps: [Record<string, unknown>, string, string | undefined][] = [
      [everything, "INVALID_VALUE", "prompt"],
      [{ voice_id: "vc_nope", format: "wide" }, "MISSING_CONTENT", undefined],
      [{ prompt: "x", voice_id: "vc_nope", format: "wide" }, "MISSING_FIELD", "duration"],
      [{ script: "Hi.", avatar_id: "lk_nope", format: "wide" }, "MISSING_VOICE", "voice_id"],
      [{ script: "Hi.", voice_id: 7, avatar_id: 8, format: "wide" }, "INVALID_VOICE_ID", "voice_id"],
      [{ prompt: "x", duration: 3, avatar_id: 8, format: "wide" }, "INVALID_AVATAR_ID", "avatar_id"],
      [{ script: "Hi.", voice_id: "vc_nope", avatar_id: "lk_nope", format: "wide" }, "INVALID_FORMAT", "format"],
      [{ script: "Hi.", voice_id: "vc_nope", avatar_id: "lk_nope" }, "INVALID_VOICE_ID", "voice_id"],
      [{ prompt: "x", duration: 30, avatar_id: "lk_nope" }, "INVALID_AVATAR_ID", "avatar_id"],
      [{ prompt: "x", duration: 3, format: "wide", webhook_url: "nope" }, "INVALID_FORMAT", "format"],
      [{ prompt: "x", duration: 3, webhook_url: "nope" }, "INVALID_VALUE", "duration"],
      [{ sequence_plan: [{ sequences: [] }], webhook_url: "nope" }, "INVALID_VALUE", "webhook_url"],
      [{ sequence_plan: [{ voice_id: "vc_nope", sequences: [] }] }, "INVALID_PLAN", "sequence_plan[0].sequences"],
      [{ sequence_plan: [{ voice_id: "vc_nope", sequences: [{ text: "Hi." }] }] }, "PLAN_RESOLUTION_FAILED", "sequence_plan[0].voice_id"],
    ];
    for (const [input, code, field] of steps) expect([fails(input).code, fails(input).field], JSON.stringify(input)).toEqual([code, field]);
  });
});

describe("options and the estimate", () => {
  it("enable defaults: subtitles, b-roll and transitions on, music off; other flags default as documented", () => {
    const s = start({ prompt: "x", duration: 30, enable: { music: true, transitions: false } });
    expect(s.options).toEqual({ subtitles: true, broll: true, music: true, transitions: false });
    expect(s).toMatchObject({
      web_search: { script: false, images: false },
      animate_image: false,
      animate_image_max: null,
      animate_mode: "standard",
      use_native_avatar: false,
      native_avatar_model: "omni-flash",
      emotion_enhancement: false,
      use_space_media: true,
      save_media_to_space: true,
      use_veo3: false,
      media_urls: [],
      web_urls: [],
      webhook_url: null,
    });
  });

  it("prices the expected duration: 5 credits per started 30 s of (duration + 15 s)", () => {
    expect(estimateCredits(start({ prompt: "x", duration: 10 }))).toBe(5);
    expect(estimateCredits(start({ prompt: "x", duration: 15 }))).toBe(5);
    expect(estimateCredits(start({ prompt: "x", duration: 16 }))).toBe(10);
    expect(estimateCredits(start({ prompt: "x", duration: 45 }))).toBe(10);
    expect(estimateCredits(start({ prompt: "x", duration: 46 }))).toBe(15);
    expect(estimateCredits(start({ prompt: "x", duration: 600 }))).toBe(105);
    const script = "A sentence of moderate length for the estimate. ".repeat(12);
    expect(estimateCredits(start({ script, voice_id: "vc_emma" }))).toBe(generationCredits(estimateSpeechMs(script) / 1000));
  });

  it("animate_image adds 5 credits per supplied still (plan images; media_urls when b-roll applies), at most animate_image_max", () => {
    const base = estimateCredits(start({ sequence_plan: goodPlan() }));
    // a.png, c.jpg and the library image: three stills.
    expect(start({ sequence_plan: goodPlan(), animate_image: true }).animated_images).toBe(3);
    expect(estimateCredits(start({ sequence_plan: goodPlan(), animate_image: true }))).toBe(base + 15);
    expect(start({ sequence_plan: goodPlan(), animate_image: true, animate_image_max: 1 }).animated_images).toBe(1);
    const urls = ["https://x.test/a.png", "https://x.test/b.jpg", "https://x.test/a.png", "https://x.test/c.mp4"];
    expect(start({ prompt: "x", duration: 30, animate_image: true, media_urls: urls }).animated_images).toBe(2);
    expect(start({ prompt: "x", duration: 30, animate_image: true, media_urls: urls, enable: { broll: false } }).animated_images).toBe(0);
    expect(start({ prompt: "x", duration: 30, media_urls: urls }).animated_images).toBe(0);
  });
});

describe("pricing", () => {
  it("generationCredits: the 15 s buffer, started 30 s blocks, a minimum of one block, 5 per animated image", () => {
    const table: [number, number, number][] = [
      [0, 0, 5],
      [10, 0, 5],
      [15, 0, 5],
      [15.001, 0, 10],
      [45, 0, 10],
      [45.5, 0, 15],
      [600, 0, 105],
      [30, 2, 20],
    ];
    for (const [d, a, c] of table) expect(generationCredits(d, a), `${d} s, ${a} images`).toBe(c);
  });
});
