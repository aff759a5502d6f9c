import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { getTools, MediaInputError, RenderError, renderImage, type Tools } from "../../src/media/index.js";
import { renderImages } from "../../src/media/image.js";
import { ensureFiles } from "../../src/local/media-cache.js";
import { pngSize } from "../../src/media/inputs.js";
import { leftoverTemps, makeImage, makeVideo, sha, tempDir } from "./media-fixtures.js";

let tools: Tools;
let dir: string;
let refA: string;
let refB: string;
let refVideo: string;

beforeAll(async () => {
  tools = await getTools();
  dir = tempDir();
  refA = makeImage(tools, path.join(dir, "a.png"), { size: "200x120" });
  refB = makeImage(tools, path.join(dir, "b.png"), { size: "90x160", source: "rgbtestsrc" });
  refVideo = makeVideo(tools, path.join(dir, "clip.mp4"), { seconds: 2 });
});

describe("renderImage", () => {
  it.each([
    [1024, 1024],
    [1280, 720],
    [720, 1280],
    [1536, 640],
    [333, 77],
    [64, 64],
    [1, 1],
  ])("writes a PNG of exactly %ix%i", async (width, height) => {
    const out = path.join(dir, `size-${width}x${height}.png`);
    const r = await renderImage({ out, width, height, prompt: "A lighthouse at dusk", label: "flux" });
    expect({ width: r.width, height: r.height }).toEqual({ width, height });
    expect(pngSize(out)).toEqual({ width, height });
  });

  it("gives the same bytes for the same inputs and different bytes for another prompt", async () => {
    const o = { width: 320, height: 240, prompt: "same inputs", label: "m", references: [refA] };
    await renderImage({ ...o, out: path.join(dir, "d1.png") });
    await renderImage({ ...o, out: path.join(dir, "d2.png") });
    await renderImage({ ...o, prompt: "other inputs", out: path.join(dir, "d3.png") });
    expect(sha(path.join(dir, "d1.png"))).toBe(sha(path.join(dir, "d2.png")));
    expect(sha(path.join(dir, "d3.png"))).not.toBe(sha(path.join(dir, "d1.png")));
  });

  it("a seed varies the picture of one prompt (each generation its own), and the same seed gives the same bytes", async () => {
    const o = { width: 320, height: 240, prompt: "one prompt", label: "m" };
    await renderImage({ ...o, seed: "a", out: path.join(dir, "s1.png") });
    await renderImage({ ...o, seed: "a", out: path.join(dir, "s2.png") });
    await renderImage({ ...o, seed: "b", out: path.join(dir, "s3.png") });
    expect(sha(path.join(dir, "s1.png"))).toBe(sha(path.join(dir, "s2.png")));
    expect(sha(path.join(dir, "s3.png"))).not.toBe(sha(path.join(dir, "s1.png")));
  });

  it("composites every reference, images and the first frame of videos", async () => {
    const base = { width: 320, height: 240, prompt: "refs", label: "m" };
    const outs = {
      none: path.join(dir, "r0.png"),
      a: path.join(dir, "r1.png"),
      ab: path.join(dir, "r2.png"),
      video: path.join(dir, "r3.png"),
    };
    await renderImage({ ...base, out: outs.none });
    await renderImage({ ...base, out: outs.a, references: [refA] });
    await renderImage({ ...base, out: outs.ab, references: [refA, refB] });
    await renderImage({ ...base, out: outs.video, references: [refVideo] });
    const hashes = Object.values(outs).map(sha);
    expect(new Set(hashes).size).toBe(4);
    for (const f of Object.values(outs)) expect(pngSize(f)).toEqual({ width: 320, height: 240 });
  });

  it("copes with awkward paths: spaces, quotes, colons, commas, brackets and % in names", async () => {
    const weird = path.join(dir, "we:ird, [dir]'s %d");
    fs.mkdirSync(weird, { recursive: true });
    const font = path.join(weird, "font's, [x]:.ttf");
    fs.copyFileSync(tools.fontFile, font);
    const ref = path.join(weird, "ref %03d.png");
    fs.copyFileSync(refA, ref);
    const out = path.join(weird, "out 'x', [y].png");
    const r = await renderImage({
      out,
      width: 200,
      height: 100,
      prompt: "50% off: it's [odd], isn't it? %{pts}",
      references: [ref],
      tools: { ...tools, fontFile: font },
    });
    expect(r.textDrawn).toBe(true);
    expect(pngSize(out)).toEqual({ width: 200, height: 100 });
  });

  it("still renders at the exact size when this ffmpeg cannot draw text", async () => {
    const out = path.join(dir, "notext.png");
    const withText = path.join(dir, "withtext.png");
    const o = { width: 300, height: 200, prompt: "no drawtext here", references: [refA] };
    const r = await renderImage({ ...o, out, tools: { ...tools, hasDrawtext: false } });
    await renderImage({ ...o, out: withText });
    expect(r.textDrawn).toBe(false);
    expect(pngSize(out)).toEqual({ width: 300, height: 200 });
    expect(sha(out)).not.toBe(sha(withText));
  });

  it("rejects bad sizes and missing references before running anything", async () => {
    const out = path.join(dir, "bad.png");
    await expect(renderImage({ out, width: 0, height: 10, prompt: "x" })).rejects.toMatchObject({ name: "MediaInputError", field: "width" });
    await expect(renderImage({ out, width: 10, height: 9000, prompt: "x" })).rejects.toBeInstanceOf(MediaInputError);
    await expect(renderImage({ out, width: 10, height: 10.5, prompt: "x" })).rejects.toMatchObject({ field: "height" });
    await expect(renderImage({ out, width: 10, height: 10, prompt: "x", references: [path.join(dir, "nope.png")] })).rejects.toMatchObject({
      field: "references[0]",
    });
    expect(fs.existsSync(out)).toBe(false);
  });

  it("leaves no output and no temp file when ffmpeg fails, and says why", async () => {
    const sub = path.join(dir, "fail");
    fs.mkdirSync(sub);
    const broken = path.join(sub, "broken.png");
    fs.writeFileSync(broken, "this is not an image");
    const out = path.join(sub, "out.png");
    const err = await renderImage({ out, width: 100, height: 100, prompt: "x", references: [broken] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderError);
    expect((err as RenderError).stderrTail.length).toBeGreaterThan(0);
    expect(fs.existsSync(out)).toBe(false);
    expect(leftoverTemps(sub)).toEqual([]);
  });

  it("replaces an existing output whole", async () => {
    const out = path.join(dir, "replace.png");
    fs.writeFileSync(out, "old");
    await renderImage({ out, width: 50, height: 40, prompt: "new" });
    expect(pngSize(out)).toEqual({ width: 50, height: 40 });
    expect(leftoverTemps(dir)).toEqual([]);
  });
});

describe("renderImages: several pictures in one ffmpeg run (the avatar catalog's)", () => {
  it("writes each the bytes renderImage writes for the same options", async () => {
    const sub = fs.mkdtempSync(path.join(dir, "many-"));
    const items = [
      { width: 360, height: 640, prompt: "Maya: in her kitchen", label: "kitchen" },
      { width: 640, height: 360, prompt: "James: in his car", label: "car" },
      { width: 333, height: 77, prompt: "odd size", label: "odd", seed: "s1" },
    ];
    await renderImages(items.map((it, k) => ({ ...it, out: path.join(sub, `many-${k}.png`) })));
    for (const [k, it] of items.entries()) {
      await renderImage({ ...it, out: path.join(sub, `one-${k}.png`) });
      expect(sha(path.join(sub, `many-${k}.png`)), it.prompt).toBe(sha(path.join(sub, `one-${k}.png`)));
    }
    expect(leftoverTemps(sub)).toEqual([]);
  });

  it("keeps none when the run fails, and leaves no temp file", async () => {
    const sub = fs.mkdtempSync(path.join(dir, "many-fail-"));
    const outs = [0, 1].map((k) => path.join(sub, `p-${k}.png`));
    const err = await renderImages(
      outs.map((out) => ({ out, width: 64, height: 64, prompt: "x" })),
      { tools: { ...tools, ffmpeg: "/bin/false" } },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderError);
    expect(fs.readdirSync(sub)).toEqual([]);
  });
});

describe("ensureFiles: files made together", () => {
  it("makes each missing file once, waits for one another caller is making, and renames each into place", async () => {
    const sub = fs.mkdtempSync(path.join(dir, "ensure-"));
    const [a, b, c, d] = ["a", "b", "c", "d"].map((n) => path.join(sub, n, `${n}.txt`));
    fs.mkdirSync(path.dirname(d!), { recursive: true });
    fs.writeFileSync(d!, "already here");
    const asked: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const make = async (files: Array<{ abs: string; tmp: string }>) => {
      asked.push(files.map((f) => path.basename(f.abs)));
      await gate;
      for (const f of files) fs.writeFileSync(f.tmp, path.basename(f.abs));
    };
    const first = ensureFiles([a!, b!, d!], make);
    const second = ensureFiles([b!, c!], make);
    let secondDone = false;
    void second.then(() => (secondDone = true));
    // b is the first call's: the second makes only c, and still waits for b.
    expect(asked).toEqual([["a.txt", "b.txt"], ["c.txt"]]);
    release();
    await Promise.all([first, second]);
    expect(secondDone).toBe(true);
    expect([a, b, c, d].map((f) => fs.readFileSync(f!, "utf8"))).toEqual(["a.txt", "b.txt", "c.txt", "already here"]);
    for (const x of ["a", "b", "c"]) expect(fs.readdirSync(path.join(sub, x))).toEqual([`${x}.txt`]);
  });

  it("keeps nothing of a batch that fails, and the next call makes it again", async () => {
    const sub = fs.mkdtempSync(path.join(dir, "ensure-fail-"));
    const [a, b] = ["a.txt", "b.txt"].map((n) => path.join(sub, n));
    const failing = ensureFiles([a!, b!], async (files) => {
      fs.writeFileSync(files[0]!.tmp, "half");
      throw new Error("the run failed");
    });
    await expect(failing).rejects.toThrow("the run failed");
    expect(fs.readdirSync(sub)).toEqual([]);
    await ensureFiles([a!, b!], async (files) => {
      for (const f of files) fs.writeFileSync(f.tmp, "whole");
    });
    expect(fs.readdirSync(sub).sort()).toEqual(["a.txt", "b.txt"]);
  });
});
