/** An unusable home or database is a clear exit-1 error naming the path and the cause, never a hang. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureHome, HomeError } from "../../src/config/home.js";
import { openDatabase, LocalStoreError } from "../../src/local/db/open.js";
import { localParts } from "../../src/features/local.js";
import { describeError } from "../../src/cli/errors.js";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "mg-home-"));

describe("ensureHome", () => {
  it("creates a missing home level by level, mode 0700", () => {
    const home = path.join(tmp(), "a", "b", "home");
    ensureHome(home);
    expect(fs.statSync(home).isDirectory()).toBe(true);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
  });

  it("refuses a home under a file system that cannot hold directories, at once (node's recursive mkdir loops there)", () => {
    const started = Date.now();
    const err = (() => {
      try {
        ensureHome("/proc/nope/home");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(HomeError);
    expect((err as Error).message).toBe(
      "cannot use /proc/nope/home as the mediagen home (MEDIAGEN_HOME): its file system does not allow creating directories there (at /proc/nope)",
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("refuses a home whose path goes through a file", () => {
    const file = path.join(tmp(), "plain");
    fs.writeFileSync(file, "x");
    expect(() => ensureHome(path.join(file, "home"))).toThrow(/a part of the path is a file, not a directory \(at .*plain\)/);
  });

  it("maps to exit 1 with its own code", () => {
    const info = describeError(new HomeError("/x", "permission denied"));
    expect([info.exitCode, info.code]).toEqual([1, "home_unusable"]);
  });
});

describe("openDatabase", () => {
  it("creates the database file readable by its owner only", () => {
    const file = path.join(tmp(), "local", "instance.db");
    openDatabase(file, localParts.migrations).close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("names a damaged file, the cause and what to do", () => {
    const file = path.join(tmp(), "instance.db");
    fs.writeFileSync(file, "this is not a sqlite database, just text that is long enough");
    const err = (() => {
      try {
        openDatabase(file, localParts.migrations);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LocalStoreError);
    expect((err as Error).message).toContain(`the local instance database ${file} is damaged`);
    expect((err as Error).message).toContain(`mv ${file} ${file}.broken`);
    const info = describeError(err);
    expect([info.exitCode, info.code]).toEqual([1, "local_store_error"]);
  });
});
