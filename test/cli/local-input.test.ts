/**
 * Input the local target reads outside the request: MEDIAGEN_LOCAL_RATE_LIMIT and
 * MEDIAGEN_LOCAL_RATE_WINDOW_MS (one parser and one behaviour, in process as under `serve`), and odd
 * numbers on flags (`--count 0x2`: integers are decimal).
 */
import { describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

describe("MEDIAGEN_LOCAL_RATE_LIMIT applies to the in-process instance", () => {
  it("sets the limit the CLI's requests are counted against", async () => {
    const home = newHome();
    const r = await run(["folder", "list", "--debug"], { home, env: { MEDIAGEN_LOCAL_RATE_LIMIT: "7", MEDIAGEN_LOCAL_RATE_WINDOW_MS: "3600000" } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/rate-limit 6\/7 /);
  });

  it.each([
    ["MEDIAGEN_LOCAL_RATE_LIMIT", "abc"],
    ["MEDIAGEN_LOCAL_RATE_LIMIT", "0"],
    ["MEDIAGEN_LOCAL_RATE_WINDOW_MS", "1.5"],
  ])("refuses %s=%s as serve does (exit 2, naming the variable)", async (name, value) => {
    const home = newHome();
    const r = await run(["folder", "list", "--json"], { home, env: { [name]: value } });
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()).toMatchObject({ code: "invalid_value", field: name, message: expect.stringContaining(`${name} must be a positive integer, got "${value}"`) });
  });
});

describe("integers on flags are decimal", () => {
  it("--count 0x2 is refused before anything is debited", async () => {
    const home = newHome();
    const before = await run(["local", "spaces", "list", "--json"], { home });
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "x", "--count", "0x2", "--json"], { home });
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()).toMatchObject({ field: "--count", message: expect.stringContaining('expected a whole number, got "0x2"') });
    const after = await run(["local", "spaces", "list", "--json"], { home });
    expect(after.json()).toEqual(before.json());
  });
});

describe("--body is read up to the service's 1 MiB limit", () => {
  it("--body /dev/zero is refused promptly (exit 2) instead of growing without end", async () => {
    const t0 = Date.now();
    const r = await run(["asset", "start", "--body", "/dev/zero", "--json"], { home: newHome() });
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()).toMatchObject({ code: "payload_too_large", field: "--body" });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
