import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { pidAlive, type WorkerRow } from "../../src/local/worker-registry.js";
import { tempHome, waitFor } from "../helpers/local.js";
import { requireBuilt } from "./fixtures/processes.js";

let server: http.Server;
let base: string;
const hits: { ua: string | undefined; body: string }[] = [];
const open: LocalInstance[] = [];
const spawned: number[] = [];
const savedIdle = process.env.MEDIAGEN_WORKER_IDLE_MS;

beforeAll(async () => {
  requireBuilt();
  process.env.MEDIAGEN_WORKER_IDLE_MS = "700";
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      hits.push({ ua: req.headers["user-agent"], body });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  for (const pid of spawned.splice(0)) if (pidAlive(pid)) process.kill(pid, "SIGKILL");
  for (const i of open.splice(0)) await i.close();
});
afterAll(async () => {
  if (savedIdle === undefined) delete process.env.MEDIAGEN_WORKER_IDLE_MS;
  else process.env.MEDIAGEN_WORKER_IDLE_MS = savedIdle;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function instance(home: string): LocalInstance {
  const i = openLocalInstance({ home, worker: "detached" });
  open.push(i);
  return i;
}
const rows = (i: LocalInstance) => i.db.prepare("SELECT * FROM workers").all() as WorkerRow[];

test("kick spawns one detached worker, a second kick (from any process) does not, and it leaves when idle", async () => {
  const home = tempHome();
  const a = instance(home);
  const b = instance(home);
  const key = a.defaultKey();
  const spaceId = a.spaceForKey(key)!.id;

  a.tx(() => a.webhooks.enqueue(spaceId, `${base}/hook`, { task: "asset_generation", status: "completed", asset_id: "x" }));
  a.kick();
  const [row] = await waitFor(() => {
    const r = rows(a);
    return r.length === 1 && r[0]!.pid !== null ? r : undefined;
  });
  spawned.push(row!.pid!);
  expect(row).toMatchObject({ mode: "detached" });
  expect(row!.pid).not.toBe(process.pid);
  expect(pidAlive(row!.pid!)).toBe(true);

  a.kick();
  b.kick();
  expect(rows(b)).toEqual([expect.objectContaining({ id: row!.id, pid: row!.pid })]);

  // the detached process does the work
  await waitFor(() => a.webhookDeliveries()[0]?.status === "delivered", 10_000);
  expect(hits.at(-1)?.ua).toMatch(/^mediagen-local\//);

  // …and leaves once the queue has been idle for MEDIAGEN_WORKER_IDLE_MS
  await waitFor(() => rows(a).length === 0 && !pidAlive(row!.pid!), 10_000);

  // the next kick starts a new one
  a.kick();
  const [again] = await waitFor(() => {
    const r = rows(a);
    return r.length === 1 && r[0]!.pid !== null ? r : undefined;
  });
  spawned.push(again!.pid!);
  expect(again!.pid).not.toBe(row!.pid);
  await waitFor(() => rows(a).length === 0 && !pidAlive(again!.pid!), 10_000);
});

test("a detached worker that was killed is replaced by the next kick", async () => {
  const home = tempHome();
  const a = instance(home);
  a.kick();
  const [row] = await waitFor(() => {
    const r = rows(a);
    return r.length === 1 && r[0]!.pid !== null ? r : undefined;
  });
  spawned.push(row!.pid!);
  process.kill(row!.pid!, "SIGKILL");
  await waitFor(() => !pidAlive(row!.pid!));
  expect(rows(a)).toHaveLength(1); // its row is still there, with a lease that has not run out
  a.kick();
  const [next] = await waitFor(() => {
    const r = rows(a);
    return r.length === 1 && r[0]!.pid !== null && r[0]!.pid !== row!.pid ? r : undefined;
  });
  spawned.push(next!.pid!);
  expect(pidAlive(next!.pid!)).toBe(true);
});

test("kick does nothing in worker mode none, and wakes the in-process worker in mode inline", async () => {
  const home = tempHome();
  const none = openLocalInstance({ home, worker: "none" });
  open.push(none);
  none.kick();
  expect(rows(none)).toEqual([]);
  const inline = openLocalInstance({ home, worker: "inline" });
  open.push(inline);
  inline.kick();
  expect(rows(inline)).toEqual([expect.objectContaining({ pid: process.pid, mode: "inline" })]);
  // a detached-mode kick finds the inline worker live and spawns nothing
  const detached = instance(home);
  detached.kick();
  expect(rows(detached)).toHaveLength(1);
});

test("opening the instance in detached mode resumes work left unfinished", async () => {
  const home = tempHome();
  const setup = openLocalInstance({ home, worker: "none" });
  open.push(setup);
  const spaceId = setup.spaceForKey(setup.defaultKey())!.id;
  setup.tx(() => setup.webhooks.enqueue(spaceId, `${base}/left-behind`, { task: "video_export", status: "completed", job_id: "j" }));
  expect(rows(setup)).toEqual([]);

  const later = instance(home);
  const [row] = await waitFor(() => {
    const r = rows(later);
    return r.length === 1 && r[0]!.pid !== null ? r : undefined;
  });
  spawned.push(row!.pid!);
  await waitFor(() => later.webhookDeliveries()[0]?.status === "delivered", 10_000);
});
