/**
 * Generated assets. One row per generation. `params` holds the resolved request the worker renders
 * from (sources, slots, elements, settings); `refs` is `generation_params.references` exactly as
 * shown (submission order, one key per item), NULL when no reference was used. Files are stored as
 * paths relative to the media dir; the URL is built per request. Terminal states never change.
 */
export const assets = `
CREATE TABLE assets (
  id               TEXT PRIMARY KEY CHECK (length(id) = 24),
  space_id         TEXT NOT NULL REFERENCES spaces(id),
  type             TEXT NOT NULL CHECK (type IN ('image', 'video', 'audio')),
  model            TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'generating', 'completed', 'failed')),
  prompt           TEXT NOT NULL,
  aspect_ratio     TEXT,
  resolution       TEXT,
  duration         INTEGER,
  refs             TEXT,
  params           TEXT NOT NULL,
  cost_milli       INTEGER NOT NULL CHECK (cost_milli >= 0),
  file_name        TEXT NOT NULL,
  folder_id        TEXT REFERENCES folders(id),
  parent_media_id  TEXT REFERENCES assets(id),
  webhook_url      TEXT,
  simulate         TEXT,
  file_path        TEXT NOT NULL,
  thumbnail_path   TEXT,
  width            INTEGER,
  height           INTEGER,
  duration_seconds REAL,
  error_code       TEXT,
  error_message    TEXT,
  created_at       TEXT NOT NULL,
  finished_at      TEXT,
  CHECK ((status = 'failed') = (error_code IS NOT NULL))
) STRICT;
CREATE INDEX assets_space ON assets(space_id, created_at);
CREATE INDEX assets_parent ON assets(parent_media_id);
CREATE TRIGGER assets_terminal_is_final BEFORE UPDATE OF status ON assets
WHEN OLD.status IN ('completed', 'failed') AND NEW.status <> OLD.status
BEGIN SELECT RAISE(ABORT, 'a finished asset never changes state'); END;
`;

/** Migration 8: the synced model catalog (`mediagen local catalog sync`, catalog-sync.ts). */
export const CATALOG_MIGRATION_VERSION = 8;
export const modelCatalogTable = `
CREATE TABLE model_catalog (
  id        INTEGER PRIMARY KEY CHECK (id = 1),
  source    TEXT NOT NULL,
  synced_at TEXT NOT NULL,
  revision  INTEGER NOT NULL,
  models    TEXT NOT NULL,
  skipped   TEXT NOT NULL,
  -- The public voices, when the sync copied them (NULL: the built-in voices).
  voices    TEXT
) STRICT;
`;

/**
 * Migration 10: the public avatars copied by `local catalog sync --avatars` (avatar/public-catalog.ts):
 * a JSON list of avatars with their looks, each look naming its copied picture (NULL: the built-in
 * public avatars).
 */
export const CATALOG_AVATARS_MIGRATION_VERSION = 10;
export const catalogAvatarsColumn = `
ALTER TABLE model_catalog ADD COLUMN avatars TEXT;
`;
