/** `--help` fits the terminal (issue 11): descriptions and examples wrap at its width. */
import { describe, expect, it } from "vitest";
import { run } from "./helpers.js";
import { wrapExample } from "../../src/cli/help-text.js";

const widest = (text: string) => Math.max(...text.split("\n").map((l) => l.length));

describe("help at the terminal's width", () => {
  it.each([[60], [80], [40]])("avatar --help on a %i-column terminal: no line is wider", async (columns) => {
    const r = await run(["avatar", "--help"], { tty: { stdout: true, columns } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(columns);
    // Nothing is lost: every subcommand and every example is still there.
    for (const c of ["create", "edit", "status", "get", "look", "list"]) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, "m"));
    expect(r.stdout).toContain("friendly barista, warm light");
  });

  it("avatar create --help and the root help fit 60 columns too", async () => {
    for (const args of [["avatar", "create", "--help"], ["--help"]]) {
      const r = await run(args, { tty: { stdout: true, columns: 60 } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(widest(r.stdout), args.join(" ")).toBeLessThanOrEqual(60);
    }
  });

  it("off a terminal, examples stay one line each (for grep and copy)", async () => {
    const r = await run(["avatar", "--help"]);
    expect(r.stdout).toContain('  $ mediagen avatar create --prompt "friendly barista, warm light" --watch\n');
  });

  it("a wrapped example is still one shell command: broken between words with a trailing backslash", async () => {
    const line = '$ mediagen avatar create --prompt "friendly barista, warm light" --watch';
    const wrapped = wrapExample(line, 40);
    expect(widest(wrapped)).toBeLessThanOrEqual(40);
    const { execa } = await import("execa");
    // The shell reads the wrapped text as the same words.
    const words = async (text: string) => (await execa("bash", ["-c", `set -- ${text.replace(/^\s*\$ /, "")}; printf '%s\\n' "$@"`])).stdout;
    expect(await words(wrapped)).toBe(await words(line));
  });
});
