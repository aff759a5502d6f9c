/**
 * The sequence plan's rules (pure, shared by the handler and `generate --plan`): every rule with the
 * JSON path of the offending field, normalisation (show default, asset_id over url), the estimate.
 */
import { describe, expect, it } from "vitest";
import { checkPlan, extensionOf, isLocalRef, planEstimateMs, planHasMedia, refProblem } from "../../src/features/generation/plan.js";
import { estimateSpeechMs } from "../../src/features/generation/text.js";
import { GOOD_PLAN } from "./generation-fixtures.js";

const local = { allowLocalFiles: true };
const http = { allowLocalFiles: false };

function problemsOf(plan: unknown, o = local) {
  return checkPlan(plan, o).problems.map((p) => [p.field, p.message]);
}
function firstField(plan: unknown, o = local) {
  return checkPlan(plan, o).problems[0]?.field;
}

describe("a good plan", () => {
  it("is accepted and normalised: show defaults to hide, asset_id wins over url, silent durations kept", () => {
    const r = checkPlan(GOOD_PLAN, http);
    expect(r.problems).toEqual([]);
    expect(r.blocks).toHaveLength(3);
    expect(r.blocks![0]).toMatchObject({ voice_id: "vc_emma", look_id: "lk_maya_kitchen", audio_url: null, avatar_id: null });
    expect(r.blocks![0]!.sequences[1]).toEqual({
      text: "Here is how we cook.",
      duration_ms: null,
      look_id: null,
      action: "smiles",
      media: { url: "https://cdn.example.com/b.mp4", show: "half", start_at: 1 },
    });
    expect(r.blocks![1]!.sequences[0]).toMatchObject({ text: null, duration_ms: 1500 });
    expect(r.blocks![2]!.sequences[0]!.media).toEqual({ asset_id: "0123456789abcdef01234567", show: "hide" });

    const both = checkPlan([{ sequences: [{ text: "Hi.", media: { asset_id: "a1", url: "not even a url" } }] }], http);
    expect(both.problems).toEqual([]);
    expect(both.blocks![0]!.sequences[0]!.media).toEqual({ asset_id: "a1", show: "hide" });
    const noShow = checkPlan([{ sequences: [{ text: "Hi.", media: { url: "https://x.test/y.webp" } }] }], http);
    expect(noShow.blocks![0]!.sequences[0]!.media!.show).toBe("hide");
  });

  it("knows whether any sequence has media (automatic b-roll only when none has)", () => {
    expect(planHasMedia(checkPlan(GOOD_PLAN, local).blocks!)).toBe(true);
    expect(planHasMedia(checkPlan([{ sequences: [{ text: "Hi." }] }], local).blocks!)).toBe(false);
  });

  it("is estimated from its text at the TTS rate plus its silences", () => {
    const blocks = checkPlan(GOOD_PLAN, local).blocks!;
    const speech = ["Welcome to the kitchen.", "Here is how we cook.", "And that is all."].reduce((n, t) => n + estimateSpeechMs(t), 0);
    expect(planEstimateMs(blocks)).toBe(speech + 1500);
  });
});

describe("every rule, with the offending field's path", () => {
  it("the plan must be a non-empty array of block objects with sequences", () => {
    expect(problemsOf({})).toEqual([["sequence_plan", "sequence_plan: must be an array of speech blocks"]]);
    expect(firstField([])).toBe("sequence_plan");
    expect(firstField(["x"])).toBe("sequence_plan[0]");
    expect(firstField([{}])).toBe("sequence_plan[0].sequences");
    expect(firstField([{ sequences: {} }])).toBe("sequence_plan[0].sequences");
    expect(firstField([{ sequences: [] }])).toBe("sequence_plan[0].sequences");
    expect(firstField([{ sequences: [{ text: "a" }] }, { sequences: [7] }])).toBe("sequence_plan[1].sequences[0]");
  });

  it("text is required: a non-empty string, or null for silence", () => {
    expect(problemsOf([{ sequences: [{}] }])).toEqual([
      ["sequence_plan[0].sequences[0].text", "sequence_plan[0].sequences[0].text: is required: a string, or null for a silent sequence"],
    ]);
    expect(firstField([{ sequences: [{ text: 3 }] }])).toBe("sequence_plan[0].sequences[0].text");
    expect(firstField([{ sequences: [{ text: "  " }] }])).toBe("sequence_plan[0].sequences[0].text");
  });

  it("a silent sequence needs a positive duration_ms, at most 600000", () => {
    expect(problemsOf([{ sequences: [{ text: null }] }])).toEqual([
      ["sequence_plan[0].sequences[0].duration_ms", "sequence_plan[0].sequences[0].duration_ms: is required for a silent sequence (text: null)"],
    ]);
    for (const d of [0, -5, "1500", Number.NaN]) expect(firstField([{ sequences: [{ text: null, duration_ms: d }] }])).toBe("sequence_plan[0].sequences[0].duration_ms");
    expect(firstField([{ sequences: [{ text: null, duration_ms: 600_001 }] }])).toBe("sequence_plan[0].sequences[0].duration_ms");
    expect(firstField([{ sequences: [{ text: null, duration_ms: 600_000 }] }])).toBeUndefined();
  });

  it("a silent sequence is alone in its block, with no voice_id and no audio", () => {
    expect(firstField([{ sequences: [{ text: "Hi." }, { text: null, duration_ms: 500 }] }])).toBe("sequence_plan[0].sequences[1]");
    expect(problemsOf([{ sequences: [{ text: "Hi." }] }, { voice_id: "vc_emma", sequences: [{ text: null, duration_ms: 1500 }] }])).toEqual([
      ["sequence_plan[1].voice_id", "sequence_plan[1].voice_id: a block with a silent sequence must not have a voice_id"],
    ]);
    expect(firstField([{ audio_url: "https://x.test/a.mp3", sequences: [{ text: null, duration_ms: 1500 }] }])).toBe("sequence_plan[0].audio_url");
  });

  it("spoken sequences must not carry duration_ms (they are timed from their audio)", () => {
    expect(problemsOf([{ sequences: [{ text: "Hi.", duration_ms: 2000 }] }])).toEqual([
      [
        "sequence_plan[0].sequences[0].duration_ms",
        "sequence_plan[0].sequences[0].duration_ms: only silent sequences (text: null) take duration_ms; spoken sequences are timed from their audio",
      ],
    ]);
  });

  it("ids and action are strings", () => {
    expect(firstField([{ voice_id: 5, sequences: [{ text: "a" }] }])).toBe("sequence_plan[0].voice_id");
    expect(firstField([{ look_id: "", sequences: [{ text: "a" }] }])).toBe("sequence_plan[0].look_id");
    expect(firstField([{ avatar_id: [], sequences: [{ text: "a" }] }])).toBe("sequence_plan[0].avatar_id");
    expect(firstField([{ sequences: [{ text: "a", look_id: 1 }] }])).toBe("sequence_plan[0].sequences[0].look_id");
    expect(firstField([{ sequences: [{ text: "a", action: {} }] }])).toBe("sequence_plan[0].sequences[0].action");
  });

  it("media needs an asset_id or a url, a show of the four, a start_at of 0 or more, and an image or video URL", () => {
    const m = (media: unknown) => firstField([{ sequences: [{ text: "a", media }] }], http);
    expect(problemsOf([{ sequences: [{ text: "a", media: { show: "full" } }] }])).toEqual([
      ["sequence_plan[0].sequences[0].media", "sequence_plan[0].sequences[0].media: needs an asset_id (library media) or a url (public image or video)"],
    ]);
    expect(m("https://x.test/a.png")).toBe("sequence_plan[0].sequences[0].media");
    expect(m(null)).toBe("sequence_plan[0].sequences[0].media");
    expect(m({ asset_id: "" })).toBe("sequence_plan[0].sequences[0].media.asset_id");
    expect(m({ url: 4 })).toBe("sequence_plan[0].sequences[0].media.url");
    expect(m({ url: "https://x.test/a.gif" })).toBe("sequence_plan[0].sequences[0].media.url");
    expect(m({ url: "ftp://x.test/a.png" })).toBe("sequence_plan[0].sequences[0].media.url");
    expect(m({ url: "https://x.test/a.png", show: "side" })).toBe("sequence_plan[0].sequences[0].media.show");
    expect(m({ url: "https://x.test/a.mp4", start_at: -1 })).toBe("sequence_plan[0].sequences[0].media.start_at");
    for (const show of ["full", "half", "background", "hide"]) expect(m({ url: "https://x.test/a.mov", show })).toBeUndefined();
  });

  it("local files are accepted in process and refused over HTTP, before looking at the file", () => {
    const plan = [{ audio_url: "/no/such/voice.wav", sequences: [{ text: "a", media: { url: "file:///no/such/pic.png" } }] }];
    expect(checkPlan(plan, local).problems).toEqual([]);
    expect(problemsOf(plan, http)).toEqual([
      ["sequence_plan[0].audio_url", "sequence_plan[0].audio_url: local files are not accepted over HTTP; use an http(s) URL"],
      ["sequence_plan[0].sequences[0].media.url", "sequence_plan[0].sequences[0].media.url: local files are not accepted over HTTP; use an http(s) URL"],
    ]);
  });

  it("block audio is mp3, wav or m4a", () => {
    expect(firstField([{ audio_url: "https://x.test/a.ogg", sequences: [{ text: "a" }] }])).toBe("sequence_plan[0].audio_url");
    expect(firstField([{ audio_url: "https://x.test/a.M4A?sig=1", sequences: [{ text: "a" }] }])).toBeUndefined();
  });

  it("a plan of more than 600 s (text at the TTS rate plus silences) is refused on sequence_plan", () => {
    const long = Array.from({ length: 3 }, () => ({ sequences: [{ text: null, duration_ms: 250_000 }] }));
    expect(problemsOf(long)).toEqual([
      ["sequence_plan", "sequence_plan: is about 750 s of video (speech estimated from its text, plus silences); a video is at most 600 s"],
    ]);
  });

  it("reports every problem of the plan (the CLI prints them all), each once", () => {
    const plan = [{ voice_id: "vc_emma", sequences: [{ text: null }, { text: null, duration_ms: 10 }] }, { sequences: [{ text: "a", media: {} }] }];
    expect(checkPlan(plan, local).problems.map((p) => p.field)).toEqual([
      "sequence_plan[0].sequences[0].duration_ms",
      "sequence_plan[0].sequences[0]",
      "sequence_plan[0].voice_id",
      "sequence_plan[0].sequences[1]",
      "sequence_plan[1].sequences[0].media",
    ]);
  });
});

describe("media references", () => {
  it("extensions come from the URL's path (not its query) or the file's name", () => {
    expect(extensionOf("https://x.test/a/b.PNG?x=1.mp4#y")).toBe(".png");
    expect(extensionOf("file:///tmp/a%20b.mp4")).toBe(".mp4");
    expect(extensionOf("/tmp/clip.webm")).toBe(".webm");
    expect(extensionOf("https://x.test/noext")).toBe("");
    expect(isLocalRef("C:/x.png")).toBe(true);
    expect(isLocalRef("https://x.test/a.png")).toBe(false);
    expect(refProblem("https://x.test/a.wav", ["audio"], http)).toBeUndefined();
    expect(refProblem("https://x.test/a.wav", ["image", "video"], http)).toBe("must end in .jpg, .jpeg, .png, .webp, .mp4, .mov, .webm, .m4v");
  });
});
