import { describe, expect, it } from "vitest";
import { Command, Option } from "commander";
import { buildProgram } from "../../src/cli/program.js";
import { completeWords, typedGlobals } from "../../src/cli/complete.js";

const noop = () => {
  throw new Error("no context in completion tests");
};
const program = await buildProgram("0.0.0", noop, { writeOut: () => {}, writeErr: () => {} });

// A command group like the ones other modules add, to show flags are completed by name.
const extra = new Command("demo").description("demo group");
extra
  .command("start")
  .option("--model <name>", "model")
  .option("--voice-id <id>", "voice")
  .option("--look-id <id>", "look")
  .option("--folder-id <id>", "folder")
  .addOption(new Option("--aspect <ratio>", "ratio").choices(["16:9", "9:16"]))
  .option("--prompt <text>", "prompt");
program.addCommand(extra);

const values = (words: string[]) => {
  const r = completeWords(program, words);
  return "lines" in r ? r.lines.map((l) => l.split("\t")[0]) : r;
};

describe("completeWords", () => {
  it("lists top-level commands, hiding __complete", () => {
    const v = values([""]) as string[];
    expect(v).toEqual(expect.arrayContaining(["folder", "local", "auth", "config", "completion", "help"]));
    expect(v).not.toContain("__complete");
  });

  it("filters by the typed prefix", () => {
    expect(values(["fo"])).toEqual(["folder"]);
    expect(values(["folder", "c"])).toEqual(["create"]);
    expect(values(["local", "keys", ""])).toEqual(["create", "list", "revoke", "regenerate"]);
  });

  it("lists the command's flags and the global ones", () => {
    const v = values(["folder", "create", "--"]) as string[];
    expect(v).toEqual(expect.arrayContaining(["--name", "--type", "--parent", "--body", "--json", "--target", "--help"]));
  });

  it("completes option choices", () => {
    expect(values(["folder", "create", "--type", ""])).toEqual(["assets", "videos"]);
    expect(values(["--target", "h"])).toEqual(["hosted"]);
    expect(values(["demo", "start", "--aspect", ""])).toEqual(["16:9", "9:16"]);
  });

  it("completes argument choices", () => {
    expect(values(["completion", ""])).toEqual(["bash", "zsh", "fish"]);
  });

  it("skips option values while walking the words", () => {
    expect(values(["--profile", "prod", "folder", "l"])).toEqual(["list"]);
    expect(values(["--target=local", "folder", "l"])).toEqual(["list"]);
  });

  it.each([
    [["folder", "create", "--parent", ""], "folders"],
    [["demo", "start", "--model", ""], "models"],
    [["demo", "start", "--voice-id", ""], "voices"],
    [["demo", "start", "--look-id", ""], "looks"],
    [["demo", "start", "--folder-id", ""], "folders"],
  ])("%j asks the engine for %s", (words, kind) => {
    expect(values(words)).toEqual({ dynamic: kind });
  });

  it("offers nothing for free text, so the shell falls back to files", () => {
    expect(values(["demo", "start", "--prompt", ""])).toEqual([]);
    expect(values(["folder", "create", "--body", ""])).toEqual([]);
  });
});

describe("typedGlobals: the target flags already on the line", () => {
  it.each([
    ["none", ["asset", "start", "--model", ""], {}],
    ["--target and --base-url", ["--target", "hosted", "--base-url", "http://h:1", "asset", "start", "--model", ""], { target: "hosted", baseUrl: "http://h:1" }],
    ["after the command, = form", ["asset", "start", "--profile=ci", "--target=local", "--model", ""], { profile: "ci", target: "local" }],
    ["the word being completed is not taken", ["asset", "--target", "hosted", "--profile"], { target: "hosted" }],
    ["a bad target is ignored", ["--target", "cloud", "asset", ""], {}],
    ["words after -- are not flags", ["asset", "--", "--target", "hosted", ""], {}],
  ] as Array<[string, string[], Record<string, string>]>)("%s", (_n, words, expected) => {
    expect(typedGlobals(words)).toEqual(expected);
  });
});
