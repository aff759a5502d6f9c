import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, run } from "./helpers.js";

describe("help, version, usage errors", () => {
  it("--help prints usage and examples on stdout, exit 0", async () => {
    const r = await run(["--help"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("Usage: mediagen");
    expect(r.stdout).toContain("Examples:");
    expect(r.stderr).toBe("");
  });

  it.each([
    ["folder"],
    ["folder", "create"],
    ["folder", "list"],
    ["local"],
    ["local", "keys", "create"],
    ["local", "keys", "revoke"],
    ["local", "keys", "regenerate"],
    ["local", "spaces", "list"],
    ["local", "credits", "add"],
    ["local", "ledger"],
    ["local", "ledger", "verify"],
    ["local", "webhooks"],
    ["local", "webhooks", "secret", "set"],
    ["local", "webhooks", "secret", "clear"],
    ["local", "reset"],
    ["auth", "login"],
    ["auth", "logout"],
    ["auth", "status"],
    ["config", "get"],
    ["config", "set"],
    ["config", "list"],
    ["completion"],
    ["help"],
  ])("%s … --help has examples", async (...cmd) => {
    const r = await run([...cmd, "--help"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n {2}\$ .*mediagen /);
  });

  it("every command and group, once loaded, has examples in its --help", async () => {
    // The built program (dist/), as the binary loads it; typed by its source.
    const builtProgram = "../../dist/cli/program.js";
    const { buildProgram } = (await import(builtProgram)) as typeof import("../../src/cli/program.js");
    const program = await buildProgram(
      "0.0.0",
      () => {
        throw new Error("no context");
      },
      { writeOut: () => {}, writeErr: () => {} },
    );
    const missing: string[] = [];
    const walk = (cmd: { commands: readonly unknown[] }, names: string[]) => {
      for (const c of cmd.commands as Array<{ name(): string; helpInformation(): string; commands: unknown[]; _hidden?: boolean }>) {
        if (c._hidden) continue;
        let text = "";
        (c as unknown as { configureOutput(o: object): void }).configureOutput({ writeOut: (s: string) => (text += s), writeErr: (s: string) => (text += s) });
        (c as unknown as { outputHelp(): void }).outputHelp();
        if (!/Examples:\n {2}\$ .*mediagen /.test(text)) missing.push([...names, c.name()].join(" "));
        walk(c, [...names, c.name()]);
      }
    };
    walk(program, []);
    expect(missing).toEqual([]);
  });

  it("a group run without its subcommand: exit 2, and the JSON error says what is missing", async () => {
    const r = await run(["folder", "--json"]);
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()?.message).not.toContain("outputHelp");
    expect(r.errorLine()?.message).toMatch(/subcommand/);
  });

  it("docs/cli.md states the local poll schedule the code uses", async () => {
    const { localSchedule } = await import("../../src/contract/poll.js");
    const doc = fs.readFileSync(path.join(ROOT, "docs", "cli.md"), "utf8").replace(/\s+/g, " ");
    const s = (ms: number) => `${ms / 1000} s`;
    expect(doc).toContain(
      `the local target polls every ${s(localSchedule(0))}, every ${s(localSchedule(5_000))} after 5 s, every ${s(localSchedule(30_000))} after 30 s`,
    );
  });

  it("--version prints the package version", async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    const r = await run(["--version"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it.each([
    ["no command", []],
    ["unknown command", ["frobnicate"]],
    ["unknown option", ["folder", "list", "--bogus"]],
    ["bad choice", ["folder", "create", "--name", "x", "--type", "images"]],
    ["bad --target", ["--target", "cloud", "folder", "list"]],
    ["missing required option", ["local", "keys", "create", "--credits", "5"]],
    ["missing argument", ["local", "credits", "add"]],
    ["group without subcommand", ["local", "keys"]],
    ["unknown help topic", ["help", "nonsense"]],
    ["bad MEDIAGEN_TARGET", ["folder", "list"], { MEDIAGEN_TARGET: "cloud" }],
    ["bad base URL", ["--target", "hosted", "--base-url", "ftp://x", "folder", "list"]],
  ] as Array<[string, string[], Record<string, string>?]>)("%s → exit 2, nothing on stdout", async (_name, args, env) => {
    const r = await run([...args, "--json"], env ? { env } : {});
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.errorLine()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("help exit-codes", () => {
  it("documents every code, and docs/exit-codes.md says the same", async () => {
    const r = await run(["help", "exit-codes", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = r.json<Array<{ code: number; meaning: string }>>();
    expect(rows.map((x) => x.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 130]);
    const doc = fs.readFileSync(path.join(ROOT, "docs", "exit-codes.md"), "utf8");
    for (const row of rows) expect(doc).toContain(`| ${row.code} | ${row.meaning} |`);
    const human = await run(["help", "exit-codes"]);
    expect(human.stdout).toContain("130");
    expect(human.stdout).toContain("insufficient credits (402)");
  });

  it("help <command> shows that command's help", async () => {
    const r = await run(["help", "folder", "create"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("Usage: mediagen folder create");
  });
});

describe("colour", () => {
  const ESC = "\u001b[";
  it.each([
    ["off a TTY by default", {}, [], false],
    ["FORCE_COLOR turns it on", { FORCE_COLOR: "1" }, [], true],
    ["NO_COLOR beats FORCE_COLOR", { FORCE_COLOR: "1", NO_COLOR: "1" }, [], false],
    ["--no-color beats FORCE_COLOR", { FORCE_COLOR: "1" }, ["--no-color"], false],
  ] as Array<[string, Record<string, string>, string[], boolean]>)("%s", async (_n, env, flags, coloured) => {
    const r = await run(["help", "exit-codes", ...flags], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.includes(ESC)).toBe(coloured);
  });

  it("--json output is never coloured", async () => {
    const r = await run(["help", "exit-codes", "--json"], { env: { FORCE_COLOR: "1" } });
    expect(r.stdout.includes(ESC)).toBe(false);
    expect(() => r.json()).not.toThrow();
  });
});
