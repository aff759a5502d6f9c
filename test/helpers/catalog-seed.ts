/**
 * Test homes start with the avatar catalog's pictures the run drew once (test/setup/catalog-seed.ts),
 * copied where the local instance keeps them (`<home>/local/media/catalog/…/looks`), so no test pays
 * for drawing them again. Not a product variable: the CLI's environment never carries it (runEnv
 * drops it with the other MG_TEST_/MEDIAGEN_ variables).
 */
import fs from "node:fs";
import path from "node:path";
import { CATALOG_AVATARS, catalogLookRelPath } from "../../src/features/avatar/catalog.js";
import { instancePaths } from "../../src/local/storage.js";

export const CATALOG_SEED_VAR = "MG_TEST_CATALOG_SEED";

/** Where the catalog's look pictures are, relative to a media dir. */
const LOOKS_DIR = path.dirname(catalogLookRelPath(CATALOG_AVATARS[0]!.looks[0]!.id));

/**
 * Copies `rel` (a directory relative to a media dir) from the media dir `from` into `home`'s. Files
 * the home already has are kept (it may be in use).
 */
export function copyMediaDir(from: string, rel: string, home: string): void {
  if (!fs.existsSync(path.join(from, rel))) return;
  const { localDir, mediaDir } = instancePaths(home);
  // The modes the instance gives these directories when it makes them itself.
  fs.mkdirSync(localDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(mediaDir, { recursive: true, mode: 0o700 });
  fs.cpSync(path.join(from, rel), path.join(mediaDir, rel), { recursive: true, force: false });
}

/** Copies the run's catalog pictures into `home`'s media dir (nothing when the run has none). */
export function seedCatalogPictures(home: string): void {
  const seed = process.env[CATALOG_SEED_VAR];
  if (seed) copyMediaDir(seed, LOOKS_DIR, home);
}
