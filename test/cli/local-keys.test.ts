/**
 * Keys stay off the command line: `local keys list` shows ids (never a key), and revoke/regenerate
 * take that id or `-` (the key on stdin) as well as the key itself.
 */
import { describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

interface KeyView {
  id: string;
  space_id: string;
  key: string;
  revoked_at: string | null;
  replaced_by: string | null;
}

async function created(home: string): Promise<{ api_key: string; space_id: string }> {
  const r = await run(["local", "keys", "create", "--plan", "PRO", "--credits", "5", "--json"], { home });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.json();
}

async function keys(home: string, space?: string): Promise<KeyView[]> {
  const r = await run(["local", "keys", "list", ...(space ? ["--space", space] : []), "--json"], { home });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.json();
}

/** Does `key` still answer on the local target? */
async function works(home: string, key: string): Promise<boolean> {
  return (await run(["folder", "list", "--json"], { home, env: { MEDIAGEN_API_KEY: key } })).exitCode === 0;
}

describe("local keys list / revoke / regenerate without the key on argv", () => {
  it("list shows ids and the last four characters, never a key", async () => {
    const home = newHome();
    const { api_key, space_id } = await created(home);
    const listed = await keys(home, space_id);
    expect(listed).toEqual([
      {
        id: expect.stringMatching(/^key_[0-9a-f]{24}$/),
        space_id,
        key: `mg_live_…${api_key.slice(-4)}`,
        created_at: expect.any(String),
        revoked_at: null,
        replaced_by: null,
      },
    ]);
    const human = await run(["local", "keys", "list"], { home });
    expect(human.stdout).toContain(listed[0]!.id);
    expect(human.stdout + human.stderr).not.toContain(api_key);
  });

  it("revoke by id, and by the key on stdin", async () => {
    const home = newHome();
    const a = await created(home);
    const b = await created(home);
    const [idA] = (await keys(home, a.space_id)).map((k) => k.id);
    const byId = await run(["local", "keys", "revoke", idA!, "--json"], { home });
    expect(byId.exitCode, byId.stderr).toBe(0);
    expect(await works(home, a.api_key)).toBe(false);

    const byStdin = await run(["local", "keys", "revoke", "-", "--json"], { home, input: `${b.api_key}\n` });
    expect(byStdin.exitCode, byStdin.stderr).toBe(0);
    expect(byStdin.json()).toEqual({ revoked: true });
    expect(await works(home, b.api_key)).toBe(false);
    expect(
      (await keys(home))
        .filter((k) => k.revoked_at !== null)
        .map((k) => k.space_id)
        .sort(),
    ).toEqual([a.space_id, b.space_id].sort());
  });

  it("regenerate by id and by stdin: the old key stops, the new one works", async () => {
    const home = newHome();
    const a = await created(home);
    const [idA] = (await keys(home, a.space_id)).map((k) => k.id);
    const r1 = await run(["local", "keys", "regenerate", idA!, "--json"], { home });
    expect(r1.exitCode, r1.stderr).toBe(0);
    const fresh = r1.json<{ api_key: string; space_id: string }>();
    expect(fresh.space_id).toBe(a.space_id);
    expect(await works(home, a.api_key)).toBe(false);
    expect(await works(home, fresh.api_key)).toBe(true);

    const r2 = await run(["local", "keys", "regenerate", "-", "--json"], { home, input: fresh.api_key });
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect(await works(home, fresh.api_key)).toBe(false);
    const listed = await keys(home, a.space_id);
    expect(listed.map((k) => k.revoked_at === null)).toEqual([false, false, true]);
    expect(listed[0]!.replaced_by).toBe(listed[1]!.id);
  });

  it.each([
    ["an unknown id", ["key_" + "0".repeat(24)], undefined, 4],
    ["nothing on stdin", ["-"], "", 2],
    ["not a key on stdin", ["-"], "hello", 2],
    ["a revoked key's id", "revoked", undefined, 2],
  ] as const)("refuses %s", async (_n, args, input, code) => {
    const home = newHome();
    let argv: string[];
    if (args === "revoked") {
      const a = await created(home);
      const [id] = (await keys(home, a.space_id)).map((k) => k.id);
      expect((await run(["local", "keys", "revoke", id!], { home })).exitCode).toBe(0);
      argv = [id!];
    } else argv = [...args];
    const r = await run(["local", "keys", "revoke", ...argv], { home, ...(input !== undefined ? { input } : {}) });
    expect(r.exitCode, r.stderr).toBe(code);
  });
});
