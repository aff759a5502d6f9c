/**
 * src/config/env.ts is the one list of environment variables: every read in src/ is of a declared
 * variable, only env.ts touches `process.env.<NAME>`, and docs/cli.md shows the table it declares.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { describeEnv, ENV_VARS, InvalidEnvError, readEnv, type EnvName } from "../../src/config/env.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = path.join(ROOT, "src");
const ENV_FILE = path.join(SRC, "config", "env.ts");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

interface Read {
  where: string;
  name: string;
}

/** Every `process.env.X`, `process.env["X"]`, `env.X`, `env["X"]`, `readEnv("X"` and MEDIAGEN_* name in src/. */
function readsIn(file: string): { names: Read[]; direct: Read[] } {
  const names: Read[] = [];
  const direct: Read[] = [];
  fs.readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      const where = `${path.relative(ROOT, file)}:${i + 1}`;
      for (const m of line.matchAll(/\bprocess\.env(?:\.([A-Za-z_]\w*)|\[\s*["']([A-Za-z_]\w*)["']\s*\])/g)) direct.push({ where, name: (m[1] ?? m[2])! });
      // Not file names such as `./env.js` or `config-env.test.ts`.
      for (const m of line.matchAll(/(?<![/-])\benv(?:\.([A-Za-z_]\w*)|\[\s*["']([A-Za-z_]\w*)["']\s*\])/g)) names.push({ where, name: (m[1] ?? m[2])! });
      for (const m of line.matchAll(/\breadEnv\(\s*["']([A-Za-z_]\w*)["']/g)) names.push({ where, name: m[1]! });
      for (const m of line.matchAll(/\bMEDIAGEN_[A-Z0-9_]*[A-Z0-9]\b/g)) names.push({ where, name: m[0] });
    });
  return { names, direct };
}

const declared = new Set(Object.keys(ENV_VARS));

describe("the environment table", () => {
  const files = sources(SRC);
  const all = files.map(readsIn);

  it("finds reads to check (the scan itself works)", () => {
    const names = new Set(all.flatMap((r) => r.names.map((n) => n.name)));
    for (const expected of ["MEDIAGEN_HOME", "MEDIAGEN_FFMPEG", "NO_COLOR", "no_proxy", "MEDIAGEN_WORKER_IDLE_MS"]) expect(names).toContain(expected);
  });

  it("declares every variable read under src/", () => {
    const undeclared = all.flatMap((r) => r.names).filter((r) => !declared.has(r.name));
    expect([...new Set(undeclared.map((r) => `${r.where}: ${r.name}`))]).toEqual([]);
  });

  it("is the only module that reads process.env.<NAME>: the rest go through readEnv or an injected environment", () => {
    const direct = files.filter((f) => f !== ENV_FILE).flatMap((f) => readsIn(f).direct);
    expect(direct.map((r) => `${r.where}: process.env.${r.name}`)).toEqual([]);
  });

  it("imports nothing, so the media layer may read through it without depending on anything", () => {
    expect(fs.readFileSync(ENV_FILE, "utf8")).not.toMatch(/^\s*import\s/m);
  });

  it("is shown in docs/cli.md, row by row", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs", "cli.md"), "utf8");
    const missing = describeEnv().filter((r) => !doc.includes(`| \`${r.name}\` | ${r.area} | ${r.description} |`));
    expect(missing.map((r) => r.name)).toEqual([]);
  });
});

describe("readEnv", () => {
  const saved = process.env.MEDIAGEN_MEDIA_KEEP;
  afterEach(() => {
    if (saved === undefined) delete process.env.MEDIAGEN_MEDIA_KEEP;
    else process.env.MEDIAGEN_MEDIA_KEEP = saved;
  });

  it.each([
    ["MEDIAGEN_HOME", "  ", undefined],
    ["MEDIAGEN_HOME", "/tmp/h", "/tmp/h"],
    ["MEDIAGEN_API_KEY", "  mg_live_x \n", "mg_live_x"],
    ["APPDATA", "", undefined],
    ["NO_COLOR", "", false],
    ["NO_COLOR", "0", true],
    ["FORCE_COLOR", undefined, undefined],
    ["FORCE_COLOR", "", true],
    ["FORCE_COLOR", "0", false],
    ["FORCE_COLOR", "FALSE", false],
    ["CI", "true", true],
    ["CI", "0", false],
    ["COLUMNS", "120", 120],
    ["COLUMNS", "0", undefined],
    ["MEDIAGEN_WORKER_IDLE_MS", "250", 250],
    ["MEDIAGEN_WORKER_IDLE_MS", "soon", undefined],
    ["MEDIAGEN_WORKER_POLL_MS", "-5", undefined],
    ["MEDIAGEN_MEDIA_FALLBACK", "false", false],
    ["MEDIAGEN_MEDIA_FALLBACK", "yes", true],
    ["MEDIAGEN_MEDIA_TRACE", "1", "times"],
    ["MEDIAGEN_MEDIA_TRACE", "args", "args"],
    ["MEDIAGEN_LOCAL_RATE_LIMIT", "", undefined],
    ["MEDIAGEN_LOCAL_RATE_LIMIT", "500", 500],
    ["https_proxy", "", ""],
    ["PATHEXT", undefined, [".EXE", ".CMD", ".BAT"]],
  ] as Array<[EnvName, string | undefined, unknown]>)("%s=%j reads as %j", (name, raw, value) => {
    expect(readEnv(name, raw === undefined ? {} : { [name]: raw })).toEqual(value);
  });

  it("refuses a value it cannot act on, naming the variable", () => {
    const read = () => readEnv("MEDIAGEN_LOCAL_RATE_WINDOW_MS", { MEDIAGEN_LOCAL_RATE_WINDOW_MS: "1.5" });
    expect(read).toThrow(InvalidEnvError);
    expect(read).toThrow('MEDIAGEN_LOCAL_RATE_WINDOW_MS must be a positive integer, got "1.5"');
  });

  it("reads this process's environment at call time by default", () => {
    delete process.env.MEDIAGEN_MEDIA_KEEP;
    expect(readEnv("MEDIAGEN_MEDIA_KEEP")).toBe(false);
    process.env.MEDIAGEN_MEDIA_KEEP = "1";
    expect(readEnv("MEDIAGEN_MEDIA_KEEP")).toBe(true);
  });
});
