import fs from "node:fs";
import path from "node:path";
import { beforeAll, expect, test } from "vitest";
import { openLocalInstance } from "../../src/features/local.js";
import { localParts } from "../../src/features/local.js";
const { migrations } = localParts;
import { tempHome } from "../helpers/local.js";
import { lastJson, requireBuilt, runTogether, startFixture } from "./fixtures/processes.js";

beforeAll(requireBuilt);

test("four processes opening a fresh home at once migrate once and agree on one default key", async () => {
  const home = tempHome();
  const go = path.join(home, "go");
  const procs = Array.from({ length: 4 }, () => startFixture("open-race.mjs", [home, go]));
  await runTogether(procs, go);
  const results = procs.map((p) => lastJson<{ key: string; version: number }>(p));
  expect(new Set(results.map((r) => r.key)).size).toBe(1);
  for (const r of results) expect(r.version).toBe(migrations.length);

  const instance = openLocalInstance({ home, worker: "none" });
  try {
    expect(instance.listSpaces()).toHaveLength(1);
    expect(instance.listSpaces()[0]).toMatchObject({ name: "default", plan: "PRO", credits: 1000, keys: 1 });
    expect(instance.defaultKey()).toBe(results[0]!.key);
    expect(fs.readFileSync(instance.defaultKeyPath, "utf8").trim()).toBe(results[0]!.key);
  } finally {
    await instance.close();
  }
});
