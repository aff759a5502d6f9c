/**
 * One flag style for every command (issue 39): a command's flags are declared once with
 * `defineFlags` (src/cli/flags.ts), whose `addTo` is the one place that makes commander options.
 * This reads every .ts file under src/ and names the file and line of each option added any other
 * way: `.option(`, `.requiredOption(`, `.addOption(` or `new Option(` outside src/cli/flags.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The one module that makes commander options. */
const FLAGS_MODULE = "src/cli/flags.ts";

const BARE = [/\.\s*(?:option|requiredOption|addOption)\s*\(/, /\bnew\s+Option\s*\(/];

/** The text with comments blanked out (line breaks kept, so line numbers stay right). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** `file:line: code` for each line of `text` that adds a commander option by hand. */
function bareOptions(file: string, text: string): string[] {
  const original = text.split("\n");
  return withoutComments(text)
    .split("\n")
    .flatMap((line, i) => (BARE.some((re) => re.test(line)) ? [`${file}:${i + 1}: ${original[i]!.trim()}`] : []));
}

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.isFile() && e.name.endsWith(".ts") ? [full] : [];
  });
}

const SOURCES = tsFiles(path.join(ROOT, "src")).map((full) => ({
  file: path.relative(ROOT, full).split(path.sep).join("/"),
  text: fs.readFileSync(full, "utf8"),
}));

describe("one flag style", () => {
  it("no file but src/cli/flags.ts adds a commander option itself (declare flags with defineFlags)", () => {
    const found = SOURCES.filter((s) => s.file !== FLAGS_MODULE).flatMap((s) => bareOptions(s.file, s.text));
    expect(found, `add these flags with defineFlags(...).addTo(cmd) (src/cli/flags.ts):\n${found.join("\n")}`).toEqual([]);
  });

  it("reads the sources it means to (the commands, the program and flags.ts itself)", () => {
    const files = SOURCES.map((s) => s.file);
    expect(files.length).toBeGreaterThan(100);
    for (const f of [FLAGS_MODULE, "src/cli/program.ts", "src/cli/commands/serve.ts", "src/cli/help-text.ts"]) expect(files).toContain(f);
    // flags.ts is the exception because it does make the options.
    expect(bareOptions(FLAGS_MODULE, SOURCES.find((s) => s.file === FLAGS_MODULE)!.text)).not.toEqual([]);
  });

  it("names the file and line of every way of adding an option by hand, and ignores comments", () => {
    const text = [
      "/**",
      ' * Not code: cmd.option("--in-a-doc")',
      " */",
      'cmd.option("--a", "a")',
      "cmd",
      '  .requiredOption("--b <b>", "b")',
      '  .addOption(new Option("--c", "c").hideHelp())',
      'const d = new Option("--d");',
      '// cmd.option("--commented-out")',
      'FLAGS.addTo(cmd).argument("<x>"); // a url http://example.test/.option( in a comment',
      "cmd.optionsGroup = 1; cmd.opts(); cmd.options.map((o) => o.long);",
    ].join("\n");
    expect(bareOptions("x.ts", text)).toEqual([
      'x.ts:4: cmd.option("--a", "a")',
      'x.ts:6: .requiredOption("--b <b>", "b")',
      'x.ts:7: .addOption(new Option("--c", "c").hideHelp())',
      'x.ts:8: const d = new Option("--d");',
    ]);
  });
});
