/**
 * The public avatars a local instance serves: the ones `local catalog sync --avatars` copied from
 * the hosted service (model_catalog.avatars, migration 9), else the built-in ones (catalog.ts).
 * Read per request and cached per database by the catalog's revision, so a sync or a reset is seen
 * by the server and the in-process instance alike.
 */
import type { DB } from "../../../local/types.js";
import { CATALOG_AVATARS, type CatalogAvatar } from "./public/catalog.js";

interface Cached {
  revision: number;
  avatars: readonly CatalogAvatar[];
  byId: Map<string, CatalogAvatar>;
}

const BUILT_IN_BY_ID = new Map(CATALOG_AVATARS.map((a) => [a.id, a]));
const cache = new WeakMap<DB, Cached>();

function synced(db: DB): Cached | undefined {
  const row = db.prepare("SELECT revision, avatars FROM model_catalog WHERE id = 1").get() as { revision: number; avatars: string | null } | undefined;
  if (!row?.avatars) return undefined;
  const hit = cache.get(db);
  if (hit && hit.revision === row.revision) return hit;
  const avatars = JSON.parse(row.avatars) as CatalogAvatar[];
  const fresh = { revision: row.revision, avatars, byId: new Map(avatars.map((a) => [a.id, a])) };
  cache.set(db, fresh);
  return fresh;
}

/** Every public avatar, in catalog order. */
export function publicAvatars(db: DB): readonly CatalogAvatar[] {
  return synced(db)?.avatars ?? CATALOG_AVATARS;
}

/** One public avatar by id. */
export function publicAvatar(db: DB, id: string): CatalogAvatar | undefined {
  const s = synced(db);
  return s ? s.byId.get(id) : BUILT_IN_BY_ID.get(id);
}
