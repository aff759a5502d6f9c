/**
 * The dashboard's layer rules (issue 27; .dependency-cruiser.cjs `ui-only-from-its-commands`,
 * `ui-lazy`): src/ui/ is loaded by `mediagen ui` and `mediagen serve` only, by dynamic import(), so
 * no other command pays for it. A small tree like src/ passes; each planted violation fails under
 * its rule's name.
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

const ALLOWED: Record<string, string> = {
  "src/ui/handler.ts": `import { readHistory } from "../cli/journal.js";\nexport const pages = () => readHistory;\n`,
  "src/cli/journal.ts": `export const readHistory = () => [];\n`,
  "src/cli/commands/ui.ts": `export const run = () => import("../../ui/handler.js");\n`,
  "src/cli/commands/serve.ts": `import type { pages } from "../../ui/handler.js";\nexport const run = async (): Promise<typeof pages> => (await import("../../ui/handler.js")).pages;\n`,
};

const PLANTED: Record<string, string> = {
  "src/cli/commands/config.ts": `export const p = () => import("../../ui/handler.js");\n`,
  "src/cli/commands/ui.ts": `import { pages } from "../../ui/handler.js";\nexport const run = () => pages;\n`,
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-layers-ui-"));
  dirs.push(dir);
  fs.copyFileSync(path.join(ROOT, "tsconfig.json"), path.join(dir, "tsconfig.json"));
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

function lintLayers(dir: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, "src", "--config", CONFIG, "--output-type", "err"], { cwd: dir, timeout: 60_000 }, (_err, stdout, stderr) =>
      resolve(stdout + stderr),
    );
  });
}

// The two runs of dependency-cruiser are independent: started together, each test awaits its own.
let allowedRun: Promise<string>;
let plantedRun: Promise<string>;
beforeAll(() => {
  allowedRun = lintLayers(tree(ALLOWED));
  plantedRun = lintLayers(tree({ ...ALLOWED, ...PLANTED }));
});

describe("the dashboard's layer rules", () => {
  it("let `ui` and `serve` load src/ui/ lazily", async () => {
    expect(await allowedRun).toContain("no dependency violations found");
  }, 60_000);

  it("refuse any other module reaching it, and a static import by its commands", async () => {
    const out = await plantedRun;
    expect(out).toContain("error ui-only-from-its-commands: src/cli/commands/config.ts → src/ui/handler.ts");
    expect(out).toContain("error ui-lazy: src/cli/commands/ui.ts → src/ui/handler.ts");
  }, 60_000);
});
