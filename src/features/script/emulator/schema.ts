/**
 * One row per script request: written (`writing`, with the debit) before the writer starts, and
 * ended `done` or `failed` (with the refund) after it. `deadline` (epoch ms, instance clock) is when
 * a row still `writing` is taken for a request that died: the next request refunds it and fails it.
 */
export const SCRIPTS_MIGRATION_VERSION = 6;

export const scripts = `
CREATE TABLE scripts (
  id               TEXT PRIMARY KEY,
  space_id         TEXT NOT NULL REFERENCES spaces(id),
  prompt           TEXT NOT NULL,
  duration         REAL NOT NULL CHECK (duration >= 10 AND duration <= 600),
  urls             TEXT NOT NULL,
  web_search       INTEGER NOT NULL CHECK (web_search IN (0, 1)),
  cost_milli       INTEGER NOT NULL CHECK (cost_milli > 0),
  status           TEXT NOT NULL CHECK (status IN ('writing', 'done', 'failed')),
  writer           TEXT CHECK (writer IN ('extractive', 'llm')),
  script           TEXT,
  extracted_images TEXT,
  error_code       TEXT,
  error_message    TEXT,
  deadline         INTEGER NOT NULL,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  CHECK (status <> 'done' OR (script IS NOT NULL AND extracted_images IS NOT NULL AND writer IS NOT NULL)),
  CHECK (status <> 'failed' OR error_code IS NOT NULL)
) STRICT;
CREATE INDEX scripts_space ON scripts(space_id, created_at);
CREATE INDEX scripts_writing ON scripts(status, deadline);
CREATE TRIGGER scripts_terminal_is_final BEFORE UPDATE ON scripts
WHEN OLD.status IN ('done', 'failed')
BEGIN SELECT RAISE(ABORT, 'a finished script never changes'); END;
`;
