/**
 * Looks as generation sees them: which ids a space may use (ready looks of its own, catalog looks),
 * and the picture of each, made on first need for catalog looks.
 */
import { ensureCatalogLookImages } from "../../../avatar/emulator/public/catalog.js";
import { allLookViews, findAvatar, type LookView } from "../../../avatar/emulator/public/records.js";
import type { DB } from "../../../../local/types.js";

function readyLooks(db: DB, spaceId: string): Map<string, LookView> {
  return new Map(
    allLookViews(db, spaceId, false)
      .filter((v) => v.status === "ready")
      .map((v) => [v.id, v]),
  );
}

/** Lookups for the start rules: a ready look by id, an avatar with its ready looks. */
export function lookLookups(db: DB, spaceId: string) {
  let looks: Map<string, LookView> | undefined;
  return {
    look: (id: string) => {
      looks ??= readyLooks(db, spaceId);
      return looks.has(id);
    },
    avatar: (id: string) => {
      const a = findAvatar(db, spaceId, id);
      return a ? { looks: a.looks.filter((l) => l.status === "ready").map((l) => l.id) } : undefined;
    },
  };
}

/**
 * Media-dir-relative pictures of these looks (catalog pictures are rendered when missing). A look
 * that is not ready any more is left out of the map.
 */
export async function lookImages(db: DB, mediaDir: string, spaceId: string, ids: readonly string[], signal?: AbortSignal): Promise<Map<string, string>> {
  const ready = readyLooks(db, spaceId);
  const views = [...new Set(ids)].map((id) => ready.get(id)).filter((v): v is LookView => v !== undefined && v.imageRel !== null);
  const catalog = views.flatMap((v) => (v.catalog ? [v.catalog] : []));
  if (catalog.length) await ensureCatalogLookImages(mediaDir, catalog, signal);
  return new Map(views.map((v) => [v.id, v.imageRel!]));
}
