/**
 * Migration 9: the emulator's controls. `fault_rules` holds the faults on demand (src/local/faults.ts);
 * `fault_job_stalls` the jobs (by job id) a rule told to wait before they start. Times are epoch milliseconds
 * (compared against the instance's clock).
 */
export const EMULATOR_MIGRATION_VERSION = 9;
export const emulatorTables = `
CREATE TABLE fault_rules (
  id          TEXT PRIMARY KEY,
  op          TEXT NOT NULL,
  stage       TEXT NOT NULL CHECK (stage IN ('request', 'job', 'progress', 'webhook')),
  space_id    TEXT,
  key_id      TEXT,
  action      TEXT NOT NULL,
  probability REAL NOT NULL CHECK (probability > 0 AND probability <= 1),
  remaining   INTEGER CHECK (remaining IS NULL OR remaining >= 0),
  hits        INTEGER NOT NULL DEFAULT 0,
  expires_at  INTEGER,
  source      TEXT NOT NULL,
  created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX fault_rules_match ON fault_rules(stage, op);

CREATE TABLE fault_job_stalls (
  ref TEXT PRIMARY KEY,
  ms  INTEGER NOT NULL CHECK (ms >= 0)
) STRICT;
`;
