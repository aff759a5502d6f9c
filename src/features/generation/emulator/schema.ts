/**
 * Generation jobs (migration 4). One row per POST /generation/start: the normalised request the
 * worker builds from (`spec`), the step and progress the status endpoint shows, the amount debited
 * (the estimate), and the video it makes (`video_id`, allocated at start; the `videos` row is the
 * video feature's, migration 5). Terminal states never change.
 */
export const generations = `
CREATE TABLE generations (
  id            TEXT PRIMARY KEY CHECK (id LIKE 'run\\_%' ESCAPE '\\'),
  space_id      TEXT NOT NULL REFERENCES spaces(id),
  status        TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  current_step  TEXT,
  progress_step INTEGER NOT NULL DEFAULT 0 CHECK (progress_step BETWEEN 0 AND 100),
  spec          TEXT NOT NULL,
  cost_milli    INTEGER NOT NULL CHECK (cost_milli >= 0),
  video_id      TEXT NOT NULL UNIQUE,
  webhook_url   TEXT,
  thumbnail_url TEXT,
  simulate      TEXT,
  duration_ms   INTEGER,
  error_code    TEXT,
  error_message TEXT,
  created_at    TEXT NOT NULL,
  started_at    TEXT,
  finished_at   TEXT,
  CHECK ((status = 'failed') = (error_code IS NOT NULL))
) STRICT;
CREATE INDEX generations_space ON generations(space_id, created_at);
CREATE TRIGGER generations_terminal_is_final BEFORE UPDATE OF status ON generations
WHEN OLD.status IN ('completed', 'failed') AND NEW.status <> OLD.status
BEGIN SELECT RAISE(ABORT, 'a finished generation never changes state'); END;
`;
