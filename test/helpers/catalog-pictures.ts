/**
 * The avatar catalog's pictures, drawn once per test process and copied into a home. The first list
 * of looks in a new home draws every catalog picture (src/features/avatar/catalog.ts
 * `ensureCatalogLookImages`, seconds of renders); a test whose subject is not that first drawing
 * (a wizard, a preview) can start from a home that already has them, as a home does from its second
 * use on. The pictures are drawn by the same function, into a directory of this process, so they
 * are the files the CLI would have drawn; with `isolate: false` every test file of a worker shares
 * one drawing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CATALOG_AVATARS, ensureCatalogLookImages } from "../../src/features/avatar/catalog.js";
import { instancePaths } from "../../src/local/storage.js";

let drawn: Promise<string> | undefined;

/** A media dir holding every catalog picture, drawn on the first call of this process. */
function catalogMedia(): Promise<string> {
  drawn ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-catalog-"));
    const items = CATALOG_AVATARS.flatMap((avatar) => avatar.looks.map((look) => ({ avatar, look })));
    await ensureCatalogLookImages(dir, items);
    return dir;
  })().catch((err: unknown) => {
    drawn = undefined;
    throw err;
  });
  return drawn;
}

/** Copies the catalog's pictures into `home`'s local instance (what its first list of looks would draw). */
export async function seedCatalogPictures(home: string): Promise<void> {
  const from = path.join(await catalogMedia(), "catalog");
  fs.cpSync(from, path.join(instancePaths(home).mediaDir, "catalog"), { recursive: true });
}
