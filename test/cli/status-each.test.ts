/**
 * `asset status GOOD BAD` (issue 11): every result that was read is printed, each bad id is reported
 * on stderr, and the exit code is the first failure's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

let home: string;
let good: string;
const BAD = "000000000000000000000000";

beforeAll(async () => {
  home = newHome();
  const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a fox", "-q"], { home });
  expect(r.exitCode, r.stderr).toBe(0);
  good = r.stdout.trim();
});

describe("asset status with a good and a bad id", () => {
  it("--json: the good record on stdout (an array: several ids were asked), the bad id on stderr, exit 4", async () => {
    const r = await run(["asset", "status", good, BAD, "--json"], { home });
    expect(r.exitCode).toBe(4);
    const records = r.json<{ asset_id: string }[]>();
    expect(records.map((a) => a.asset_id)).toEqual([good]);
    expect(r.stderr).toContain(BAD);
    expect(r.errorLine()).toMatchObject({ status: 404, code: "asset_not_found" });
    // One error line per bad id, not one more from the frame.
    expect(r.stderr.split("\n").filter((l) => l.startsWith('{"error"'))).toHaveLength(1);
  });

  it("the bad id first: the good one is still read and printed", async () => {
    const r = await run(["asset", "status", BAD, good], { home });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toContain(good);
    expect(r.stderr.match(/Error:/g)).toHaveLength(1);
    expect(r.stderr).toContain(BAD);
  });

  it("two bad ids: both reported; the exit code is the first failure's", async () => {
    const r = await run(["asset", "status", "nope", BAD, "-q"], { home });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("nope");
    expect(r.stderr).toContain(BAD);
  });

  it("one good id --json is still the object itself", async () => {
    const r = await run(["asset", "status", good, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<{ asset_id: string }>().asset_id).toBe(good);
  });
});
