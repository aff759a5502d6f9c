import { beforeAll, describe, expect, it } from "vitest";
import { localKey, newHome, run } from "./helpers.js";

interface SpaceView {
  id: string;
  name: string;
  plan: string;
  credits: number;
  is_default: boolean;
  created_at: string;
  keys: number;
}

const KEY_RE = /^mg_live_[0-9a-f]{64}$/;

describe("mediagen local", () => {
  let home: string;
  beforeAll(() => {
    home = newHome();
  });

  it("keys create --json prints exactly {api_key, space_id}", async () => {
    const r = await run(["local", "keys", "create", "--plan", "pro", "--credits", "250", "--name", "team", "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.json<Record<string, string>>();
    expect(Object.keys(out)).toEqual(["api_key", "space_id"]);
    expect(out.api_key).toMatch(KEY_RE);
  });

  it("keys create (human) prints the key on stdout and the shown-once warning on stderr", async () => {
    const r = await run(["local", "keys", "create", "--plan", "ENTREPRISE", "--credits", "1"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(KEY_RE);
    expect(r.stderr).toMatch(/shown once/);
  });

  it.each([
    ["unknown plan", ["--plan", "gold", "--credits", "5"]],
    ["negative credits", ["--plan", "PRO", "--credits", "-5"]],
    ["credits not a number", ["--plan", "PRO", "--credits", "lots"]],
  ])("keys create with %s → exit 2", async (_n, args) => {
    const r = await run(["local", "keys", "create", ...args, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
  });

  it("spaces list --json: credits are numbers, the new space is there with its plan", async () => {
    const { space_id } = await localKey("start", 12.5, home);
    const r = await run(["local", "spaces", "list", "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const spaces = r.json<SpaceView[]>();
    for (const s of spaces) expect(typeof s.credits).toBe("number");
    expect(spaces.find((s) => s.id === space_id)).toMatchObject({ plan: "start", credits: 12.5, is_default: false, keys: 1 });
  });

  it("credits add grants, the ledger shows it, and ledger verify passes", async () => {
    const { space_id } = await localKey("PRO", 10, home);
    const add = await run(["local", "credits", "add", space_id, "5.5", "--json"], { home });
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.json<SpaceView>()).toMatchObject({ id: space_id, credits: 15.5 });

    const ledger = await run(["local", "ledger", space_id, "--json"], { home });
    const rows = ledger.json<Array<{ kind: string; amount: number; balance_after: number }>>();
    expect(rows.map((e) => [e.kind, e.amount, e.balance_after])).toEqual([
      ["grant", 10, 10],
      ["grant", 5.5, 15.5],
    ]);

    const verify = await run(["local", "ledger", "verify", "--json"], { home });
    expect(verify.exitCode, verify.stderr).toBe(0);
    const checks = verify.json<Array<{ space_id: string; ok: boolean }>>();
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((c) => c.ok)).toBe(true);
  });

  it.each([
    ["credits add to an unknown space", ["local", "credits", "add", "sp_nope", "5"], 4],
    ["ledger of an unknown space", ["local", "ledger", "sp_nope"], 4],
    ["revoke a malformed key", ["local", "keys", "revoke", "mg_live_123"], 2],
    ["revoke an unknown key", ["local", "keys", "revoke", "mg_live_" + "0".repeat(64)], 4],
  ])("%s → exit %i", async (_n, args, code) => {
    const r = await run([...args, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(code);
    expect(r.stdout).toBe("");
    expect(r.errorLine()).toBeDefined();
  });

  it("a revoked key gets 401 → exit 3; its regenerated successor works", async () => {
    const { api_key } = await localKey("PRO", 10, home);
    const regen = await run(["local", "keys", "regenerate", api_key, "--json"], { home });
    expect(regen.exitCode, regen.stderr).toBe(0);
    const fresh = regen.json<{ api_key: string }>().api_key;
    expect(fresh).toMatch(KEY_RE);
    expect(fresh).not.toBe(api_key);

    const old = await run(["folder", "list", "--json"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(old.exitCode, old.stderr).toBe(3);
    expect(old.errorLine()).toMatchObject({ status: 401, code: "invalid_api_key" });

    const ok = await run(["folder", "list", "--json"], { home, env: { MEDIAGEN_API_KEY: fresh } });
    expect(ok.exitCode, ok.stderr).toBe(0);

    const revoke = await run(["local", "keys", "revoke", fresh], { home });
    expect(revoke.exitCode, revoke.stderr).toBe(0);
    const after = await run(["folder", "list"], { home, env: { MEDIAGEN_API_KEY: fresh } });
    expect(after.exitCode, after.stderr).toBe(3);
  });

  it("a free-plan key has no API access: 403 plan_required → exit 3", async () => {
    const { api_key } = await localKey("free", 100, home);
    const r = await run(["folder", "create", "--name", "x", "--json"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.errorLine()).toMatchObject({ status: 403, code: "plan_required" });
  });

  it("webhooks: listing and the signing secret", async () => {
    const list = await run(["local", "webhooks", "--json"], { home });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(Array.isArray(list.json())).toBe(true);

    const set = await run(["local", "webhooks", "secret", "set", "--json"], { home });
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.json<{ webhook_secret: string }>().webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const chosen = await run(["local", "webhooks", "secret", "set", "my-secret", "-q"], { home });
    expect(chosen.stdout.trim()).toBe("my-secret");
    const clear = await run(["local", "webhooks", "secret", "clear", "--json"], { home });
    expect(clear.json()).toEqual({ webhook_secret: null });
  });

  it("reset refuses without --yes when it cannot prompt, and empties the instance with it", async () => {
    const own = newHome();
    await localKey("PRO", 1, own);
    const refused = await run(["local", "reset", "--json"], { home: own });
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.errorLine()?.code).toBe("confirmation_required");
    expect((await run(["local", "spaces", "list", "--json"], { home: own })).json<SpaceView[]>().length).toBe(1);

    const done = await run(["local", "reset", "--yes", "--json"], { home: own });
    expect(done.exitCode, done.stderr).toBe(0);
    expect((await run(["local", "spaces", "list", "--json"], { home: own })).json<SpaceView[]>()).toEqual([]);
  });
});
