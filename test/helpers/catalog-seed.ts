/**
 * Test homes start with the avatar catalog's pictures the run drew once (test/setup/catalog-seed.ts),
 * copied where the local instance keeps them (`<home>/local/media/catalog/…/looks`), so no test pays
 * for drawing them again. Not a product variable: the CLI's environment never carries it (runEnv
 * drops it with the other MG_TEST_/MEDIAGEN_ variables).
 */
import fs from "node:fs";
import path from "node:path";
import { CATALOG_AVATARS, catalogLookRelPath } from "../../src/features/avatar/emulator/public/catalog.js";
import { instancePaths } from "../../src/local/storage.js";

export const CATALOG_SEED_VAR = "MG_TEST_CATALOG_SEED";

/** Where the catalog's look pictures are, relative to a media dir. */
const LOOKS_DIR = path.dirname(catalogLookRelPath(CATALOG_AVATARS[0]!.looks[0]!.id));

/**
 * Gives `home`'s media dir `rel` (a directory relative to a media dir) of the media dir `from`. Files
 * the home already has are kept (it may be in use).
 *
 * Each file is a hard link to the run's copy, not a copy: a run makes hundreds of homes, and copying
 * the catalog into each took about 8 s of CPU. Safe because nothing writes these files in place: the
 * instance replaces a file by renaming a new one over it, and `reset` unlinks; either leaves the
 * run's copy as it was. A copy where a link cannot be made (another file system).
 */
export function copyMediaDir(from: string, rel: string, home: string): void {
  if (!fs.existsSync(path.join(from, rel))) return;
  const { localDir, mediaDir } = instancePaths(home);
  // The modes the instance gives these directories when it makes them itself.
  fs.mkdirSync(localDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(mediaDir, { recursive: true, mode: 0o700 });
  linkTree(path.join(from, rel), path.join(mediaDir, rel));
}

/**
 * Gives `dest` every file of `src` it does not have yet, as a hard link (a copy across file
 * systems); names starting with a dot (temp files) are skipped. A file `dest` has already is kept,
 * whether it is another file or the same one (a link made earlier).
 */
export function linkTree(src: string, dest: string): void {
  fs.mkdirSync(dest, { recursive: true });
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    if (e.name.startsWith(".")) continue;
    const a = path.join(src, e.name);
    const b = path.join(dest, e.name);
    if (e.isDirectory()) linkTree(a, b);
    else if (!fs.existsSync(b)) {
      try {
        fs.linkSync(a, b);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") continue;
        fs.copyFileSync(a, b, fs.constants.COPYFILE_EXCL);
      }
    }
  }
}

/**
 * Gives `home` the run's catalog pictures (nothing when the run has none) and, in its thumbnail
 * cache, their thumbnails at a portrait video's size (the default format): the files a home makes the
 * first time a video opens on each look (test/setup/catalog-seed.ts draws them with makeThumbnail's
 * filter and encoding; test/unit/video-thumbnail.test.ts checks the bytes are the home's own).
 */
export function seedCatalogPictures(home: string): void {
  const seed = process.env[CATALOG_SEED_VAR];
  if (!seed) return;
  copyMediaDir(seed, LOOKS_DIR, home);
  const thumbnails = seedThumbnailsDir(seed);
  if (fs.existsSync(thumbnails)) linkTree(thumbnails, path.join(instancePaths(home).localDir, "cache", "thumbnails"));
}

/** Where the thumbnails of a seed's pictures are kept: where a home keeps its own (beside its media dir). */
export function seedThumbnailsDir(seedMediaDir: string): string {
  return path.join(path.dirname(seedMediaDir), "cache", "thumbnails");
}
