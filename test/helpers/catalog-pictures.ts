/**
 * The avatar catalog's pictures, drawn once per test process and copied into a new home: the first
 * list (or look by name, or edit without --avatar) on a fresh home draws every catalog picture, a
 * few seconds that tests which are not about that drawing need not pay again and again. The copy is
 * what the home would hold after its first list (the same renderer, the same paths); tests of the
 * drawing itself (its notice, its files appearing) use `emptyHome()` (`newHome()` copies the run's
 * pictures in too, see test/helpers/catalog-seed.ts). The same for the catalog
 * voices' preview samples (made with the local TTS by `voice resources`), for the voices asked.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CATALOG_AVATARS, catalogLookRelPath, ensureCatalogLookImages } from "../../src/features/avatar/catalog.js";
import { CATALOG_VOICES, ensureCatalogVoicePreviews, type CatalogVoice } from "../../src/features/voice/catalog.js";
import { instancePaths } from "../../src/local/storage.js";
import { CATALOG_SEED_VAR } from "./catalog-seed.js";
import { newHome } from "./cli.js";

let drawn: Promise<string> | undefined;

/**
 * A media dir holding every drawn catalog picture: the run's (drawn once by the global setup,
 * test/setup/catalog-seed.ts), else drawn on the first call of this process.
 */
function drawnOnce(): Promise<string> {
  const seed = process.env[CATALOG_SEED_VAR];
  if (seed && fs.existsSync(seed)) return Promise.resolve(seed);
  drawn ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-catalog-"));
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    const items = CATALOG_AVATARS.flatMap((avatar) => avatar.looks.map((look) => ({ avatar, look })));
    await ensureCatalogLookImages(dir, items);
    return dir;
  })();
  return drawn;
}

/**
 * Copies the drawn catalog pictures into `home`'s local media dir (the home may be new or in use),
 * and the preview samples of the catalog voices `voices` picks (made once per process each).
 */
export async function withCatalogPictures(home: string, voices: (v: CatalogVoice) => boolean = () => false): Promise<string> {
  const src = await drawnOnce();
  await ensureCatalogVoicePreviews(src, CATALOG_VOICES.filter(voices));
  const first = CATALOG_AVATARS[0]!.looks[0]!.id;
  const catalogDir = path.dirname(path.dirname(catalogLookRelPath(first)));
  const { localDir, mediaDir } = instancePaths(home);
  // The local dir as the instance makes it (owner only), before the copy makes it with the default mode.
  fs.mkdirSync(localDir, { recursive: true, mode: 0o700 });
  fs.cpSync(path.join(src, catalogDir), path.join(mediaDir, catalogDir), { recursive: true, force: false });
  return home;
}

/** A fresh home whose catalog pictures (and the previews of the voices `voices` picks) are already made. */
export async function newHomeWithCatalog(voices?: (v: CatalogVoice) => boolean): Promise<string> {
  return withCatalogPictures(newHome(), voices);
}
