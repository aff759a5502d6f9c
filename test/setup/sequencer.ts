/**
 * The order test files start in: longest first, so no long file starts last and keeps the run going
 * alone at its end. Vitest does that from its record of the previous run on this machine; a fresh
 * clone (CI) has none, and vitest then orders by file size, which puts some long files (a few short
 * tests that render, or wait on processes) at the very end. So the durations of a run are committed
 * (test/durations.json, `npm run test:durations` refreshes it from a run's JSON report) and order
 * every run; files not in it (new ones) go first, as vitest puts its unknowns first.
 */
import fs from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const FILE = path.join(import.meta.dirname, "..", "durations.json");

function durations(): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(FILE, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = durations();
    const root = this.ctx.config.root;
    const ms = (f: TestSpecification) => known[path.relative(root, f.moduleId).split(path.sep).join("/")] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => ms(b) - ms(a));
  }
}
