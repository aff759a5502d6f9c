/**
 * Export jobs (migration 7). One row per POST /export/start: the video exported, the output size and
 * avatar model chosen at start, the amount debited (the estimate), the step and progress the status
 * endpoint shows, and, once completed, the published files (media-dir-relative) and what rendered
 * them (ffmpeg version, whether xfade was used). Terminal states never change; progress only grows.
 */
export const exportsTable = `
CREATE TABLE exports (
  id             TEXT PRIMARY KEY CHECK (id LIKE 'exp\\_%' ESCAPE '\\'),
  space_id       TEXT NOT NULL REFERENCES spaces(id),
  video_id       TEXT NOT NULL REFERENCES videos(id),
  status         TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  current_step   TEXT NOT NULL DEFAULT 'render-audio' CHECK (current_step IN ('render-audio', 'avatar', 'render')),
  progress       INTEGER NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
  format         TEXT NOT NULL CHECK (format IN ('vertical', 'square', 'ads', 'horizontal', 'custom')),
  width          INTEGER NOT NULL CHECK (width BETWEEN 2 AND 5000 AND width % 2 = 0),
  height         INTEGER NOT NULL CHECK (height BETWEEN 2 AND 5000 AND height % 2 = 0),
  avatar_model   TEXT NOT NULL,
  first_export   INTEGER NOT NULL CHECK (first_export IN (0, 1)),
  cost_milli     INTEGER NOT NULL CHECK (cost_milli >= 0),
  webhook_url    TEXT,
  -- Signed when the export is accepted (the worker does not know the server's address).
  webhook_video_url     TEXT,
  webhook_thumbnail_url TEXT,
  simulate       TEXT,
  video_path     TEXT,
  thumbnail_path TEXT,
  -- JSON array of the ffmpeg and ffprobe binaries an attempt runs: what a give-up looks for.
  tool_paths     TEXT,
  ffmpeg         TEXT,
  xfade          INTEGER,
  warnings       TEXT,
  render_ms      INTEGER,
  error_code     TEXT,
  error_message  TEXT,
  created_at     TEXT NOT NULL,
  started_at     TEXT,
  finished_at    TEXT,
  CHECK ((status = 'failed') = (error_code IS NOT NULL)),
  CHECK ((status = 'completed') = (video_path IS NOT NULL))
) STRICT;
CREATE INDEX exports_space ON exports(space_id, created_at);
CREATE INDEX exports_video ON exports(video_id, status);
CREATE TRIGGER exports_terminal_is_final BEFORE UPDATE OF status ON exports
WHEN OLD.status IN ('completed', 'failed') AND NEW.status <> OLD.status
BEGIN SELECT RAISE(ABORT, 'a finished export never changes state'); END;
CREATE TRIGGER exports_progress_only_grows BEFORE UPDATE OF progress ON exports
WHEN NEW.progress < OLD.progress
BEGIN SELECT RAISE(ABORT, 'export progress never goes back'); END;
`;
