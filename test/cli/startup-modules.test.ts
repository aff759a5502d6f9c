/**
 * What a short command loads (start-up time: bench/startup.mjs). The built CLI runs under a hook
 * (fixtures/trace-modules.mjs) that records every module the process resolves; the bundle's chunks
 * are mapped back to their sources with dist/bundle/meta.json (written by scripts/bundle.mjs).
 * The root help and the version load the fast entry alone (dist/bundle/root-help.cjs, which runs
 * root-help-body.cjs and stands for its sources in meta.json: no common
 * chunk, no frame beyond the program and the registry); `help <topic>` and `<group> --help` load
 * the full CLI. `--help` and `folder list` must not load zod, the contracts, the model catalog, the media layer or
 * undici; `folder list` opens SQLite and loads the folder handlers only.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, ROOT } from "./helpers.js";
import { runEnv } from "../helpers/cli.js";
import { nodeSqliteMissing } from "../../src/local/db/node-sqlite.js";

const HOOK = fileURLToPath(new URL("./fixtures/trace-modules.mjs", import.meta.url));
const META = JSON.parse(fs.readFileSync(path.join(ROOT, "dist", "bundle", "meta.json"), "utf8")) as {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mediagen-modules-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Sources (src/… and node_modules/…) behind every module `mediagen <args>` loads, and its exit code. */
async function loaded(args: string[], home: string): Promise<{ exitCode: number; stdout: string; sources: string[]; files: string[] }> {
  const trace = path.join(tmp, `trace-${Math.random().toString(36).slice(2)}.txt`);
  const r = await execa(process.execPath, ["--import", HOOK, BIN, ...args], {
    env: { ...runEnv(home), TRACE_MODULES_FILE: trace },
    extendEnv: false,
    reject: false,
    timeout: 20_000,
    stdin: "ignore",
  });
  const files = [
    ...new Set(
      fs
        .readFileSync(trace, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((u) => fileURLToPath(u)),
    ),
  ];
  const sources = new Set<string>();
  for (const file of files) {
    const rel = path.relative(ROOT, file).split(path.sep).join("/");
    const out = META.outputs[rel];
    if (out) for (const input of Object.keys(out.inputs)) sources.add(input.replace(/^.*node_modules\//, "node_modules/"));
    else sources.add(rel.replace(/^.*node_modules\//, "node_modules/"));
  }
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ""), sources: [...sources].sort(), files };
}

/** What none of the short commands may load. */
const HEAVY: [string, RegExp][] = [
  ["zod", /^node_modules\/zod\//],
  ["a contract (zod schemas)", /^src\/features\/[^/]+\/contract\.ts$|^src\/features\/operations\.ts$|^src\/contract\/[^/]+-schemas\.ts$/],
  ["the model catalog", /^src\/features\/asset\/emulator\/catalog\//],
  ["the media layer", /^src\/media\//],
  ["undici", /^node_modules\/undici\//],
  ["the HTTP server", /^src\/server\//],
  ["the dashboard pages (mediagen ui)", /^src\/ui\//],
];
/**
 * The local target: SQLite and the local instance's modules, except two small helpers of the common
 * chunk (scripts/bundle-common.ts) that open nothing: the version read and the debug switch.
 */
const LIGHT_LOCAL = new Set(["src/local/debug.ts", "src/local/version.ts"]);
const localTarget = (s: string) => s.startsWith("node_modules/better-sqlite3/") || (s.startsWith("src/local/") && !LIGHT_LOCAL.has(s));
const heavyIn = (sources: string[]) => HEAVY.flatMap(([what, re]) => sources.filter((s) => re.test(s)).map((s) => `${what}: ${s}`));

describe("modules loaded at start-up", () => {
  const bundleFiles = (files: string[]) => files.filter((f) => f.startsWith(path.join(ROOT, "dist", "bundle") + path.sep)).map((f) => path.basename(f));

  it.each([[["--help"]], [["-h"]], [[]], [["--version"]], [["-V"]]])(
    "mediagen %j loads the fast entry alone: no common chunk, no zod, no media layer, no SQLite",
    async (args) => {
      const { exitCode, sources, files } = await loaded(args, path.join(tmp, "home-help"));
      expect(exitCode).toBe(args.length ? 0 : 2);
      // The trace sees the bundle (and so what is inside it): one file, not the CLI or its chunks.
      expect(bundleFiles(files)).toEqual(["root-help.cjs"]);
      expect(sources).toContain("src/cli/root-help.ts");
      expect(sources).toContain("src/cli/program.ts");
      expect(sources).toContain("src/features/index.ts");
      expect(sources).not.toContain("src/cli/context.ts");
      expect(sources).not.toContain("src/cli/run.ts");
      expect(heavyIn(sources)).toEqual([]);
      expect(sources.filter((s) => s.startsWith("node_modules/better-sqlite3/") || s.startsWith("src/local/"))).toEqual([]);
    },
  );

  it.each([
    [["help", "exit-codes"], /^ +0 +success/m],
    [["folder", "--help"], /Usage: mediagen folder/],
    [["--json", "--help"], /Usage: mediagen \[options\] \[command\]/],
  ])("mediagen %j falls back to the full CLI (and still loads nothing heavy)", async (args, shows) => {
    const { exitCode, stdout, sources, files } = await loaded(args, path.join(tmp, "home-help"));
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(shows);
    const bundle = bundleFiles(files);
    expect(bundle).toContain("mediagen.js");
    expect(bundle).not.toContain("root-help.cjs");
    expect(sources).toContain("src/cli/run.ts");
    expect(heavyIn(sources)).toEqual([]);
    expect(sources.filter(localTarget)).toEqual([]);
  });

  it("folder list on the local target opens SQLite and the folder handlers, and nothing heavy", async () => {
    const home = path.join(tmp, "home-folders");
    const { exitCode, sources } = await loaded(["folder", "list", "--json"], home);
    expect(exitCode).toBe(0);
    // The SQLite driver of this Node (src/local/db/driver.ts): node:sqlite needs no module of node_modules.
    if (nodeSqliteMissing() === undefined && !process.env.MEDIAGEN_SQLITE_DRIVER) {
      expect(sources).toContain("src/local/db/node-sqlite.ts");
      expect(sources.filter((s) => s.startsWith("node_modules/better-sqlite3/"))).toEqual([]);
    } else expect(sources).toContain("node_modules/better-sqlite3/lib/database.js");
    expect(sources).toContain("src/features/folder/emulator/local.ts");
    expect(heavyIn(sources)).toEqual([]);
    // No other feature's handlers.
    expect(sources.filter((s) => /^src\/features\/(?!folder\/)[^/]+\/(local|job)\.ts$/.test(s))).toEqual([]);
  });

  it("asset models does load the catalog (the trace sees what a command needs)", async () => {
    const { exitCode, sources } = await loaded(["asset", "models", "--json"], path.join(tmp, "home-models"));
    expect(exitCode).toBe(0);
    expect(sources.some((s) => s.startsWith("src/features/asset/emulator/catalog/"))).toBe(true);
    expect(sources.filter((s) => s.startsWith("src/media/"))).toEqual([]);
  });
});
