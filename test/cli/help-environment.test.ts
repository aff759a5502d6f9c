/** `mediagen help environment` prints the table src/config/env.ts declares, for people and for scripts. */
import { describe, expect, it } from "vitest";
import { describeEnv } from "../../src/config/env.js";
import { run } from "./helpers.js";

describe("help environment", () => {
  it("--json lists every declared variable, in order, with what it does and who reads it", async () => {
    const r = await run(["help", "environment", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toEqual(describeEnv());
  });

  it("the human table names every variable; --quiet prints the names alone", async () => {
    const human = await run(["help", "environment"]);
    expect(human.exitCode, human.stderr).toBe(0);
    const lines = human.stdout.split("\n");
    for (const { name } of describeEnv()) expect(lines.some((l) => l.startsWith(`${name} `))).toBe(true);

    const quiet = await run(["help", "environment", "-q"]);
    expect(quiet.stdout.trim().split("\n")).toEqual(describeEnv().map((r) => r.name));
  });

  it("is offered as a topic when a topic is unknown", async () => {
    const r = await run(["help", "nonsense"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("topics: exit-codes, environment");
  });
});
