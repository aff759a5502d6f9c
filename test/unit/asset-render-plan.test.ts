import { describe, expect, it } from "vitest";
import type { AssetRow, RenderParams } from "../../src/features/asset/emulator/public/record.js";
import type { ResolvedRef } from "../../src/features/asset/emulator/public/refs.js";
import { MAX_FOLLOW_SECONDS, planRender } from "../../src/features/asset/emulator/render-plan.js";

const ref = (name: string, kind: "image" | "video" = "image"): ResolvedRef => ({ item: { url: name }, kind, source: `/src/${name}` });
const local = (r: ResolvedRef) => r.source.replace("/src/", "/local/");

function row(over: Partial<AssetRow>): AssetRow {
  return {
    id: "a".repeat(24),
    space_id: "sp",
    type: "video",
    model: "vidA-3",
    status: "generating",
    prompt: "p",
    aspect_ratio: "16:9",
    resolution: "720p",
    duration: 4,
    refs: null,
    params: "{}",
    cost_milli: 1,
    file_name: "p",
    folder_id: null,
    parent_media_id: null,
    webhook_url: null,
    simulate: null,
    file_path: "x.mp4",
    thumbnail_path: "x.jpg",
    width: 1280,
    height: 720,
    duration_seconds: 4,
    error_code: null,
    error_message: null,
    created_at: "",
    finished_at: null,
    ...over,
  };
}
function params(over: Partial<RenderParams>): RenderParams {
  return {
    render: "text-to-video",
    audio: true,
    settings: {},
    references: [],
    slots: {},
    elements: [],
    avatarDescription: null,
    urls: { media: "", thumbnail: null },
    ...over,
  };
}

describe("planRender", () => {
  it("an image gets every reference and element image, at the row's size", () => {
    const p = planRender(
      row({ type: "image", model: "imgA-4", width: 1024, height: 576, duration: null, resolution: "1K" }),
      params({ render: "image", references: [ref("a.png"), ref("b.png")], elements: [{ name: "e", images: [ref("c.png")] }] }),
      local,
    );
    expect(p).toEqual({ kind: "image", width: 1024, height: 576, prompt: "p", label: "ImgA 4 · 1K", references: ["/local/a.png", "/local/b.png", "/local/c.png"] });
  });

  it("a single image reference opens a text-to-video; several make a board", () => {
    const one = planRender(row({}), params({ references: [ref("a.png")] }), local);
    expect(one).toMatchObject({ startImage: "/local/a.png", references: [], durationSeconds: 4, audio: true, label: "VidA 3 · 720p · 4s" });
    const many = planRender(row({ model: "vidD-omni" }), params({ references: [ref("a.png"), ref("v.mp4", "video")] }), local);
    expect(many).toMatchObject({ references: ["/local/a.png", "/local/v.mp4"] });
    expect(many).not.toHaveProperty("startImage");
  });

  it("frames put the first/start slot first and the last/end slot last", () => {
    expect(
      planRender(row({ model: "vidA-3-frames" }), params({ render: "frames", slots: { first_frame: ref("f.png"), last_frame: ref("l.png") } }), local),
    ).toMatchObject({
      startImage: "/local/f.png",
      endImage: "/local/l.png",
    });
    const startOnly = planRender(row({ model: "vidB-2-5-frames" }), params({ render: "frames", slots: { start_image: ref("s.png") } }), local);
    expect(startOnly).toMatchObject({ startImage: "/local/s.png" });
    expect(startOnly).not.toHaveProperty("endImage");
  });

  it("motion, edit and upscale follow the probed source; extend keeps its own length", () => {
    const source = { width: 641, height: 359, durationSeconds: 3.2004 };
    const motion = planRender(
      row({ model: "vidB-motion", width: null, height: null, duration: null }),
      params({ render: "motion", slots: { start_image: ref("s.png"), motion_video: ref("m.mp4", "video") } }),
      local,
      source,
    );
    expect(motion).toMatchObject({ startImage: "/local/s.png", motionVideo: "/local/m.mp4", width: 642, height: 360, durationSeconds: 3.2 });
    const up = planRender(
      row({ model: "vidC-upscale", width: null, height: null, duration: null }),
      params({ render: "upscale", slots: { source_video: ref("v.mp4", "video") } }),
      local,
      source,
    );
    expect(up).toMatchObject({ sourceVideo: "/local/v.mp4", width: 1282, height: 718 });
    const long = planRender(row({ model: "vidC-edit" }), params({ render: "edit", slots: { source_video: ref("v.mp4", "video") } }), local, {
      ...source,
      durationSeconds: 900,
    });
    expect(long).toMatchObject({ durationSeconds: MAX_FOLLOW_SECONDS });
    const extend = planRender(row({ model: "vidA-3-extend", duration: 7 }), params({ render: "extend", slots: { source_video: ref("v.mp4", "video") } }), local);
    expect(extend).toMatchObject({ sourceVideo: "/local/v.mp4", durationSeconds: 7, width: 1280, height: 720 });
    expect(() => planRender(row({ model: "vidC-edit" }), params({ render: "edit", slots: { source_video: ref("v.mp4", "video") } }), local)).toThrow(/not probed/);
  });

  it("UGC adds the subject description to what is drawn", () => {
    const p = planRender(row({ model: "vidD-ugc" }), params({ render: "ugc", avatarDescription: "a tall man" }), local);
    expect(p.prompt).toBe("p\nSubject: a tall man");
  });
});
