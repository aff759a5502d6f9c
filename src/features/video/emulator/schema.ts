/**
 * Videos (migration 5): the records generation makes and duplicate copies. A generated video exists
 * from its job's start, `generating`, and becomes `done` with its timeline (or `failed` with its
 * job); a duplicate is `done` at once. `timeline` is the JSON of `VideoTimeline` (timeline.ts),
 * present exactly when the video is `done`. The status `done` never changes.
 */
export const videos = `
CREATE TABLE videos (
  id              TEXT PRIMARY KEY CHECK (length(id) = 24),
  space_id        TEXT NOT NULL REFERENCES spaces(id),
  status          TEXT NOT NULL CHECK (status IN ('generating', 'done', 'failed')),
  origin          TEXT NOT NULL CHECK (origin IN ('generation', 'duplicate')),
  generation_id   TEXT,
  parent_video_id TEXT REFERENCES videos(id),
  timeline        TEXT,
  duration_ms     INTEGER,
  thumbnail_path  TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  CHECK ((status = 'done') = (timeline IS NOT NULL))
) STRICT;
CREATE INDEX videos_space ON videos(space_id, created_at);
CREATE TRIGGER videos_terminal_is_final BEFORE UPDATE OF status ON videos
WHEN OLD.status IN ('done', 'failed') AND NEW.status <> OLD.status
BEGIN SELECT RAISE(ABORT, 'a finished video never changes state'); END;
`;
