/**
 * renderImage: a PNG of exactly width×height that pictures its inputs (prompt, label, references).
 * One ffmpeg run, bitexact, so the same inputs give the same bytes.
 */
import fs from "node:fs";
import path from "node:path";
import { removeQuietly, tempPathFor, writeAtomic, withWorkDir } from "./atomic.js";
import { cardGraph } from "./card.js";
import { RenderError } from "./errors.js";
import { checkFile, checkOut, checkSize, pngSize } from "./inputs.js";
import { cardLayout } from "./layout.js";
import { QUIET, runTool } from "./run.js";
import { getTools, type Tools } from "./tools.js";

export interface RenderImageOptions {
  out: string;
  width: number;
  height: number;
  prompt: string;
  label?: string;
  /** Local file paths, images or videos (a video contributes its first frame). */
  references?: string[];
  /** Varies the picture of one prompt (each generation its own); same seed, same bytes. */
  seed?: string;
  signal?: AbortSignal;
  /** Tools to use instead of the detected ones (tests of degraded builds). */
  tools?: Tools;
}

export interface RenderImageResult {
  width: number;
  height: number;
  /** False when this ffmpeg cannot draw text (no drawtext or no font): the picture has no words. */
  textDrawn: boolean;
}

export const BITEXACT = ["-fflags", "+bitexact", "-flags", "+bitexact", "-map_metadata", "-1"];
export { QUIET };

/**
 * Draws the card into `tmpPng` (used by renderImage and, at video size, by renderVideo), or as a
 * JPEG with `jpeg` (a video's title-card thumbnail: the same pixels as the PNG converted, in one run).
 */
export async function drawCard(
  tools: Tools,
  o: { width: number; height: number; prompt: string; label: string; references: string[]; seed?: string },
  workDir: string,
  tmpPng: string,
  signal?: AbortSignal,
  jpeg = false,
): Promise<{ textDrawn: boolean }> {
  const layout = cardLayout({
    width: o.width,
    height: o.height,
    prompt: o.prompt,
    label: o.label,
    tiles: o.references.length,
    ...(o.seed ? { seed: o.seed } : {}),
  });
  const part = cardGraph(tools, layout, o.references, workDir, 0, "card");
  const script = path.join(workDir, `card-${path.basename(tmpPng)}.graph`);
  fs.writeFileSync(script, `${part.graph};\n[card]format=rgb24${jpeg ? ",format=yuvj420p" : ""}[out]`);
  await runTool(
    tools.ffmpeg,
    [
      ...QUIET,
      ...part.inputArgs,
      "-filter_complex_script",
      script,
      "-map",
      "[out]",
      "-frames:v",
      "1",
      ...BITEXACT,
      ...(jpeg ? ["-c:v", "mjpeg", "-q:v", "3"] : ["-c:v", "png"]),
      "-f",
      "image2",
      "-update",
      "1",
      tmpPng,
    ],
    { signal, cwd: workDir },
  );
  return { textDrawn: part.textDrawn };
}

/** A thumbnail's encoding (a look's, a video's, an export's): one JPEG frame, quality 3. */
export const THUMBNAIL_JPEG_ARGS = ["-pix_fmt", "yuvj420p", "-q:v", "3", "-f", "image2", "-c:v", "mjpeg"];

export function imageLabel(label: string | undefined, width: number, height: number): string {
  return `${label ?? "mediagen local"} · ${width}×${height}`;
}

export async function renderImage(o: RenderImageOptions): Promise<RenderImageResult> {
  checkOut(o.out, "out");
  checkSize(o.width, o.height);
  const references = o.references ?? [];
  references.forEach((r, i) => void checkFile(r, `references[${i}]`));
  const tools = o.tools ?? (await getTools());
  return withWorkDir(async (workDir) => {
    let textDrawn = false;
    await writeAtomic(o.out, async (tmp) => {
      ({ textDrawn } = await drawCard(
        tools,
        { width: o.width, height: o.height, prompt: o.prompt ?? "", label: imageLabel(o.label, o.width, o.height), references, ...(o.seed ? { seed: o.seed } : {}) },
        workDir,
        tmp,
        o.signal,
      ));
      checkDrawn(tmp, o.width, o.height);
    });
    return { width: o.width, height: o.height, textDrawn };
  });
}

/**
 * Several pictures without references (the avatar catalog's) in ONE ffmpeg run: a run's start-up
 * (loading ffmpeg's libraries) costs more than drawing a card, so 26 pictures took 26 times that.
 * Each output is the PNG renderImage would write for the same options (same graph, bitexact), checked
 * for its size and renamed into place; on any failure none is kept.
 */
export async function renderImages(
  items: readonly Omit<RenderImageOptions, "references" | "signal" | "tools">[],
  o: { signal?: AbortSignal; tools?: Tools } = {},
): Promise<void> {
  if (items.length === 0) return;
  for (const it of items) {
    checkOut(it.out, "out");
    checkSize(it.width, it.height);
  }
  const tools = o.tools ?? (await getTools());
  await withWorkDir(async (workDir) => {
    const tmps = items.map((it) => tempPathFor(it.out));
    try {
      await drawCards(tools, items, tmps, workDir, o.signal);
      for (const [k, it] of items.entries()) checkDrawn(tmps[k]!, it.width, it.height);
      for (const [k, it] of items.entries()) fs.renameSync(tmps[k]!, path.resolve(it.out));
    } finally {
      tmps.forEach(removeQuietly);
    }
  });
}

/**
 * Draws the cards of `items` (no references) into `tmps`, one PNG each, in one ffmpeg run; each is
 * the file renderImage draws for the same options. The caller checks, renames and removes them.
 */
export async function drawCards(
  tools: Tools,
  items: readonly Pick<RenderImageOptions, "width" | "height" | "prompt" | "label" | "seed">[],
  tmps: readonly string[],
  workDir: string,
  signal?: AbortSignal,
): Promise<{ textDrawn: boolean }> {
  let textDrawn = false;
  const graph = items.map((it, k) => {
    const layout = cardLayout({
      width: it.width,
      height: it.height,
      prompt: it.prompt ?? "",
      label: imageLabel(it.label, it.width, it.height),
      tiles: 0,
      ...(it.seed ? { seed: it.seed } : {}),
    });
    const part = cardGraph(tools, layout, [], workDir, 0, `card${k}`);
    textDrawn = part.textDrawn;
    return `${part.graph};\n[card${k}]format=rgb24[out${k}]`;
  });
  fs.writeFileSync(path.join(workDir, "cards.graph"), graph.join(";\n"));
  const outputs = tmps.flatMap((tmp, k) => ["-map", `[out${k}]`, "-frames:v", "1", ...BITEXACT, "-c:v", "png", "-f", "image2", "-update", "1", tmp]);
  await runTool(tools.ffmpeg, [...QUIET, "-filter_complex_script", "cards.graph", ...outputs], { signal, cwd: workDir });
  return { textDrawn };
}

/** The drawn PNG is readable and exactly width×height, or the render failed. */
export function checkDrawn(png: string, width: number, height: number): void {
  const size = pngSize(png);
  if (!size || size.width !== width || size.height !== height) {
    throw new RenderError(`image came out ${size ? `${size.width}x${size.height}` : "unreadable"}, expected ${width}x${height}`, { tool: "ffmpeg" });
  }
}
