/**
 * Migration 13: the starts the instance answered, one row per successful start request of any
 * operation whose life is a start (src/local/starts.ts writes it, at the dispatch). `mediagen batch`,
 * re-run after a crash between sending a start and recording its answer, looks a start up here by
 * its space, its operation and the fingerprint of the very request (src/features/started-jobs.ts).
 * `created_at` is on the instance's clock; `answer` is the answer as it was sent; `cost_milli` what
 * the operation's life reads that the start debited (NULL when the answer does not say).
 */
export const STARTS_MIGRATION_VERSION = 13;
export const startsTable = `
CREATE TABLE starts (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  space_id    TEXT NOT NULL REFERENCES spaces(id),
  op          TEXT NOT NULL,
  fingerprint TEXT NOT NULL CHECK (length(fingerprint) = 64),
  created_at  TEXT NOT NULL,
  answer      TEXT NOT NULL,
  cost_milli  INTEGER
) STRICT;
CREATE INDEX starts_request ON starts(space_id, op, fingerprint, created_at);
`;
