/**
 * The layer check (`npm run lint:layers`: dependency-cruiser with .dependency-cruiser.cjs) run on a
 * small tree laid out like src/: what the rules allow passes, and each planted violation fails,
 * reported under its rule's name (the dashboard's rules among them: src/ui/ is loaded by `mediagen
 * ui` and `mediagen serve` only, by dynamic import()). The real tree is checked by `npm test` itself.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DEPCRUISE = path.join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const CONFIG = path.join(ROOT, ".dependency-cruiser.cjs");

/** A tree that goes through every door the rules leave open. */
const ALLOWED: Record<string, string> = {
  "src/contract/errors.ts": `import { z } from "zod";\nexport const Err = z.object({ code: z.string() });\n`,
  "src/features/folder/contract.ts":
    `import { z } from "zod";\nimport { Err } from "../../contract/errors.js";\n` + `export const Folder = z.object({ id: z.string(), error: Err.optional() });\n`,
  "src/features/folder/emulator/local.ts":
    `import { core } from "../../../local/core.js";\nimport { lookup } from "../../voice/emulator/public/lookup.js";\nimport { Voice } from "../../voice/contract.js";\n` +
    `export const handlers = { core, lookup, Voice };\n`,
  // Another feature's emulator, through its public part and its contract.
  "src/features/voice/emulator/public/lookup.ts": `export const lookup = () => "voice";\n`,
  "src/features/voice/contract.ts": `import { z } from "zod";\nexport const Voice = z.object({ id: z.string() });\n`,
  "src/features/folder/client/cli.ts": `import { Folder } from "../contract.js";\nimport { readEnv } from "../../../config/env.js";\nexport const command = { Folder, readEnv };\n`,
  "src/features/local.ts": `export * from "./folder/emulator/local.js";\n`,
  // A door keeper reaches a feature's emulator, lazily.
  "src/cli/commands/local-catalog.ts": `export const sync = () => import("../../features/folder/emulator/local.js");\n`,
  "src/config/env.ts": `export function readEnv(name: string): string | undefined {\n  return process.env[name];\n}\n`,
  "src/cli/context.ts":
    `import type { handlers } from "../features/local.js";\n` +
    `export async function open(): Promise<typeof handlers> {\n  return (await import("../features/local.js")).handlers;\n}\n`,
  "src/cli/commands/serve.ts":
    `import type { pages } from "../../ui/handler.js";\n` +
    `export async function serve() {\n` +
    `  const [{ handlers }, { start }] = await Promise.all([import("../../features/local.js"), import("../../server/server.js")]);\n` +
    `  const ui: typeof pages = (await import("../../ui/handler.js")).pages;\n` +
    `  return [start(handlers), ui];\n}\n`,
  // The dashboard (issue 27): src/ui/ is loaded by `mediagen ui` and `mediagen serve` only, lazily.
  "src/ui/handler.ts": `import { readHistory } from "../cli/journal.js";\nexport const pages = () => readHistory;\n`,
  "src/cli/journal.ts": `export const readHistory = () => [];\n`,
  "src/cli/commands/ui.ts": `export const run = () => import("../../ui/handler.js");\n`,
  "src/server/server.ts": `import { core } from "../local/core.js";\nexport function start(h: unknown) {\n  return [core, h];\n}\n`,
  // The MCP server: the SDK and CLI helpers, loaded lazily by `mediagen mcp` only.
  "src/mcp/server.ts": `import { Server } from "@modelcontextprotocol/sdk/server/index.js";\nimport { readEnv } from "../config/env.js";\nexport const s = { Server, readEnv };\n`,
  "src/cli/commands/mcp.ts": `export const run = () => import("../../mcp/server.js");\n`,
  "src/hosted/client.ts": `export const client = "hosted";\n`,
  "src/local/core.ts": `import type { Folder } from "../features/folder/contract.js";\nexport const core = "core";\nexport type FolderShape = typeof Folder;\n`,
  "src/media/render.ts":
    `import fs from "node:fs";\nimport { readEnv } from "../config/env.js";\n` + `export const render = () => fs.existsSync(readEnv("MEDIAGEN_FFMPEG") ?? "");\n`,
  // A cycle through a type-only import is erased by the build: allowed.
  "src/engine/a.ts": `import type { B } from "./b.js";\nexport type A = { b?: B };\nexport const a = 1;\n`,
  "src/engine/b.ts": `import { a } from "./a.js";\nexport type B = { a: typeof a };\n`,
};

interface Planted {
  rule: string;
  files: Record<string, string>;
  /** The start of the report line: `<from> → <to>`. */
  reported: string;
}

/** Each breaks one rule, added to (or replacing files of) the allowed tree. */
const PLANTED: Planted[] = [
  {
    rule: "contract-only-zod",
    files: { "src/contract/paths.ts": `import path from "node:path";\nexport const sep = path.sep;\n` },
    reported: "src/contract/paths.ts → path",
  },
  {
    rule: "contract-only-zod",
    files: { "src/features/asset/contract.ts": `import { core } from "../../local/core.js";\nexport const x = core;\n` },
    reported: "src/features/asset/contract.ts → src/local/core.ts",
  },
  {
    rule: "cli-not-emulator",
    files: {
      "src/features/asset/client/cli.ts": `import { handlers } from "../emulator/local.js";\nexport const c = handlers;\n`,
      "src/features/asset/emulator/local.ts": `export const handlers = {};\n`,
    },
    reported: "src/features/asset/client/cli.ts → src/features/asset/emulator/local.ts",
  },
  {
    rule: "emulator-not-client",
    files: {
      "src/features/script/emulator/local.ts": `import { flags } from "../client/cli.js";\nexport const h = flags;\n`,
      "src/features/script/client/cli.ts": `export const flags = {};\n`,
    },
    reported: "src/features/script/emulator/local.ts → src/features/script/client/cli.ts",
  },
  {
    rule: "emulator-across-features",
    files: {
      "src/features/video/emulator/local.ts": `import { rows } from "../../export/emulator/record.js";\nexport const h = rows;\n`,
      "src/features/export/emulator/record.ts": `export const rows = [];\n`,
    },
    reported: "src/features/video/emulator/local.ts → src/features/export/emulator/record.ts",
  },
  {
    rule: "cli-local-door-lazy",
    files: { "src/cli/commands/local-webhooks.ts": `import { handlers } from "../../features/folder/emulator/local.js";\nexport const h = handlers;\n` },
    reported: "src/cli/commands/local-webhooks.ts → src/features/folder/emulator/local.ts",
  },
  {
    rule: "cli-not-local",
    files: { "src/cli/preview.ts": `import { render } from "../media/render.js";\nexport const p = render;\n` },
    reported: "src/cli/preview.ts → src/media/render.ts",
  },
  {
    rule: "cli-not-local",
    files: { "src/cli/sql.ts": `import Database from "better-sqlite3";\nexport const D = Database;\n` },
    reported: "src/cli/sql.ts → node_modules/better-sqlite3/",
  },
  {
    rule: "cli-local-door",
    files: { "src/cli/commands/auth.ts": `export const open = () => import("../../features/local.js");\n` },
    reported: "src/cli/commands/auth.ts → src/features/local.ts",
  },
  {
    rule: "cli-local-door-lazy",
    files: { "src/cli/commands/local.ts": `import { handlers } from "../../features/local.js";\nexport const h = handlers;\n` },
    reported: "src/cli/commands/local.ts → src/features/local.ts",
  },
  {
    rule: "cli-server-only-serve",
    files: { "src/cli/commands/config.ts": `export const s = () => import("../../server/server.js");\n` },
    reported: "src/cli/commands/config.ts → src/server/server.ts",
  },
  {
    rule: "cli-server-lazy",
    files: {
      "src/cli/commands/serve.ts":
        `import { start } from "../../server/server.js";\n` + `export async function serve() {\n  return start((await import("../../features/local.js")).handlers);\n}\n`,
    },
    reported: "src/cli/commands/serve.ts → src/server/server.ts",
  },
  {
    rule: "mcp-on-top",
    files: { "src/cli/commands/help.ts": `export const m = () => import("../../mcp/server.js");\n` },
    reported: "src/cli/commands/help.ts → src/mcp/server.ts",
  },
  {
    rule: "mcp-lazy",
    files: { "src/cli/commands/mcp.ts": `import { s } from "../../mcp/server.js";\nexport const run = () => s;\n` },
    reported: "src/cli/commands/mcp.ts → src/mcp/server.ts",
  },
  {
    rule: "mcp-sdk-only-in-mcp",
    files: { "src/cli/sdk.ts": `import { Client } from "@modelcontextprotocol/sdk/client/index.js";\nexport const c = Client;\n` },
    reported: "src/cli/sdk.ts → node_modules/@modelcontextprotocol/sdk/",
  },
  {
    rule: "local-core-not-above",
    files: { "src/local/peek.ts": `import { client } from "../hosted/client.js";\nexport const c = client;\n` },
    reported: "src/local/peek.ts → src/hosted/client.ts",
  },
  {
    rule: "local-core-types-only-from-features",
    files: { "src/local/schemas.ts": `import { Folder } from "../features/folder/contract.js";\nexport const f = Folder;\n` },
    reported: "src/local/schemas.ts → src/features/folder/contract.ts",
  },
  {
    rule: "media-node-only",
    files: { "src/media/store.ts": `import { core } from "../local/core.js";\nexport const s = core;\n` },
    reported: "src/media/store.ts → src/local/core.ts",
  },
  {
    rule: "env-table-leaf",
    files: {
      "src/config/env.ts": `import path from "node:path";\nexport function readEnv(name: string): string | undefined {\n  return process.env[name] ?? path.sep;\n}\n`,
    },
    reported: "src/config/env.ts → path",
  },
  {
    rule: "no-circular",
    files: {
      "src/engine/c.ts": `import { d } from "./d.js";\nexport const c = () => d;\n`,
      "src/engine/d.ts": `import { c } from "./c.js";\nexport const d = () => c;\n`,
    },
    reported: "src/engine/c.ts → ",
  },
  {
    rule: "ui-only-from-its-commands",
    files: { "src/cli/commands/history.ts": `export const p = () => import("../../ui/handler.js");\n` },
    reported: "src/cli/commands/history.ts → src/ui/handler.ts",
  },
  {
    rule: "ui-lazy",
    files: { "src/cli/commands/ui.ts": `import { pages } from "../../ui/handler.js";\nexport const run = () => pages;\n` },
    reported: "src/cli/commands/ui.ts → src/ui/handler.ts",
  },
  {
    rule: "not-to-unresolvable",
    files: { "src/engine/e.ts": `import { gone } from "./missing.js";\nexport const e = gone;\n` },
    reported: "src/engine/e.ts → ./missing.js",
  },
];

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-layers-"));
  dirs.push(dir);
  fs.copyFileSync(path.join(ROOT, "tsconfig.json"), path.join(dir, "tsconfig.json"));
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** `npm run lint:layers`, run in `dir`. */
function lintLayers(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, "src", "--config", CONFIG, "--output-type", "err"], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0;
      resolve({ code, output: stdout + stderr });
    });
  });
}

/** `error <rule>: <from> → <to>` lines of the report (a cycle's first line names its first module). */
function reportedRules(output: string): string[] {
  return [...output.matchAll(/^\s*error ([\w-]+): (\S+) →/gm)].map((m) => `${m[1]}: ${m[2]}`);
}

/** `npm run lint:layers --output-type json` on the real tree: the modules and their dependencies. */
function cruiseRealTree(): Promise<string> {
  return new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [DEPCRUISE, "src", "--config", CONFIG, "--output-type", "json"],
      { cwd: ROOT, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (err, out) => (err ? reject(err) : resolve(out)),
    ),
  );
}

// Two runs of dependency-cruiser (about 2.5 s of CPU each), started together, each test awaiting
// its own: the allowed doors and the planted violations in one tree (each violation must be reported
// and nothing else, so no allowed door is), and the real tree (which passes, or the run rejects).
let plantedRun: Promise<{ code: number; output: string }>;
let realTree: Promise<string>;
beforeAll(() => {
  plantedRun = lintLayers(tree(Object.assign({}, ALLOWED, ...PLANTED.map((p) => p.files)) as Record<string, string>));
  realTree = cruiseRealTree();
  // A run a test never reaches (an earlier failure) must not become an unhandled rejection.
  realTree.catch(() => undefined);
});

// dependency-cruiser runs twice in child processes: on a loaded machine that passes the default minute.
describe("the layer check", { timeout: 180_000 }, () => {
  it("passes a tree that only uses the allowed doors", async () => {
    // Every allowed door is in the planted tree: none of its files is reported there.
    const reported = new Set(reportedRules((await plantedRun).output).map((r) => r.split(": ")[1]!));
    const planted = new Set(PLANTED.flatMap((p) => Object.keys(p.files)));
    const doors = Object.keys(ALLOWED).filter((f) => f.startsWith("src/") && !planted.has(f));
    expect(doors.length).toBeGreaterThan(10);
    expect(doors.filter((f) => reported.has(f))).toEqual([]);
    // And a tree without violations passes: the real one (a failing run would reject).
    const { summary } = JSON.parse(await realTree) as { summary: { violations: unknown[]; error: number } };
    expect([summary.violations, summary.error]).toEqual([[], 0]);
  });

  it("fails on each planted violation, naming its rule, and on nothing else", async () => {
    const r = await plantedRun;
    expect(r.code).not.toBe(0);
    for (const p of PLANTED) expect(r.output, `${p.rule} on ${p.reported}`).toContain(`error ${p.rule}: ${p.reported}`);
    const expected = new Set(PLANTED.map((p) => `${p.rule}: ${p.reported.split(" ")[0]}`));
    expect(new Set(reportedRules(r.output))).toEqual(expected);
  });

  it("no CLI module loads the local target at start-up, even through a module in between", async () => {
    // The rules look at direct imports; a chain of static imports (cli.ts → catalog → media) would
    // load the same code at start-up, so the real tree is walked along static, non-type imports.
    const stdout = await realTree;
    const { modules } = JSON.parse(stdout) as {
      modules: Array<{ source: string; dependencies: Array<{ resolved: string; dynamic: boolean; dependencyTypes: string[] }> }>;
    };
    const loads = new Map(modules.map((m) => [m.source, m.dependencies.filter((d) => !d.dynamic && !d.dependencyTypes.includes("type-only")).map((d) => d.resolved)]));
    const cli = modules.map((m) => m.source).filter((s) => /^src\/cli\/|^src\/features\/[^/]+\/cli\.ts$|^src\/mcp\//.test(s));
    expect(cli.length).toBeGreaterThan(20);
    const localTarget = /^src\/local\/|^src\/features\/[^/]+\/(local|job|schema)\.ts$|^src\/features\/local\.ts$|^src\/media\/|^src\/server\/|better-sqlite3/;
    const chains: string[] = [];
    for (const start of cli) {
      const seen = new Set([start]);
      const queue: string[][] = [[start]];
      while (queue.length) {
        const chain = queue.shift()!;
        for (const next of loads.get(chain[chain.length - 1]!) ?? []) {
          if (seen.has(next)) continue;
          seen.add(next);
          if (localTarget.test(next)) chains.push([...chain, next].join(" → "));
          else queue.push([...chain, next]);
        }
      }
    }
    expect(chains).toEqual([]);
  });

  it("is part of npm test", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts["lint:layers"]).toContain("depcruise src --config .dependency-cruiser.cjs");
    expect(pkg.scripts.test).toMatch(/npm run lint:layers && vitest run/);
  });
});
