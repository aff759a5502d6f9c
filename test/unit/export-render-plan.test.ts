/**
 * The export renderer's pure parts: the spec on the frame and sample grids, subtitle timing, how runs
 * are split, what the render graph decodes, and how failures become export codes with messages free
 * of server paths.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RenderError } from "../../src/media/errors.js";
import { planSpec, type RenderSpec } from "../../src/media/export/index.js";
import { scrubPaths, tailOf, toExportError } from "../../src/media/export/errors.js";
import { planChunks, planVisuals, stillJobs } from "../../src/media/export/graph.js";
import { buildVideoGraph } from "../../src/media/export/video-graph.js";
import { assTime, buildAss, chunkCues, planCues } from "../../src/media/export/subtitles.js";
import { buildSpec } from "./export-render-fixtures.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-export-plan-"));
const img = path.join(dir, "a.png");
const wav = path.join(dir, "a.wav");
const clip = path.join(dir, "a.mp4");
for (const f of [img, wav, clip]) fs.writeFileSync(f, "x");
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("planSpec", () => {
  it("puts sequences on the frame grid and speech on the 48 kHz grid, silence between", () => {
    const spec = buildSpec(
      [
        { seconds: 1.5, look: img, wav },
        { seconds: 0.5, look: img, text: null },
        { seconds: 1, look: null, wav },
      ],
      { width: 180, height: 320 },
    );
    const plan = planSpec(spec);
    expect(plan.frames).toBe(90);
    expect(plan.sequences.map((s) => [s.start, s.frames])).toEqual([
      [0, 45],
      [45, 15],
      [60, 30],
    ]);
    expect(plan.voice).toEqual([
      { file: wav, startSample: 0, samples: 72000 },
      { file: wav, startSample: 96000, samples: 48000 },
    ]);
  });

  it("rejects gaps, empty sequences, odd sizes and missing files with the right codes", () => {
    const ok = (): RenderSpec =>
      buildSpec(
        [
          { seconds: 1, look: img, wav },
          { seconds: 1, look: img, wav },
        ],
        { width: 180, height: 320 },
      );
    const gap = ok();
    gap.blocks[0]!.sequences[1]!.start_ms = 1100;
    expect(() => planSpec(gap)).toThrow(
      expect.objectContaining({ code: "EXPORT_FAILED", message: expect.stringMatching(/sequence 2 starts at 1100 ms, expected 1000 ms/) }),
    );
    const empty = ok();
    empty.blocks[0]!.sequences[1]!.end_ms = 1010;
    empty.duration_ms = 1010;
    expect(() => planSpec(empty)).toThrow(expect.objectContaining({ code: "EXPORT_FAILED" }));
    expect(() => planSpec({ ...ok(), width: 181 })).toThrow(expect.objectContaining({ code: "FORMAT_CONVERSION_FAILED" }));
    expect(() => planSpec({ ...ok(), height: 5002 })).toThrow(expect.objectContaining({ code: "FORMAT_CONVERSION_FAILED" }));
    const missing = ok();
    missing.blocks[0]!.sequences[0]!.media = { kind: "video", path: path.join(dir, "gone.mp4"), show: "full" };
    expect(() => planSpec(missing)).toThrow(expect.objectContaining({ code: "EXPORT_FAILED", message: "missing input: media of sequence 1 (gone.mp4)" }));
    expect(planSpec({ ...ok(), width: 4200, height: 2400 }).warnings.join(" ")).toMatch(/above 4096/);
  });
});

describe("subtitles", () => {
  it("cuts sentences into ~4-word cues that tile the sentence, timed by length", () => {
    const cues = chunkCues("one two three four five six seven eight nine", 1000, 4000);
    expect(cues.map((c) => c.text)).toEqual(["one two three four", "five six seven eight", "nine"]);
    expect(cues[0]!.startMs).toBe(1000);
    expect(cues.at(-1)!.endMs).toBe(4000);
    for (let i = 1; i < cues.length; i++) expect(cues[i]!.startMs).toBe(cues[i - 1]!.endMs);
    // Longer chunks last longer.
    expect(cues[0]!.endMs - cues[0]!.startMs).toBeGreaterThan(cues[2]!.endMs - cues[2]!.startMs);
    // Braces and backslashes would start ASS override tags: dropped, the words stay.
    expect(chunkCues("  {\\b1} ", 0, 100).map((c) => c.text)).toEqual(["b1"]);
    expect(chunkCues(" \n\t ", 0, 100)).toEqual([]);
  });

  it("writes ASS at the output's resolution with our font", () => {
    expect(assTime(3723450)).toBe("1:02:03.45");
    const plan = planSpec(buildSpec([{ seconds: 1, look: img, wav, text: "Hello {there} world" }], { width: 1080, height: 1920 }));
    const ass = buildAss(plan, planCues(plan));
    expect(ass).toContain("PlayResX: 1080\nPlayResY: 1920");
    expect(ass).toMatch(/Style: Default,DejaVu Sans,63,/);
    expect(ass).toContain("Dialogue: 0,0:00:00.00,0:00:01.00,Default,,0,0,0,,Hello there world");
  });
});

describe("planChunks", () => {
  const layouts: Array<[("image" | "video") | null, "full" | "half" | "background" | "hide"]> = [
    [null, "hide"],
    ["video", "full"],
    ["image", "half"],
    ["video", "background"],
    [null, "hide"],
    ["image", "full"],
  ];
  const spec = (n: number): RenderSpec =>
    buildSpec(
      Array.from({ length: n }, (_, i) => {
        const [kind, show] = layouts[i % layouts.length]!;
        return { seconds: 2, look: img, wav, media: kind ? { kind, path: kind === "video" ? clip : img, show } : undefined };
      }),
      { width: 1080, height: 1920, transitions: true },
    );

  it("keeps the reference-shaped plan (six sequences, two clips, five crossfades) in one run", () => {
    const plan = planSpec(spec(6));
    expect(planChunks(plan, planVisuals(plan, new Map()), { xfade: true })).toHaveLength(1);
  });

  it("splits long timelines into runs that tile the video", () => {
    const plan = planSpec(spec(36));
    const chunks = planChunks(plan, planVisuals(plan, new Map()), { xfade: true });
    expect(chunks.length).toBeGreaterThan(4);
    expect(chunks[0]!.from).toBe(0);
    expect(chunks.at(-1)!.to).toBe(36);
    let frame = 0;
    chunks.forEach((c, k) => {
      expect(c.startFrame).toBe(frame);
      if (k > 0) expect(c.from).toBe(chunks[k - 1]!.to);
      frame += c.frames;
    });
    expect(frame).toBe(plan.frames);
  });
});

describe("the render graph", () => {
  const clip2 = path.join(dir, "b.mp4");
  fs.writeFileSync(clip2, "x");
  const graphOf = (media: Array<{ path: string; show: "full" | "background" } | undefined>, draft = false, cueMs?: number[]) => {
    const plan = planSpec(
      buildSpec(
        media.map((m) => ({ seconds: 2, look: img, wav, media: m ? { kind: "video" as const, ...m } : undefined })),
        { width: 1080, height: 1920, transitions: true },
      ),
    );
    const visuals = planVisuals(plan, new Map());
    const stillFiles = new Map(stillJobs(visuals).map((j, k) => [j.key, `still-${k}.raw`]));
    const info = new Map([clip, clip2].map((f) => [f, { width: 1920, height: 1080, durationSeconds: 8 }]));
    return buildVideoGraph(plan, visuals, { xfade: true, info, stillFiles, draft, ...(cueMs ? { subtitles: { file: "subs.ass", cueMs } } : {}) });
  };
  const decodes = (inputs: string[], file: string) => inputs.filter((a) => a === `file:${file}`).length;

  it("decodes a clip once when a blurred background plays it from where an earlier sequence did", () => {
    const g = graphOf([{ path: clip, show: "full" }, undefined, { path: clip, show: "background" }]);
    expect(decodes(g.inputs, clip)).toBe(1);
    expect(g.graph).toMatch(/fps=30,split=2\[clip\d+\]\[clip\d+\]/);
    // The background's frames wait at quarter size, blurred, before they are scaled up.
    expect(g.graph).toMatch(/scale=270:480,setsar=1,format=yuv420p,boxblur=\d+:2,fifo,scale=1080:1920/);
    // The shared decode keeps the deblocking filter the sharp branch needs.
    expect(g.inputs).not.toContain("-skip_loop_filter");
  });

  it("decodes separately what cannot wait at quarter size: another clip, or a sharp branch after a blurred one", () => {
    const other = graphOf([
      { path: clip, show: "full" },
      { path: clip2, show: "background" },
    ]);
    expect([decodes(other.inputs, clip), decodes(other.inputs, clip2)]).toEqual([1, 1]);
    const sharpLater = graphOf([{ path: clip, show: "background" }, undefined, { path: clip, show: "full" }]);
    expect(decodes(sharpLater.inputs, clip)).toBe(2);
    expect(sharpLater.graph).not.toContain("fifo");
  });

  it("burns subtitles once per cue on a still's repeated frames, and repeats the burned frame in their place", () => {
    // A 2 s still (frames 0-59), its crossfade, a 2 s clip; cues change at 0, 1 s, 2 s and 4 s.
    const g = graphOf([undefined, { path: clip, show: "full" }], false, [0, 1000, 1000, 2000, 2000, 4000]);
    // Dropped: the still's frames more than a frame away from a cue change; kept: everything else.
    expect(g.graph).toContain("setpts=N,select='not(between(n\\,2\\,28)+between(n\\,32\\,58))',subtitles=filename=subs.ass,fps=30[vout]");
    // Nothing to drop where no still repeats, or without cue times.
    expect(
      graphOf(
        [
          { path: clip, show: "full" },
          { path: clip2, show: "full" },
        ],
        false,
        [0, 4000],
      ).graph,
    ).not.toContain("select=");
    expect(graphOf([undefined, { path: clip, show: "full" }]).graph).not.toContain("subtitles");
  });

  it("drafts decode without deblocking or non-reference frames and scale fast; full exports do neither", () => {
    const media = [
      { path: clip, show: "full" as const },
      { path: clip2, show: "background" as const },
    ];
    const draft = graphOf(media, true);
    expect(draft.inputs.join(" ").match(/-skip_loop_filter all -skip_frame noref/g)).toHaveLength(2);
    expect(draft.graph).toContain("scale=1080:1920:flags=fast_bilinear");
    const full = graphOf(media);
    expect(full.inputs).not.toContain("-skip_frame");
    expect(full.graph).not.toContain("fast_bilinear");
    // Only the blurred background's clip is decoded without deblocking.
    expect(full.inputs.filter((a) => a === "-skip_loop_filter")).toHaveLength(1);
  });
});

describe("export errors", () => {
  it("keeps base names, drops directories, leaves ratios alone", () => {
    expect(scrubPaths("file:/srv/media/u1/clip.mp4: Invalid data; settb=1/30 '/tmp/x/y/look.png'")).toBe("file:clip.mp4: Invalid data; settb=1/30 'look.png'");
    expect(tailOf("[mov,mp4 @ 0x55aa] moov atom not found\nfile:/a/b.mp4: Invalid data found\nConversion failed!")).toBe(
      "moov atom not found | /a/b.mp4: Invalid data found",
    );
  });

  it("maps failures to the spec's codes", () => {
    const enospc = Object.assign(new Error("write failed"), { code: "ENOSPC" });
    expect(toExportError(enospc, "writing")).toMatchObject({ code: "STORAGE_FAILED" });
    const full = new RenderError("ffmpeg exited with code 1", { tool: "ffmpeg", exitCode: 1, stderrTail: "/var/lib/out/.x.tmp: No space left on device" });
    expect(toExportError(full, "rendering the video")).toMatchObject({ code: "STORAGE_FAILED", message: expect.not.stringContaining("/var/lib") });
    const bad = new RenderError("ffmpeg exited with code 1", {
      tool: "ffmpeg",
      exitCode: 1,
      stderrTail: "[Parsed_xfade_3 @ 0x1] First input link main timebase do not match\nError while filtering",
    });
    const e = toExportError(bad, "rendering the video");
    expect(e.code).toBe("ENCODING_FAILED");
    expect(e.message).toBe("rendering the video failed: ffmpeg exited with code 1: First input link main timebase do not match");
    expect(toExportError(new RenderError("ffmpeg was cancelled", { tool: "ffmpeg", aborted: true }), "x")).toMatchObject({ code: "EXPORT_FAILED", aborted: true });
    expect(toExportError(new Error("boom"), "x")).toMatchObject({ code: "EXPORT_FAILED", message: "x failed: boom" });
  });
});
