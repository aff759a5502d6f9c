/**
 * `local reset` against real processes of the instance: a detached worker (stopped, then reset) and
 * a running `mediagen serve` (reset refused, the server keeps its data).
 */
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { pidAlive, type WorkerRow } from "../../src/local/worker-registry.js";
import { tempHome, waitFor } from "../helpers/local.js";
import { requireBuilt } from "./fixtures/processes.js";
import { assertBuilt, childEnv, startServe, type ServeChild } from "../http/serve-child.js";
import { run } from "../cli/helpers.js";

const open: LocalInstance[] = [];
const spawned: number[] = [];
const serves: ServeChild[] = [];
const savedIdle = process.env.MEDIAGEN_WORKER_IDLE_MS;

beforeAll(() => {
  requireBuilt();
  assertBuilt();
  // The detached worker would otherwise leave on its own before reset gets to it.
  process.env.MEDIAGEN_WORKER_IDLE_MS = "60000";
});
afterEach(async () => {
  for (const s of serves.splice(0)) await s.stop("SIGKILL");
  for (const pid of spawned.splice(0)) if (pidAlive(pid)) process.kill(pid, "SIGKILL");
  for (const i of open.splice(0)) await i.close();
});
afterAll(() => {
  if (savedIdle === undefined) delete process.env.MEDIAGEN_WORKER_IDLE_MS;
  else process.env.MEDIAGEN_WORKER_IDLE_MS = savedIdle;
});

const rows = (i: LocalInstance) => i.db.prepare("SELECT * FROM workers").all() as WorkerRow[];

test("reset stops the detached worker before deleting anything, then starts from an empty instance", async () => {
  const home = tempHome();
  const a = openLocalInstance({ home, worker: "detached" });
  open.push(a);
  const oldKey = a.defaultKey();
  a.kick();
  const [row] = await waitFor(() => {
    const r = rows(a);
    return r.length === 1 && r[0]!.pid !== null ? r : undefined;
  });
  spawned.push(row!.pid!);
  // The worker has registered itself (its own row, its own pid), so it is listening for SIGTERM.
  await waitFor(() => rows(a)[0]?.started_at !== row!.started_at || rows(a)[0]?.lease_expires !== row!.lease_expires, 10_000);

  await a.reset();
  expect(pidAlive(row!.pid!)).toBe(false);
  expect(rows(a)).toEqual([]);
  expect(a.spaceForKey(oldKey)).toBeUndefined();
  expect(a.listSpaces()).toEqual([]);
});

test("mediagen local reset refuses while mediagen serve runs; the server keeps answering from its data", async () => {
  const home = tempHome();
  const env = childEnv(home);
  const serve = await startServe(env);
  serves.push(serve);
  // The CLI commands run in this process (test/cli/helpers.ts): the other process is `serve`.
  const created = await run(["local", "keys", "create", "--plan", "PRO", "--credits", "10", "--json"], { home });
  expect(created.exitCode, created.stderr).toBe(0);
  const key = created.json<{ api_key: string }>().api_key;
  const folder = await fetch(`${serve.baseUrl}/folder/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "survives" }),
  });
  expect(folder.status).toBe(201);

  const refused = await run(["local", "reset", "--yes"], { home });
  expect(refused.exitCode).toBe(2);
  expect(refused.stderr).toMatch(/in use by another process \(pid \d+, e\.g\. `mediagen serve`\); stop it, then reset/);

  const list = await fetch(`${serve.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${key}` } });
  expect(list.status).toBe(200);
  expect(((await list.json()) as { folders: { name: string }[] }).folders.map((f) => f.name)).toContain("survives");

  expect(await serve.stop("SIGTERM")).toBe(0);
  serves.length = 0;
  const done = await run(["local", "reset", "--yes", "--json"], { home });
  expect(done.exitCode).toBe(0);
  expect(JSON.parse(done.stdout)).toEqual({ reset: true });
  const after = openLocalInstance({ home, worker: "none" });
  open.push(after);
  expect(after.spaceForKey(key)).toBeUndefined();
});
