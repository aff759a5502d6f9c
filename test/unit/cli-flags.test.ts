/** Flags declared once (src/cli/flags.ts): options, checked values and the request from one table. */
import fs from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { BODY_FLAG, checkValue, defineFlags, longName, SIMULATE_FLAG, type FlagSpec } from "../../src/cli/flags.js";
import { CliError } from "../../src/cli/types.js";
import { START_FLAGS, PRICE_FLAGS } from "../../src/features/asset/client/cli.js";
import { CREATE_FLAGS as AVATAR_CREATE, LIST_FLAGS as AVATAR_LIST } from "../../src/features/avatar/client/cli.js";
import { CREATE_FLAGS as FOLDER_CREATE } from "../../src/features/folder/client/cli.js";
import { LIST_FLAGS as VOICE_LIST } from "../../src/features/voice/client/cli.js";

const FLAGS = defineFlags({
  name: { flag: "--name <name>", type: "string", help: "a name", field: "name" },
  upper: { flag: "--upper <text>", type: "string", to: (v: string) => v.toUpperCase(), help: "shouted", field: "shout" },
  count: { flag: "--count <n>", type: "integer", help: "how many", field: "generation_count" },
  length: { flag: "--length <seconds>", type: "number", help: "seconds", field: "duration" },
  loud: { flag: "--loud", type: "boolean", help: "loud", negate: "quiet", field: "loud" },
  kind: { flag: "--kind <kind>", type: "choice", choices: ["a", "b"], help: "a or b", field: "kind" },
  tag: { flag: "--tag <tag>", type: "list", help: "repeatable", field: "tags" },
  num: { flag: "--num <n>", type: "list", item: (v: string) => v.length, help: "lengths", field: "lengths" },
  extra: { flag: "--extra <json>", type: "json", help: "JSON", field: "extra" },
  setting: {
    flag: "--setting <k=v>",
    type: "list",
    help: "merged",
    field: "settings",
    fill: (values: string[], body: Record<string, unknown>) => ({ ...(body.settings as object), ...Object.fromEntries(values.map((v) => v.split("="))) }),
  },
  body: BODY_FLAG,
});

function usageError(fn: () => unknown): CliError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    return e as CliError;
  }
  throw new Error("expected a usage error");
}

function parse(argv: string[]) {
  const cmd = FLAGS.addTo(new Command("x").exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined }));
  cmd.parse(argv, { from: "user" });
  return cmd.opts();
}

describe("defineFlags: commander options", () => {
  it("adds every flag in declaration order, with its help, choices and --no- negation", () => {
    const cmd = FLAGS.addTo(new Command("x"));
    expect(cmd.options.map((o) => o.flags)).toEqual([
      "--name <name>",
      "--upper <text>",
      "--count <n>",
      "--length <seconds>",
      "--loud",
      "--no-loud",
      "--kind <kind>",
      "--tag <tag>",
      "--num <n>",
      "--extra <json>",
      "--setting <k=v>",
      "--body <file>",
    ]);
    expect(cmd.helpInformation()).toMatch(/--kind <kind>\s+a or b \(choices: "a", "b"\)/);
    expect(cmd.helpInformation()).toMatch(/--no-loud\s+quiet/);
  });

  it("collects a repeatable flag's values in order", () => {
    expect(parse(["--tag", "x", "--tag", "y"]).tag).toEqual(["x", "y"]);
  });

  it("refuses a declaration whose key is not commander's name for the flag", () => {
    expect(() => defineFlags({ aspect: { flag: "--aspect-ratio <r>", type: "string", help: "" } })).toThrow(/commander calls it "aspectRatio"/);
  });

  it("hides a flag (and its --no- form) from --help, gives defaults, and makes a flag required", async () => {
    const set = defineFlags({
      oldName: { flag: "--old-name", type: "boolean", negate: "not old", hidden: true, help: "older spelling", field: "x" },
      port: { flag: "--port <n>", type: "integer", default: "4010", help: "port" },
      plan: { flag: "--plan <plan>", type: "string", required: true, help: "the plan" },
      ui: { flag: "--no-ui", type: "boolean", help: "no dashboard" },
    });
    const cmd = set.addTo(new Command("z").exitOverride().configureOutput({ writeErr: () => {} }));
    const help = cmd.helpInformation();
    expect(help).not.toMatch(/old-name/);
    expect(help).toMatch(/--port <n>\s+port \(default: "4010"\)/);
    let seen: Record<string, unknown> = {};
    cmd.action((o: Record<string, unknown>) => {
      seen = set.values(o);
    });
    await cmd.parseAsync(["--plan", "free", "--no-old-name"], { from: "user" });
    expect(seen).toEqual({ oldName: false, port: 4010, plan: "free", ui: true });
    await cmd.parseAsync(["--plan", "free", "--no-ui", "--port", "0"], { from: "user" });
    expect(seen).toEqual({ port: 0, plan: "free", ui: false });
    await expect(cmd.parseAsync([], { from: "user" })).rejects.toMatchObject({ code: "commander.missingMandatoryOptionValue" });
  });

  it("extends a shared group, keeping the order", () => {
    const more = defineFlags({ a: { flag: "--a", type: "boolean", help: "" } }).extend({ b: { flag: "--b <x>", type: "string", help: "" } });
    expect(more.addTo(new Command("y")).options.map((o) => o.long)).toEqual(["--a", "--b"]);
  });
});

describe("defineFlags: values", () => {
  it("converts each type", () => {
    const opts = parse([
      "--name",
      "n",
      "--upper",
      "hey",
      "--count",
      "3",
      "--length",
      "4.2",
      "--no-loud",
      "--kind",
      "b",
      "--tag",
      "t1",
      "--num",
      "abc",
      "--num",
      "de",
      "--extra",
      '{"a":[1]}',
      "--setting",
      "k=v",
    ]);
    expect(FLAGS.values(opts)).toEqual({
      name: "n",
      upper: "HEY",
      count: 3,
      length: 4.2,
      loud: false,
      kind: "b",
      tag: ["t1"],
      num: [3, 2],
      extra: { a: [1] },
      setting: ["k=v"],
    });
  });

  it("leaves out flags not given, and a repeatable flag with no values", () => {
    expect(FLAGS.values({ tag: [] })).toEqual({});
  });

  it.each([
    ["--count", { count: "0x2" }, /--count: expected a whole number, got "0x2"/],
    ["--count", { count: "4.2" }, /whole number/],
    ["--count", { count: "1e1" }, /whole number/],
    ["--count", { count: "" }, /whole number/],
    ["--count", { count: "two" }, /whole number/],
    ["--length", { length: "0x10" }, /--length: expected a number, got "0x10"/],
    ["--length", { length: "1e3" }, /a number/],
    ["--length", { length: "Infinity" }, /a number/],
    ["--kind", { kind: "c" }, /--kind: expected one of a, b, got "c"/],
    ["--extra", { extra: "{bad" }, /--extra: not valid JSON/],
    ["--loud", { loud: "maybe" }, /--loud: expected true or false/],
  ])("refuses a bad %s value: usage error (exit 2) naming the flag", (flag, raw, message) => {
    const e = usageError(() => FLAGS.values(raw));
    expect(e.exitCode).toBe(2);
    expect(e.field).toBe(flag);
    expect(e.message).toMatch(message);
  });

  it("accepts signs and surrounding blanks in numbers", () => {
    expect(FLAGS.values({ count: " -2 ", length: "+.5" })).toEqual({ count: -2, length: 0.5 });
  });

  it("reports the first bad flag in declaration order", () => {
    expect(usageError(() => FLAGS.values({ length: "x", count: "y" })).field).toBe("--count");
  });
});

describe("defineFlags: request", () => {
  it("fills each flag's field over the body; flags without a field stay out", () => {
    const body = { name: "old", other: 1, settings: { a: "1", b: "2" } };
    const values = FLAGS.values({ name: "new", count: "2", setting: ["b=3"], body: "file.json" });
    expect(FLAGS.request(values, body)).toEqual({ name: "new", other: 1, generation_count: 2, settings: { a: "1", b: "3" } });
    expect(body.name).toBe("old");
  });

  it("names the flag of a field", () => {
    expect(FLAGS.flagFor("generation_count")).toBe("--count");
    expect(FLAGS.flagFor("nothing")).toBeUndefined();
  });

  it("longName reads the long flag of a spelling", () => {
    expect(longName("-q, --quiet")).toBe("--quiet");
    expect(longName("--aspect-ratio <ratio>")).toBe("--aspect-ratio");
  });

  it("checkValue works on one spec", () => {
    const spec: FlagSpec = { flag: "--n <n>", type: "integer", help: "" };
    expect(checkValue(spec, "7")).toBe(7);
    expect(() => checkValue(spec, "7.5")).toThrow(CliError);
  });

  it("--simulate is checked as it is parsed", () => {
    const set = defineFlags({ simulate: SIMULATE_FLAG });
    expect(set.values({ simulate: "fail:X_Y" })).toEqual({ simulate: "fail:X_Y" });
    expect(usageError(() => set.values({ simulate: "explode" })).field).toBe("--simulate");
  });
});

describe("the converted commands", () => {
  it("asset start: --count and --duration take whole numbers only", () => {
    expect(usageError(() => START_FLAGS.values({ count: "0x2" })).field).toBe("--count");
    expect(usageError(() => START_FLAGS.values({ duration: "4.2" })).field).toBe("--duration");
    expect(START_FLAGS.request(START_FLAGS.values({ count: "2", duration: "6" }))).toEqual({ generation_count: 2, duration: 6 });
  });

  it("asset price: --duration and --image-count take whole numbers (the spec's pricing duration is an integer)", () => {
    expect(PRICE_FLAGS.request(PRICE_FLAGS.values({ duration: "12" }))).toEqual({ duration: 12 });
    expect(usageError(() => PRICE_FLAGS.values({ duration: "4.2" })).field).toBe("--duration");
    expect(usageError(() => PRICE_FLAGS.values({ duration: "4,2" })).field).toBe("--duration");
    expect(usageError(() => PRICE_FLAGS.values({ imageCount: "1.5" })).field).toBe("--image-count");
  });

  it("asset start: slots and references become reference items; --body and --simulate are not fields", () => {
    const v = START_FLAGS.values({ startImage: "asset:a1", ref: ["avatar:v1"], body: "-", simulate: "fail" });
    expect(START_FLAGS.request(v)).toEqual({ start_image: { asset_id: "a1" }, references: [{ avatar_id: "v1" }] });
    expect(usageError(() => START_FLAGS.values({ endImage: "  " })).field).toBe("--end-image");
  });

  it("avatar create: images and elements fill images and elementImages", () => {
    expect(AVATAR_CREATE.request(AVATAR_CREATE.values({ image: ["https://x/a.png"], element: ["https://x/logo.png"] }))).toEqual({
      images: ["https://x/a.png"],
      elementImages: ["https://x/logo.png"],
    });
  });

  it("avatar list: --selfie/--no-selfie set selfie true/false; --only-public sets onlyPublic", () => {
    const cmd = AVATAR_LIST.addTo(new Command("list").exitOverride());
    cmd.parse(["--no-selfie", "--only-public", "--age-range", "adult,senior"], { from: "user" });
    expect(AVATAR_LIST.request(AVATAR_LIST.values(cmd.opts()))).toEqual({ selfie: false, onlyPublic: true, age_range: "adult,senior" });
  });

  it("folder create: --parent fills parent_folder_id", () => {
    expect(FOLDER_CREATE.request(FOLDER_CREATE.values({ name: "n", parent: "p" }), { type: "videos" })).toEqual({
      type: "videos",
      name: "n",
      parent_folder_id: "p",
    });
  });

  it("voice list: --resources steers the command and is not a query field", () => {
    expect(VOICE_LIST.request(VOICE_LIST.values({ language: "en", resources: true, onlyPublic: true }))).toEqual({ language: "en", onlyPublic: true });
  });
});

/** Modules a source file loads when it is imported (`import type` is erased; dynamic imports wait). */
function staticImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = fs.readFileSync(file, "utf8");
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?"([^"]+)";/gms)) {
    const spec = m[1]!;
    if (spec.startsWith(".")) staticImports(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")), seen);
    else seen.add(spec);
  }
  return seen;
}

describe("startup path", () => {
  it.each(["asset", "avatar", "voice", "folder"])("the %s commands load neither zod nor the contract", (feature) => {
    const loaded = [...staticImports(path.resolve(`src/features/${feature}/client/cli.ts`))];
    expect(loaded).toContain(path.resolve("src/cli/flags.ts"));
    expect(loaded).toContain("commander");
    expect(loaded.filter((m) => m === "zod" || m.endsWith("contract.ts") || m.includes("/hosted/"))).toEqual([]);
  });
});
