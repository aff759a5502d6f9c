/**
 * The checks `npm test` runs before the suite, each shown to catch what it is for: the function
 * length rule (scripts/check-function-length.mjs) on planted functions, the tests' type check
 * (tsconfig.test.json) on a planted type error, and the fresh-machine PATH of
 * scripts/without-system-media.sh (no system ffmpeg, ffprobe or espeak-ng; node still there).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempTree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-checks-"));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

function exec(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0;
      resolve({ code, output: stdout + stderr });
    });
  });
}

/** A function spanning exactly `lines` lines, first line to closing brace. */
function fn(name: string, lines: number): string {
  return [`export function ${name}(): number {`, "  let n = 0;", ...Array.from({ length: lines - 4 }, () => "  n++;"), "  return n;", "}", ""].join("\n");
}

/**
 * The tests' type check on a tree with a planted type error (started before the tests, as it is the
 * longest run of this file; the other checks run meanwhile).
 */
let typeCheck: Promise<{ code: number; output: string }>;
beforeAll(() => {
  const dir = tempTree({
    "tsconfig.test.json": JSON.stringify({
      extends: path.join(ROOT, "tsconfig.test.json"),
      include: ["test/**/*.ts"],
      compilerOptions: { noEmit: true, rootDir: "." },
    }),
    "test/bad.test.ts": `const n: number = "not a number";\nexport { n };\n`,
  });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  typeCheck = exec(process.execPath, [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.test.json"], dir);
});

describe("no function longer than 100 lines (npm run lint:functions)", () => {
  const check = (dir: string) => exec(process.execPath, [path.join(ROOT, "scripts", "check-function-length.mjs"), "src"], dir);

  it("passes 100 lines and fails 101, naming the file, line, function and its length", async () => {
    const [ok, r] = await Promise.all([
      check(tempTree({ "src/a.ts": fn("hundred", 100) })),
      check(tempTree({ "src/a.ts": fn("hundred", 100), "src/deep/b.ts": `\n${fn("tooLong", 101)}` })),
    ]);
    expect(ok.code).toBe(0);
    expect(r.code).toBe(1);
    expect(r.output).toContain("src/deep/b.ts:2: tooLong is 101 lines (at most 100)");
    expect(r.output).not.toContain("hundred");
  });

  it("measures methods, arrow functions and callbacks too, nested ones inside their parent", async () => {
    const body = Array.from({ length: 99 }, () => "      n++;").join("\n");
    const source = `export const command = {\n  register(n: number) {\n    [1].forEach(() => {\n${body}\n    });\n  },\n};\nexport const arrow = (n: number) => {\n${body}\n};\n`;
    const r = await check(tempTree({ "src/c.ts": source }));
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/src\/c\.ts:2: register is 103 lines/);
    expect(r.output).toMatch(/src\/c\.ts:3: \(callback of \[1\]\.forEach\) is 101 lines/);
    expect(r.output).toMatch(/src\/c\.ts:106: arrow is 101 lines/);
  });
});

describe("npm test", () => {
  it("type-checks the tests, lints, checks the format and function length before the suite", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    const steps = pkg.scripts.test!.split(" && ");
    expect(steps.slice(0, 5)).toEqual(["npm run build", "npm run typecheck:tests", "npm run lint", "npm run lint:functions", "npm run lint:layers"]);
    expect(steps.at(-1)).toBe("vitest run");
    expect(pkg.scripts.lint).toBe("biome ci .");
    const tsconfig = fs.readFileSync(path.join(ROOT, "tsconfig.test.json"), "utf8");
    expect(tsconfig).toContain('"test/**/*.ts"');
  });

  it("fails on a type error in a test (tsconfig.test.json)", async () => {
    const r = await typeCheck;
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/test\/bad\.test\.ts\(1,7\): error TS2322/);
  });
});

describe("scripts/without-system-media.sh (a fresh machine's PATH)", () => {
  it("hides ffmpeg, ffprobe and espeak-ng, keeps node, and removes its shadow directories after", async () => {
    const probe = 'for t in ffmpeg ffprobe espeak-ng espeak; do command -v $t || echo no-$t; done; command -v node >/dev/null && echo node-ok; echo "$PATH"';
    const r = await exec(path.join(ROOT, "scripts", "without-system-media.sh"), ["sh", "-c", probe], ROOT);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain("no-ffmpeg\nno-ffprobe\nno-espeak-ng\nno-espeak\nnode-ok\n");
    // The run's own shadow directories are gone after it (when this suite itself runs under the
    // script, its PATH already names the outer run's, which are still in use: those are left out).
    const outer = new Set(process.env.PATH?.match(/mediagen-no-media\.\w+/g) ?? []);
    const shadows = (r.output.match(/mediagen-no-media\.\w+/g) ?? []).filter((s) => !outer.has(s));
    for (const s of shadows) expect(fs.existsSync(path.join(os.tmpdir(), s))).toBe(false);
  });
});
