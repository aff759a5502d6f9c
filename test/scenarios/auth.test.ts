import { expect, it } from "vitest";
import { apiError, forBothTargets } from "./harness.js";

const UNKNOWN = "mg_live_" + "0".repeat(64);

forBothTargets("auth", (t) => {
  const cases: { name: string; key: () => string | undefined; error: RegExp }[] = [
    { name: "missing", key: () => undefined, error: /missing/i },
    { name: "malformed (not a key)", key: () => "not-a-key", error: /format/i },
    { name: "malformed (upper-case hex)", key: () => "mg_live_" + "A".repeat(64), error: /format/i },
    { name: "malformed (too short)", key: () => "mg_live_abc123", error: /format/i },
    { name: "unknown", key: () => UNKNOWN, error: /invalid/i },
  ];
  for (const c of cases) {
    it(`answers 401 invalid_api_key for a ${c.name} key`, async () => {
      const err = await apiError(t.engineFor(c.key()).folderList());
      expect(err.status).toBe(401);
      expect(err.code).toBe("invalid_api_key");
      expect(err.body).toMatchObject({ error: expect.stringMatching(c.error), details: [{ code: "invalid_api_key" }] });
      expect(err.headers["x-ratelimit-limit"]).toBeUndefined();
    });
  }

  it("answers 401 for a revoked key, and a regenerated key replaces the old one at once", async () => {
    const key = t.newKey();
    await t.engineFor(key).folderList();
    const fresh = t.instance.regenerateKey(key);
    expect((await apiError(t.engineFor(key).folderList())).status).toBe(401);
    await expect(t.engineFor(fresh).folderList()).resolves.toEqual({ folders: [] });
    t.instance.revokeKey(fresh);
    const err = await apiError(t.engineFor(fresh).folderCreate({ name: "x" }));
    expect([err.status, err.code]).toEqual([401, "invalid_api_key"]);
  });

  for (const plan of ["free", "start"]) {
    it(`answers 403 plan_required for a ${plan} space, whatever the operation`, async () => {
      const engine = t.engineFor(t.newKey({ plan, credits: 100 }));
      for (const call of [() => engine.folderList(), () => engine.folderCreate({}), () => engine.assetStatus({ assetId: "nope" })]) {
        const err = await apiError(call());
        expect(err.status).toBe(403);
        expect(err.code).toBe("plan_required");
        expect(err.body).toMatchObject({ error: expect.any(String), details: [{ code: "plan_required" }] });
        expect(err.headers["x-ratelimit-limit"]).toBe("100");
      }
    });
  }

  it("accepts PRO and ENTREPRISE spaces", async () => {
    for (const plan of ["PRO", "ENTREPRISE"]) {
      await expect(t.engineFor(t.newKey({ plan })).folderList()).resolves.toEqual({ folders: [] });
    }
  });

  it("checks the key before validating the request", async () => {
    const err = await apiError(t.engineFor(UNKNOWN).folderCreate({ name: 42 } as never));
    expect(err.status).toBe(401);
    const plan = await apiError(t.engineFor(t.newKey({ plan: "free" })).folderCreate({}));
    expect(plan.status).toBe(403);
  });
});
