/**
 * Test homes start with the avatar catalog's pictures the run drew once (test/setup/catalog-seed.ts),
 * copied where the local instance keeps them (`<home>/local/media/catalog/`), so no test pays for
 * drawing them again. Not a product variable: the CLI's environment never carries it (runEnv drops
 * it with the other MG_/MEDIAGEN_ variables).
 */
import fs from "node:fs";
import path from "node:path";
import { instancePaths } from "../../src/local/storage.js";

export const CATALOG_SEED_VAR = "MG_TEST_CATALOG_SEED";

/** Copies the run's catalog pictures into `home`'s media dir (nothing when the run has none). */
export function seedCatalogPictures(home: string): void {
  const seed = process.env[CATALOG_SEED_VAR];
  if (!seed || !fs.existsSync(path.join(seed, "catalog"))) return;
  const { localDir, mediaDir } = instancePaths(home);
  // The modes the instance gives these directories when it makes them itself.
  fs.mkdirSync(localDir, { recursive: true, mode: 0o700 });
  fs.mkdirSync(mediaDir, { recursive: true, mode: 0o700 });
  fs.cpSync(path.join(seed, "catalog"), path.join(mediaDir, "catalog"), { recursive: true });
}
