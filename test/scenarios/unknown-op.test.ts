import { expect, it } from "vitest";
import { operations, type OpName } from "../../src/features/operations.js";
import { loadLocalParts } from "../../src/features/local.js";
import { apiError, forBothTargets } from "./harness.js";

// Every feature loaded, so entries can be inspected and replaced (they otherwise load on first use).
const localParts = await loadLocalParts();
const { handlers } = localParts;

/** Operations the local instance does not implement yet (the list shrinks as capabilities land). */
const missing = (Object.keys(operations) as OpName[]).filter((op) => !(op in handlers));

forBothTargets("operations without a local handler", (t) => {
  it.runIf(missing.length > 0)("answer 501 in the error envelope and count against the rate limit", async () => {
    const engine = t.engine();
    for (const op of missing) {
      const input = Object.fromEntries([...operations[op].path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], "x"]));
      const err = await apiError(engine.call(op, input as never));
      expect(err.status, op).toBe(501);
      expect(err.body, op).toMatchObject({ error: expect.any(String), details: [{ code: "not_implemented" }] });
    }
    expect(engine.lastRateLimit()!.remaining).toBe(100 - missing.length);
  });

  it("rejects a call with an unknown key before anything else, whatever the operation", async () => {
    const engine = t.engineFor("mg_live_" + "f".repeat(64));
    for (const op of Object.keys(operations) as OpName[]) {
      const input = Object.fromEntries([...operations[op].path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], "x"]));
      const err = await apiError(engine.call(op, input as never));
      expect([op, err.status, err.code]).toEqual([op, 401, "invalid_api_key"]);
    }
  });

  it("refuses path parameters that would address another path (empty, . and ..) with 400, before the service", async () => {
    const engine = t.engine();
    await engine.folderList();
    const before = engine.lastRateLimit()!.remaining;
    const withParams = (Object.keys(operations) as OpName[]).filter((op) => operations[op].path.includes("{"));
    expect(withParams.length).toBeGreaterThan(0);
    for (const op of withParams) {
      const names = [...operations[op].path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      for (const [value, code] of [
        ["", "missing_field"],
        [".", "invalid_value"],
        ["..", "invalid_value"],
      ] as const) {
        const input = Object.fromEntries(names.map((n, i) => [n, i === names.length - 1 ? value : "x"]));
        const err = await apiError(engine.call(op, input as never));
        expect([op, value, err.status, err.code, err.field]).toEqual([op, value, 400, code, names.at(-1)]);
      }
    }
    // Nothing reached the service: the window is untouched.
    await engine.folderList();
    expect(engine.lastRateLimit()!.remaining).toBe(before - 1);
  });
});
