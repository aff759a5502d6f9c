/**
 * Vitest global setup: the avatar catalog's pictures, and their thumbnails at a portrait video's size,
 * drawn ONCE per run. A new home draws its 26 catalog pictures on first use (seconds of ffmpeg), and
 * a look's thumbnail when a video first opens on it; test homes made by `newHome()` start with links
 * to these instead (test/helpers/catalog-seed.ts). Drawn by the product's own code with the tools
 * this run uses, so the copies are the files a home would draw. `emptyHome()` gives a home without
 * them, for the tests of that first drawing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { CATALOG_AVATARS, catalogLookRelPath, ensureCatalogLookImages } from "../../src/features/avatar/emulator/public/catalog.js";
import { cachedThumbnail, coverFilter, thumbnailSize } from "../../src/features/video/emulator/public/thumbnail.js";
import { QUIET, THUMBNAIL_JPEG_ARGS } from "../../src/media/image.js";
import { DECODE_LIMIT_ARGS } from "../../src/media/image-header.js";
import { getTools, type Tools } from "../../src/media/tools.js";
import { CATALOG_SEED_VAR, seedThumbnailsDir } from "../helpers/catalog-seed.js";
// The child scripts from dist/ in this (the main) process too: on a machine without system tools the
// WASM espeak-ng child is one of the tools getTools() must find, even for drawing pictures.
import "./built-entry-points.js";

export default async function setup(): Promise<() => void> {
  // A media dir inside the seed, so the thumbnail cache beside it is the seed's too.
  const seed = fs.mkdtempSync(path.join(os.tmpdir(), "mg-catalog-seed-"));
  const mediaDir = path.join(seed, "media");
  fs.mkdirSync(mediaDir);
  const items = CATALOG_AVATARS.flatMap((avatar) => avatar.looks.map((look) => ({ avatar, look })));
  await ensureCatalogLookImages(mediaDir, items);
  drawLookThumbnails(
    mediaDir,
    items.map(({ look }) => catalogLookRelPath(look.id)),
    await getTools(),
  );
  // Inherited by the test workers, which start after this.
  process.env[CATALOG_SEED_VAR] = mediaDir;
  return () => fs.rmSync(seed, { recursive: true, force: true });
}

/**
 * Each picture's thumbnail as a portrait video (the default format) opening on it, where its home
 * keeps it once drawn (cachedThumbnail): what makeThumbnail writes, drawn with its filter and
 * encoding, all in one ffmpeg run instead of a run per look in every test home that makes a video.
 */
function drawLookThumbnails(mediaDir: string, rels: string[], tools: Tools): void {
  const { width: w, height: h } = thumbnailSize(1080, 1920);
  const files = rels.map((rel) => ({ input: path.join(mediaDir, rel), cached: cachedThumbnail(mediaDir, rel, { width: w, height: h })! }));
  fs.mkdirSync(seedThumbnailsDir(mediaDir), { recursive: true });
  execFileSync(
    tools.ffmpeg,
    [
      ...QUIET,
      ...files.flatMap((f) => [...DECODE_LIMIT_ARGS, "-i", `file:${f.input}`]),
      // Each output its own simple graph (-vf), as makeThumbnail's: a complex graph gives other
      // bytes with ffmpeg 4.1.
      ...files.flatMap((f, k) => ["-map", `${k}:v:0`, "-frames:v", "1", "-vf", coverFilter(w, h), ...THUMBNAIL_JPEG_ARGS, `file:${f.cached}`]),
    ],
    { stdio: "pipe" },
  );
}
