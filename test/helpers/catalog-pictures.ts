/**
 * Homes for tests that read the catalog but are not about drawing it: the avatar catalog's pictures
 * (the run's, drawn once: test/helpers/catalog-seed.ts; `newHome()` copies them too) and the preview
 * samples of the catalog voices asked for (made with the local TTS by `voice resources`), made once
 * per test process and copied in. Tests of the drawing itself use `emptyHome()`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CATALOG_VOICES, catalogVoicePreviewRelPath, ensureCatalogVoicePreviews, type CatalogVoice } from "../../src/features/voice/emulator/catalog.js";
import { copyMediaDir, seedCatalogPictures } from "./catalog-seed.js";
import { newHome } from "./cli.js";

/** Where the catalog's voice previews are, relative to a media dir. */
const VOICES_DIR = path.dirname(catalogVoicePreviewRelPath(CATALOG_VOICES[0]!.id));

/**
 * This process's previews (a media dir of its own: the run's seed stays the same for every file,
 * whatever order files run in).
 */
let previews: string | undefined;

/** Copies the catalog's pictures into `home` (new or in use), and the previews of the voices `voices` picks. */
export async function withCatalogPictures(home: string, voices: (v: CatalogVoice) => boolean = () => false): Promise<string> {
  seedCatalogPictures(home);
  const wanted = CATALOG_VOICES.filter(voices);
  if (wanted.length === 0) return home;
  if (!previews) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-voice-previews-"));
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    previews = dir;
  }
  await ensureCatalogVoicePreviews(previews, wanted);
  copyMediaDir(previews, VOICES_DIR, home);
  return home;
}

/** A fresh home whose catalog pictures (and the previews of the voices `voices` picks) are already made. */
export async function newHomeWithCatalog(voices?: (v: CatalogVoice) => boolean): Promise<string> {
  return withCatalogPictures(newHome(), voices);
}
