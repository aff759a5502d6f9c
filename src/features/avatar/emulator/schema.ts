/**
 * Space avatars, their looks, and space voices. The public catalog is data in code
 * (catalog/avatars.ts, catalog/voices.ts), so a look's `avatar_id` may name a catalog avatar: an
 * edit of a catalog look gives the space a look of its own on that avatar.
 * Lists are in `seq` order (insertion), so "space first, oldest first" needs no timestamp ties.
 */
export const avatars = `
CREATE TABLE avatars (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  space_id TEXT NOT NULL REFERENCES spaces(id),
  name TEXT NOT NULL,
  gender TEXT NOT NULL CHECK (gender IN ('male', 'female')),
  age TEXT NOT NULL,
  age_range TEXT NOT NULL,
  ethnicity TEXT NOT NULL,
  hair_color TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX avatars_space ON avatars (space_id, seq);

CREATE TABLE looks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  space_id TEXT NOT NULL REFERENCES spaces(id),
  avatar_id TEXT NOT NULL,
  task TEXT NOT NULL CHECK (task IN ('avatar_create', 'avatar_edit')),
  name TEXT NOT NULL,
  place TEXT NOT NULL,
  accessories TEXT NOT NULL,
  action TEXT NOT NULL,
  emotion TEXT NOT NULL,
  selfie INTEGER NOT NULL CHECK (selfie IN (0, 1)),
  format TEXT NOT NULL CHECK (format IN ('vertical', 'horizontal')),
  style TEXT,
  resolution TEXT,
  prompt TEXT,
  source_look_id TEXT,
  model_available TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ready', 'pending', 'error')),
  image_path TEXT,
  width INTEGER,
  height INTEGER,
  error_code TEXT,
  error_message TEXT,
  cost_milli INTEGER NOT NULL DEFAULT 0,
  webhook_url TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX looks_avatar ON looks (avatar_id, space_id, seq);
CREATE INDEX looks_space ON looks (space_id, seq);

CREATE TABLE voices (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  space_id TEXT NOT NULL REFERENCES spaces(id),
  name TEXT NOT NULL,
  language TEXT NOT NULL,
  accent TEXT NOT NULL,
  gender TEXT NOT NULL CHECK (gender IN ('male', 'female')),
  tags TEXT NOT NULL,
  tts_voice TEXT NOT NULL,
  preview_path TEXT,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX voices_space ON voices (space_id, seq);
`;

/**
 * Migration 11: a look's tags (JSON list of strings): `GET /avatar/list?tags=` and
 * `GET /resources/avatars?tags=` filter on them, an edit's `tags` sets them (hosted-facts.md).
 */
export const LOOK_TAGS_MIGRATION_VERSION = 11;
export const lookTagsColumn = `
ALTER TABLE looks ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
`;
