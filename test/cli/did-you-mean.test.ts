/**
 * "Did you mean …?" for a misspelt subcommand of a group with a default command, and for a model
 * (issue 38): `export stat <id>` was read as `export start stat <id>` ("too many arguments for
 * 'start'"); `--model imgA-5` named no model near it.
 */
import { describe, expect, it } from "vitest";
import { meantName } from "../../src/cli/did-you-mean.js";
import { newHome, run } from "./helpers.js";

describe("did you mean", () => {
  it("export stat <id>: an unknown command, status suggested (a start of its name), exit 2", async () => {
    const r = await run(["export", "stat", "exp_0123"], { home: newHome() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("unknown command 'stat'");
    expect(r.stderr).toContain("(Did you mean status?)");
    expect(r.stderr).not.toContain("too many arguments");
  });

  it("export <video_id> is still export start <video_id>", async () => {
    const r = await run(["export", "0123456789abcdef01234567", "--dry-run"], { home: newHome() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("Dry run");
  });

  it("--model imgA-5: the nearest model is suggested", async () => {
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-5", "--prompt", "a cat"], { home: newHome() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("Did you mean imgA-4?");
  });

  it("names far from every candidate get no suggestion; ids are not misspellings", () => {
    expect(meantName("zzzzzz", ["imgA-4", "vidA-3"])).toBeUndefined();
    expect(meantName("0123456789abcdef01234567", ["start", "status"])).toBeUndefined();
    expect(meantName("statsu", ["start", "status"])).toBe("status");
  });
});
