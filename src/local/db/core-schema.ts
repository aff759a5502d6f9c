/**
 * Core schema: settings, spaces, keys, the credit ledger, rate windows, jobs, workers, the webhook
 * outbox and folders. Credits are integer millicredits. Jobs and workers keep epoch milliseconds
 * (compared against the injectable clock); records shown to users keep ISO 8601 text.
 */
export const core = `
CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE spaces (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  plan          TEXT NOT NULL CHECK (plan IN ('free', 'start', 'PRO', 'ENTREPRISE')),
  balance_milli INTEGER NOT NULL DEFAULT 0 CHECK (balance_milli >= 0),
  is_default    INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  created_at    TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX spaces_one_default ON spaces(is_default) WHERE is_default = 1;

CREATE TABLE api_keys (
  id          TEXT PRIMARY KEY,
  space_id    TEXT NOT NULL REFERENCES spaces(id),
  key_hash    TEXT NOT NULL UNIQUE CHECK (length(key_hash) = 64),
  last4       TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  revoked_at  TEXT,
  replaced_by TEXT REFERENCES api_keys(id)
) STRICT;
CREATE INDEX api_keys_space ON api_keys(space_id);

CREATE TABLE ledger (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  space_id            TEXT NOT NULL REFERENCES spaces(id),
  amount_milli        INTEGER NOT NULL,
  balance_after_milli INTEGER NOT NULL CHECK (balance_after_milli >= 0),
  kind                TEXT NOT NULL CHECK (kind IN ('grant', 'debit', 'refund')),
  ref                 TEXT,
  note                TEXT,
  created_at          TEXT NOT NULL,
  CHECK ((kind = 'debit' AND amount_milli <= 0) OR (kind <> 'debit' AND amount_milli >= 0)),
  CHECK (kind <> 'refund' OR ref IS NOT NULL)
) STRICT;
CREATE INDEX ledger_space ON ledger(space_id, id);
CREATE INDEX ledger_ref ON ledger(ref);
CREATE UNIQUE INDEX ledger_refund_once ON ledger(ref) WHERE kind = 'refund';
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;

-- No longer written: the windows are counted in <home>/local/rates.db (db/open.ts openRatesDatabase);
-- the table stays because version 1 of every existing database has it.
CREATE TABLE rate_windows (
  space_id     TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count        INTEGER NOT NULL CHECK (count >= 0),
  PRIMARY KEY (space_id, window_start)
) STRICT;

CREATE TABLE jobs (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL,
  space_id      TEXT REFERENCES spaces(id),
  ref           TEXT,
  payload       TEXT NOT NULL DEFAULT 'null',
  status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
  attempts      INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts  INTEGER NOT NULL CHECK (max_attempts >= 1),
  run_after     INTEGER NOT NULL,
  lease_owner   TEXT,
  lease_expires INTEGER,
  last_error    TEXT,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX jobs_due ON jobs(status, run_after);
CREATE INDEX jobs_ref ON jobs(ref);
CREATE TRIGGER jobs_terminal_is_final BEFORE UPDATE ON jobs
WHEN OLD.status IN ('done', 'failed')
BEGIN SELECT RAISE(ABORT, 'a finished job never changes'); END;

CREATE TABLE workers (
  id            TEXT PRIMARY KEY,
  pid           INTEGER,
  mode          TEXT NOT NULL CHECK (mode IN ('inline', 'detached')),
  lease_expires INTEGER NOT NULL,
  started_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE webhook_deliveries (
  id           TEXT PRIMARY KEY,
  space_id     TEXT REFERENCES spaces(id),
  url          TEXT NOT NULL,
  task         TEXT,
  payload      TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts     INTEGER NOT NULL DEFAULT 0,
  created_at   TEXT NOT NULL,
  delivered_at TEXT,
  last_status  INTEGER,
  last_error   TEXT
) STRICT;
CREATE INDEX webhook_deliveries_space ON webhook_deliveries(space_id);

CREATE TABLE webhook_attempts (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
  attempt     INTEGER NOT NULL,
  status_code INTEGER,
  error       TEXT,
  duration_ms INTEGER NOT NULL,
  at          TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, attempt);

CREATE TABLE folders (
  id               TEXT PRIMARY KEY CHECK (length(id) = 24),
  space_id         TEXT NOT NULL REFERENCES spaces(id),
  name             TEXT NOT NULL,
  type             TEXT NOT NULL CHECK (type IN ('assets', 'videos')),
  parent_folder_id TEXT REFERENCES folders(id),
  created_at       TEXT NOT NULL
) STRICT;
CREATE INDEX folders_space ON folders(space_id, type);
`;
