import path from "node:path";
import type { LocalInstanceApi } from "../../../../local/types.js";
import { catalogLookImageRel, ensureCatalogLookImages } from "./catalog.js";
import { publicAvatar } from "../public-catalog.js";

/**
 * Where an avatar's picture is on disk, for other endpoints that take an `avatar_id` (asset
 * references, generation). A space avatar's thumbnail is its first ready look; a catalog avatar's is
 * its first look, whose file is made on first need: call `ensureAvatarThumbnail` before reading it.
 */
export function avatarThumbnailPath(instance: LocalInstanceApi, spaceId: string, avatarId: string): string | undefined {
  const rel = spaceAvatarImage(instance, spaceId, avatarId);
  if (rel !== undefined) return rel === null ? undefined : path.join(instance.mediaDir, rel);
  const cat = publicAvatar(instance.db, avatarId);
  if (!cat) return undefined;
  return path.join(instance.mediaDir, catalogLookImageRel(cat.looks[0]!));
}

/** Like `avatarThumbnailPath`, and the file exists when it resolves (catalog pictures are rendered). */
export async function ensureAvatarThumbnail(instance: LocalInstanceApi, spaceId: string, avatarId: string, signal?: AbortSignal): Promise<string | undefined> {
  const p = avatarThumbnailPath(instance, spaceId, avatarId);
  if (p === undefined) return undefined;
  const cat = spaceAvatarImage(instance, spaceId, avatarId) === undefined ? publicAvatar(instance.db, avatarId) : undefined;
  if (cat) await ensureCatalogLookImages(instance.mediaDir, [{ avatar: cat, look: cat.looks[0]! }], signal);
  return p;
}

/** undefined: no such space avatar; null: the avatar exists but has no ready look yet. */
function spaceAvatarImage(instance: LocalInstanceApi, spaceId: string, avatarId: string): string | null | undefined {
  const avatar = instance.db.prepare(`SELECT 1 FROM avatars WHERE id = ? AND space_id = ?`).get(avatarId, spaceId);
  if (!avatar) return undefined;
  const row = instance.db
    .prepare(
      `SELECT image_path FROM looks WHERE avatar_id = ? AND space_id = ? AND status = 'ready' AND image_path IS NOT NULL
       ORDER BY seq LIMIT 1`,
    )
    .get(avatarId, spaceId) as { image_path: string } | undefined;
  return row ? row.image_path : null;
}
