import { describe, expect, it } from "vitest";
import { Command, Help } from "commander";
import { COMMANDS, firstOperand } from "../../src/cli/registry.js";
import { buildProgram } from "../../src/cli/program.js";
import { KEYS_HELP } from "../../src/cli/commands/config.js";
import { PROFILE_KEYS } from "../../src/config/profiles.js";

const output = { writeOut: () => {}, writeErr: () => {} };
const noContext = () => {
  throw new Error("no context here");
};
const noTree = {
  loadAll: () => Promise.reject(new Error("no command tree here")),
};

describe("lazy command registry", () => {
  it("every module fills the command the registry made: same name and summary, the entry's help term", async () => {
    const help = new Help();
    for (const entry of COMMANDS) {
      const program = new Command("mediagen");
      const cmd = program.command(entry.name).description(entry.summary);
      if (entry.aliases) cmd.aliases([...entry.aliases]);
      const { command } = await entry.load();
      command.register(cmd, noContext, noTree);
      expect(
        program.commands.map((c) => c.name()),
        `module of ${entry.name}`,
      ).toEqual([entry.name]);
      expect({ summary: cmd.description(), term: help.subcommandTerm(cmd) }, `registry entry "${entry.name}" is out of date with its module`).toEqual({
        summary: entry.summary,
        term: entry.term ?? entry.name,
      });
    }
  });

  it("root help is the same whether groups are stubs or loaded", async () => {
    const lazy = await buildProgram("1.0.0", noContext, output, { args: ["--help"] });
    const full = await buildProgram("1.0.0", noContext, output);
    expect(lazy.helpInformation()).toBe(full.helpInformation());
  });

  it("loads only the group argv names", async () => {
    const p = await buildProgram("1.0.0", noContext, output, { args: ["--profile", "x", "folder", "list"] });
    const folder = p.commands.find((c) => c.name() === "folder")!;
    const local = p.commands.find((c) => c.name() === "local")!;
    expect(folder.commands.map((c) => c.name())).toEqual(["create", "list"]);
    expect(local.commands).toEqual([]);
    expect(p.commands.map((c) => c.name())).toEqual(COMMANDS.map((e) => e.name));
  });

  it.each([
    [["folder", "list"], "folder"],
    [["--json", "local", "keys"], "local"],
    [["--target", "hosted", "auth", "status"], "auth"],
    [["--base-url", "http://x", "--profile", "p", "asset"], "asset"],
    [["--target=local", "config"], "config"],
    [["--help"], undefined],
    [[], undefined],
    [["--", "folder"], "folder"],
  ])("firstOperand(%j) = %s", (args, expected) => {
    expect(firstOperand(args)).toBe(expected);
  });

  it("config's help names exactly the profile keys", () => {
    expect(KEYS_HELP).toBe(`settings: ${PROFILE_KEYS.join(", ")}`);
  });
});
