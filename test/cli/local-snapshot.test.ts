/**
 * `mediagen local snapshot save|restore|list|delete`, `serve --from-snapshot` and `serve --ephemeral`:
 * save → mutate → restore gives back identical balances, ledgers and listings; a snapshot taken
 * while `serve` answers a write load restores to a consistent state (the ledger verifies); a restore
 * under a running serve is refused by the CLI and takes effect through serve's admin path.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, startServe, type ServeChild } from "../http/serve-child.js";
import { newHome, run } from "./helpers.js";

interface Ledger {
  kind: string;
  amount: number;
  balance_after: number;
  ref: string | null;
}

/** What a restore must give back: spaces with balances, every ledger, the folders of each key. */
async function state(home: string, keys: string[]) {
  const spaces = (await run(["local", "spaces", "list", "--json"], { home })).json<{ id: string; credits: number }[]>();
  const ledgers: Record<string, Ledger[]> = {};
  for (const s of spaces) ledgers[s.id] = (await run(["local", "ledger", s.id, "--json"], { home })).json<Ledger[]>();
  const folders: unknown[] = [];
  for (const key of keys) folders.push((await run(["folder", "list", "--json"], { home, env: { MEDIAGEN_API_KEY: key } })).json());
  return { spaces, ledgers, folders };
}

describe("local snapshot in process", () => {
  let home: string;
  let key: string;
  let spaceId: string;
  beforeAll(async () => {
    home = newHome();
    const k = (await run(["local", "keys", "create", "--plan", "PRO", "--credits", "50", "--json"], { home })).json<{ api_key: string; space_id: string }>();
    key = k.api_key;
    spaceId = k.space_id;
    await run(["folder", "create", "--name", "before"], { home, env: { MEDIAGEN_API_KEY: key } });
  });

  it("save → mutate → restore gives back identical balances, ledgers and listings", async () => {
    const before = await state(home, [key]);
    const saved = await run(["local", "snapshot", "save", "base", "--json"], { home });
    expect(saved.exitCode, saved.stderr).toBe(0);
    expect(saved.json()).toMatchObject({ name: "base", spaces: 1 });

    expect((await run(["local", "credits", "add", spaceId, "25"], { home })).exitCode).toBe(0);
    expect((await run(["folder", "create", "--name", "after"], { home, env: { MEDIAGEN_API_KEY: key } })).exitCode).toBe(0);
    await run(["local", "keys", "create", "--plan", "start", "--credits", "3"], { home });
    expect(await state(home, [key])).not.toEqual(before);

    const restored = await run(["local", "snapshot", "restore", "base", "--json"], { home });
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(await state(home, [key])).toEqual(before);
    expect((await run(["local", "ledger", "verify"], { home })).exitCode).toBe(0);
  });

  it("list shows snapshots; save refuses an existing name without --force; delete removes it", async () => {
    expect((await run(["local", "snapshot", "save", "base"], { home })).exitCode).toBe(2);
    expect((await run(["local", "snapshot", "save", "base", "--force"], { home })).exitCode).toBe(0);
    await run(["local", "snapshot", "save", "second"], { home });
    const list = (await run(["local", "snapshot", "list", "--json"], { home })).json<{ name: string }[]>();
    expect(list.map((s) => s.name)).toEqual(["base", "second"]);
    expect((await run(["local", "snapshot", "delete", "second"], { home })).exitCode).toBe(0);
    expect((await run(["local", "snapshot", "list", "--json"], { home })).json<{ name: string }[]>().map((s) => s.name)).toEqual(["base"]);
  });

  it("a bad name is a usage error (exit 2), an unknown snapshot not found (exit 4), and local reset keeps snapshots", async () => {
    const bad = await run(["local", "snapshot", "save", "../escape", "--json"], { home });
    expect(bad.exitCode).toBe(2);
    expect(bad.errorLine()?.message).toMatch(/snapshot name/);
    const missing = await run(["local", "snapshot", "restore", "nope", "--json"], { home });
    expect(missing.exitCode).toBe(4);
    expect((await run(["local", "reset", "--yes"], { home })).exitCode).toBe(0);
    expect((await run(["local", "snapshot", "restore", "base"], { home })).exitCode).toBe(0);
    expect((await run(["local", "spaces", "list", "--json"], { home })).json<{ id: string }[]>().map((s) => s.id)).toContain(spaceId);
  });
});

describe("snapshots under a running serve", () => {
  let home: string;
  let serve: ServeChild;
  let key: string;
  beforeAll(async () => {
    home = newHome();
    serve = await startServe(childEnv(home));
    key = (await run(["local", "keys", "create", "--plan", "PRO", "--credits", "1000", "--json"], { home })).json<{ api_key: string }>().api_key;
  }, 30_000);
  afterAll(async () => {
    await serve?.stop();
  });

  const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${serve.baseUrl}${p}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  it("a snapshot taken during a write load restores to a consistent state; the CLI refuses to restore under serve, the admin path does it", async () => {
    let stop = false;
    let writes = 0;
    const load = (async () => {
      for (let i = 0; !stop; i++) {
        const r = await (i % 2
          ? post("/folder/create", { name: `f${i}` })
          : post("/asset/start", { type: "image", model: "imgA-4-fast", prompt: `load ${i}` }, { "x-local-simulate": "fail" }));
        expect(r.status).toBe(201);
        writes++;
      }
    })();
    // The save starts while the load is writing (it stops only once the save has ended).
    while (writes < 4) await new Promise((r) => setTimeout(r, 20));
    const saved = await run(["local", "snapshot", "save", "busy", "--json"], { home });
    stop = true;
    await load;
    expect(saved.exitCode, saved.stderr).toBe(0);

    const refused = await run(["local", "snapshot", "restore", "busy", "--json"], { home });
    expect(refused.exitCode).toBe(2);
    expect(refused.errorLine()?.message).toMatch(/in use by another process.*_mediagen\/snapshots/);

    const origin = new URL(serve.baseUrl).origin;
    const restored = await fetch(`${origin}/_mediagen/snapshots/busy/restore`, { method: "POST" });
    expect(restored.status, await restored.clone().text()).toBe(200);
    // The served instance is the snapshot's now: the ledger verifies, and requests are answered.
    const verify = await run(["local", "ledger", "verify", "--json"], { home });
    expect(verify.exitCode, verify.stderr).toBe(0);
    const folders = await fetch(`${serve.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${key}` } });
    expect(folders.status).toBe(200);
    const listed = ((await folders.json()) as { folders: unknown[] }).folders.length;
    expect(listed).toBeLessThanOrEqual(Math.ceil(writes / 2));
    expect((await post("/folder/create", { name: "after restore" })).status).toBe(201);
  }, 60_000);

  it("serve --ephemeral --from-snapshot starts a throwaway copy of the snapshot and removes it at exit", async () => {
    const eph = await startServe(childEnv(home), ["--ephemeral", "--from-snapshot", "busy"]);
    const first = JSON.parse(eph.firstLine) as { base_url: string; home: string; api_key: string };
    expect(first.home).not.toBe(home);
    expect(fs.existsSync(path.join(first.home, "local", "instance.db"))).toBe(true);
    // Keys of the snapshot work there, and so does the printed default key.
    for (const k of [key, first.api_key]) {
      const r = await fetch(`${first.base_url}/folder/list`, { headers: { authorization: `Bearer ${k}` } });
      expect(r.status).toBe(200);
    }
    expect(await eph.stop()).toBe(0);
    expect(fs.existsSync(first.home)).toBe(false);
  }, 60_000);

  it("serve --from-snapshot with an unknown name exits 4 and leaves no ephemeral home", async () => {
    const { runCli } = await import("../http/serve-child.js");
    const ephemeral = () =>
      fs
        .readdirSync(os.tmpdir())
        .filter((n) => n.startsWith("mediagen-ephemeral-"))
        .sort();
    const before = ephemeral();
    const r = await runCli(["serve", "--port", "0", "--ephemeral", "--from-snapshot", "nope"], childEnv(home));
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/No snapshot named "nope"/);
    expect(ephemeral().filter((n) => !before.includes(n))).toEqual([]);
  });
});
