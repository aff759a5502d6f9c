/**
 * Vitest global setup: every temp file of the run under one directory, removed when the run ends.
 * Tests make thousands of homes, work dirs and fixtures with mkdtemp(os.tmpdir()), and so do the
 * processes they start (os.tmpdir() follows TMPDIR, which they inherit); most are not removed one
 * by one (a home may still have a detached worker in it when its test ends). Deleting the root
 * also ends such workers: one whose database is gone stops. MG_TEST_KEEP_TMP=1 keeps the root for
 * a look after a run (its path is printed).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export default function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "mg-suite-"));
  // Inherited by the test workers, which start after this, and by everything they start.
  process.env.TMPDIR = root;
  return () => {
    if (process.env.MG_TEST_KEEP_TMP) {
      process.stderr.write(`temp files of this run kept in ${root}\n`);
      return;
    }
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
}
