/**
 * Vitest global setup: the avatar catalog's pictures, drawn ONCE per run. A new home draws its 26
 * catalog pictures on first use (seconds of ffmpeg); test homes made by `newHome()` start with a copy
 * of these instead (test/helpers/catalog-seed.ts). Drawn by the product's own code with the tools
 * this run uses, so the copies are the files a home would draw. `emptyHome()` gives a home without
 * them, for the tests of that first drawing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CATALOG_AVATARS, ensureCatalogLookImages } from "../../src/features/avatar/catalog.js";
import { CATALOG_SEED_VAR } from "../helpers/catalog-seed.js";
// The child scripts from dist/ in this (the main) process too: on a machine without system tools the
// WASM espeak-ng child is one of the tools getTools() must find, even for drawing pictures.
import "./built-entry-points.js";

export default async function setup(): Promise<() => void> {
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-catalog-seed-"));
  const items = CATALOG_AVATARS.flatMap((avatar) => avatar.looks.map((look) => ({ avatar, look })));
  await ensureCatalogLookImages(mediaDir, items);
  // Inherited by the test workers, which start after this.
  process.env[CATALOG_SEED_VAR] = mediaDir;
  return () => fs.rmSync(mediaDir, { recursive: true, force: true });
}
