/** The real process with an unusable home: exit 1 at once, the path and the reason, no stack. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "./helpers.js";

describe("an unusable MEDIAGEN_HOME", () => {
  it("under /proc: exit 1 naming the path and the reason (it used to spin at 100 % CPU)", async () => {
    const r = await run(["folder", "list"], { env: { MEDIAGEN_HOME: "/proc/nope" }, timeoutMs: 10_000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("cannot use /proc/nope as the mediagen home (MEDIAGEN_HOME): its file system does not allow creating directories there");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a damaged database: exit 1, the file, and how to get going again; --json carries the code", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    fs.mkdirSync(path.join(home, "local"));
    fs.writeFileSync(path.join(home, "local", "instance.db"), "not a database, only some text of sufficient length");
    const r = await run(["folder", "list", "--json"], { home });
    expect(r.exitCode).toBe(1);
    expect(r.errorLine()).toMatchObject({ code: "local_store_error" });
    expect(r.stderr).toContain(`${path.join(home, "local", "instance.db")} is damaged`);
    expect(r.stdout).toBe("");
  });
});
