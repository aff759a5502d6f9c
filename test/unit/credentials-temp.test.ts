/**
 * The credentials file is written through a temp file and a rename: a write that fails (a full
 * disk) removes its temp file, and a temp file left by a process killed mid-write (its pid gone) is
 * removed by the next command that reads or writes the credentials.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveKey, saveKey, storedKey } from "../../src/config/credentials.js";

const KEY = "mg_live_" + "c".repeat(64);
const temps = (home: string) => fs.readdirSync(home).filter((n) => n.startsWith(".credentials.") && n.endsWith(".tmp"));

afterEach(() => vi.restoreAllMocks());

describe("credentials temp files", () => {
  it("a write that fails with ENOSPC leaves no temp file and the old file intact", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-cred-"));
    saveKey(home, "default", KEY, "hosted");
    const spy = vi.spyOn(fs, "writeFileSync").mockImplementation(() => {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    });
    expect(() => saveKey(home, "other", KEY, "hosted")).toThrow(/ENOSPC/);
    spy.mockRestore();
    expect(temps(home)).toEqual([]);
    expect(storedKey(home, "default")?.api_key).toBe(KEY);
  });

  it("a temp file of a killed process is removed by the next login or read; a live one's is kept", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-cred-"));
    fs.writeFileSync(path.join(home, ".credentials.999999999.deadbeef.tmp"), "");
    fs.writeFileSync(path.join(home, `.credentials.${process.pid}.cafe0001.tmp`), "");
    resolveKey({}, home, "default", "hosted");
    expect(temps(home)).toEqual([`.credentials.${process.pid}.cafe0001.tmp`]);
    fs.writeFileSync(path.join(home, ".credentials.999999998.deadbeef.tmp"), "");
    saveKey(home, "default", KEY, "hosted");
    expect(temps(home)).toEqual([`.credentials.${process.pid}.cafe0001.tmp`]);
  });
});
