/**
 * Storage that fails under a running instance: a full disk (injected SQLITE_FULL, and a real
 * size-limited tmpfs where this machine lets us mount one) and a database deleted while `serve`
 * runs. Writes answer 503 naming the cause, reads that need no write still work, the cause is logged
 * where the operator looks, and nothing is ever written into a database file that is gone.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { ApiError } from "../../src/engine/errors.js";
import type { DB } from "../../src/local/types.js";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { runTool } from "../../src/media/run.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { assertBuilt, childEnv, createKey, startServe, type ServeChild } from "../http/serve-child.js";
import { tempHome, waitFor } from "../helpers/local.js";
import { fillableDisk, realFfmpeg } from "./helpers.js";

const open: LocalInstance[] = [];
const servers: RunningServer[] = [];
const children: ServeChild[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close(0);
  for (const c of children.splice(0)) await c.stop("SIGKILL");
  for (const i of open.splice(0)) await i.close();
});

function instance(o: Parameters<typeof openLocalInstance>[0]): LocalInstance {
  const i = openLocalInstance(o);
  open.push(i);
  return i;
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

async function http(base: string, key: string, method: "GET" | "POST", p: string, body?: unknown) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

describe("a full disk (SQLITE_FULL injected into the database layer)", () => {
  test("avatar create answers 503 naming the cause, as every other write (not 500 FAILED_TO_PERSIST)", async () => {
    // The disk fills up just as the avatar is stored (its own INSERT fails with SQLITE_FULL).
    let full = false;
    const wrapDatabase = (db: DB): DB =>
      new Proxy(db, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (prop === "prepare") {
            return (sql: string) => {
              const stmt = target.prepare(sql);
              if (!/INSERT INTO avatars/.test(sql)) return stmt;
              return new Proxy(stmt, {
                get(st, p) {
                  const v = Reflect.get(st, p, st) as unknown;
                  if (full && p === "run") return fail;
                  return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(st) : v;
                },
              });
            };
          }
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    const fail = (): never => {
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    const inst = instance({ home: tempHome(), worker: "none", wrapDatabase, log: () => undefined });
    const api = inst.engine(inst.defaultKey());
    full = true;
    const refused = await refusal(api.call("avatarCreate", { prompt: "a chef", format: "vertical" }));
    expect(refused.status).toBe(503);
    expect(JSON.stringify(refused.body)).toContain("no space left on device");
    full = false;
    await expect(api.call("avatarCreate", { prompt: "a chef", format: "vertical" })).resolves.toMatchObject({ avatar_id: expect.any(String) });
  });

  test("in process: reads still answer, writes get 503 naming the cause, logged once; freed, writes work again", async () => {
    const disk = fillableDisk();
    const lines: string[] = [];
    const inst = instance({ home: tempHome(), worker: "none", wrapDatabase: disk.wrapDatabase, log: (l) => lines.push(l) });
    const api = inst.engine(inst.defaultKey());
    await api.call("folderCreate", { name: "before", type: "assets" });

    disk.full = true;
    const listed = await api.call("folderList", {});
    expect(listed).toMatchObject({ folders: [expect.objectContaining({ name: "before" })] });
    // Not counted (the count is a write), but the window's numbers still come back.
    expect(api.lastRateLimit()).toMatchObject({ limit: 100, remaining: 99 });

    const refused = await refusal(api.call("folderCreate", { name: "during", type: "assets" }));
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      error: "Service unavailable",
      details: [{ code: "service_unavailable", message: expect.stringContaining("no space left on device") }],
    });
    expect(JSON.stringify(refused.body)).not.toContain(inst.home); // no server path in a response
    await refusal(api.call("folderCreate", { name: "again", type: "assets" }));
    expect(lines).toHaveLength(1); // once while it lasts, not once per request
    expect(lines[0]).toMatch(/no space left on device at .*local.*SQLITE_FULL/);

    disk.full = false;
    await api.call("folderCreate", { name: "after", type: "assets" });
    expect((await api.call("folderList", {})).folders.map((f) => f.name).sort()).toEqual(["after", "before"]);
  });

  test("over HTTP: GET 200 with rate-limit headers, POST 503 with the JSON body, never a bare 500", async () => {
    const disk = fillableDisk();
    const lines: string[] = [];
    const inst = instance({ home: tempHome(), worker: "none", wrapDatabase: disk.wrapDatabase, log: (l) => lines.push(l) });
    const key = inst.defaultKey();
    const server = await startServer({ instance: inst, port: 0 });
    servers.push(server);
    disk.full = true;
    const get = await http(server.baseUrl, key, "GET", "/folder/list");
    expect(get.status).toBe(200);
    expect(get.headers.get("x-ratelimit-limit")).toBe("100");
    const post = await http(server.baseUrl, key, "POST", "/folder/create", { name: "x", type: "assets" });
    expect(post.status).toBe(503);
    expect(post.headers.get("content-type")).toMatch(/^application\/json/);
    expect(post.json).toMatchObject({
      error: "Service unavailable",
      details: [{ code: "service_unavailable", message: expect.stringContaining("no space left on device") }],
    });
    expect(lines.join("\n")).toMatch(/no space left on device/);
  });
});

test("a failed render names the cause (no space left on device), not only ffmpeg's exit code", async () => {
  const e = await runTool("sh", ["-c", "echo 'av_interleaved_write_frame(): No space left on device' >&2; exit 1"]).catch((err: Error) => err);
  expect((e as Error).message.split("\n")[0]).toBe("sh failed: no space left on device (exited with code 1)");
});

describe("the database deleted under a running instance", () => {
  test("in process: 503 on every request, the log says so, and no write reaches the unlinked file", async () => {
    const lines: string[] = [];
    const inst = instance({ home: tempHome(), worker: "none", log: (l) => lines.push(l) });
    const api = inst.engine(inst.defaultKey());
    await api.call("folderCreate", { name: "kept", type: "assets" });
    const changes = () =>
      (inst.db.prepare("SELECT total_changes() AS n").get() as { n: number }).n + (inst.ratesDb.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
    for (const f of ["", "-wal", "-shm"]) fs.rmSync(inst.dbPath + f, { force: true });
    const before = changes();

    const write = await refusal(api.call("folderCreate", { name: "lost", type: "assets" }));
    expect(write.status).toBe(503);
    expect(write.body).toMatchObject({ details: [{ code: "service_unavailable", message: expect.stringMatching(/deleted or replaced/) }] });
    expect((await refusal(api.call("folderList", {}))).status).toBe(503);
    expect(() => inst.tx(() => inst.db.prepare("INSERT INTO settings (key, value) VALUES ('x', 'y')").run())).toThrow(/deleted/);
    expect(changes()).toBe(before); // not even the rate-limit count went in
    expect(lines).toEqual([expect.stringContaining(`the database file was deleted at ${inst.dbPath}`)]);
  });

  test("in process: a database replaced by another file (a new instance at the same path) is refused too", async () => {
    const home = tempHome();
    const inst = instance({ home, worker: "none" });
    const api = inst.engine(inst.defaultKey());
    for (const f of ["", "-wal", "-shm"]) fs.rmSync(inst.dbPath + f, { force: true });
    instance({ home, worker: "none" }).defaultKey(); // another process starts afresh
    const e = await refusal(api.call("folderList", {}));
    expect(e.status).toBe(503);
    expect(JSON.stringify(e.body)).toMatch(/deleted or replaced/);
  });

  test("served: 503 with a JSON body and one clear line on stderr, where it used to answer 201", async () => {
    assertBuilt();
    const home = tempHome();
    const env = childEnv(home);
    const key = await createKey(env);
    const serve = await startServe(env);
    children.push(serve);
    const before = await http(serve.baseUrl, key, "POST", "/folder/create", { name: "one", type: "assets" });
    expect(before.status).toBe(201);
    for (const f of ["", "-wal", "-shm"]) fs.rmSync(path.join(home, "local", `instance.db${f}`), { force: true });
    const after = await http(serve.baseUrl, key, "POST", "/folder/create", { name: "two", type: "assets" });
    expect(after.status).toBe(503);
    expect(after.json).toMatchObject({ error: "Service unavailable", details: [{ code: "service_unavailable" }] });
    expect((await http(serve.baseUrl, key, "GET", "/folder/list")).status).toBe(503);
    await waitFor(() => /storage problem: the database file was deleted at .*instance\.db/.test(serve.stderr()));
    expect(serve.stderr().match(/storage problem/g)).toHaveLength(1);
  });
});

/** A size-limited tmpfs, when this process may mount one (root in a container that allows it). */
function smallTmpfs(sizeKb: number): { dir: string; unmount: () => void } | undefined {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKb}k,mode=0755`, "tmpfs", dir], { stdio: "ignore" });
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    unmount: () => {
      try {
        execFileSync("umount", ["-l", dir], { stdio: "ignore" });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Writes zeros until the file system says ENOSPC; returns the filler's path. */
function fill(dir: string): string {
  const filler = path.join(dir, "filler");
  const fd = fs.openSync(filler, "w");
  const chunk = Buffer.alloc(16 * 1024);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

const tmpfs = smallTmpfs(8 * 1024);
afterAll(() => tmpfs?.unmount());

describe.skipIf(!tmpfs)("a real full disk (an 8 MiB tmpfs, filled)", () => {
  test("served: GET still 200, POST 503 naming the cause, stderr says why; freed, POST 201 again", async () => {
    assertBuilt();
    const home = fs.mkdtempSync(path.join(tmpfs!.dir, "home-"));
    const env = childEnv(home);
    const key = await createKey(env);
    const serve = await startServe(env);
    children.push(serve);
    expect((await http(serve.baseUrl, key, "POST", "/folder/create", { name: "room", type: "assets" })).status).toBe(201);

    const filler = fill(tmpfs!.dir);
    const get = await http(serve.baseUrl, key, "GET", "/folder/list");
    expect(get.status).toBe(200);
    expect(get.json).toMatchObject({ folders: [expect.objectContaining({ name: "room" })] });
    let post: Awaited<ReturnType<typeof http>> | undefined;
    // Until the WAL's free pages are used up a few writes may still fit; then every write is refused.
    for (let i = 0; i < 200; i++) {
      post = await http(serve.baseUrl, key, "POST", "/folder/create", { name: `f${i}-${"x".repeat(200)}`, type: "assets" });
      if (post.status !== 201) break;
    }
    expect(post!.status).toBe(503);
    expect(post!.json).toMatchObject({ details: [{ code: "service_unavailable", message: expect.stringContaining("no space left on device") }] });
    expect((await http(serve.baseUrl, key, "GET", "/folder/list")).status).toBe(200);
    await waitFor(() => /storage problem: no space left on device/.test(serve.stderr()));

    fs.rmSync(filler);
    expect((await http(serve.baseUrl, key, "POST", "/folder/create", { name: "freed", type: "assets" })).status).toBe(201);
  });

  test("a render on the full disk fails with the cause", async () => {
    const ffmpeg = realFfmpeg();
    const dir = fs.mkdtempSync(path.join(tmpfs!.dir, "render-"));
    const filler = fill(tmpfs!.dir);
    try {
      // An MP4 (not a PNG): ffmpeg 4.1's image2 muxer, the npm copy a fresh machine has, exits 0
      // after a failed write; every ffmpeg reports a header it cannot write.
      const args = [
        "-hide_banner",
        "-loglevel",
        "error",
        "-f",
        "lavfi",
        "-i",
        "color=c=red:s=256x256",
        "-frames:v",
        "1",
        "-c:v",
        "mpeg4",
        "-f",
        "mp4",
        "-y",
        path.join(dir, "out.mp4"),
      ];
      const e = await runTool(ffmpeg, args).catch((err: Error) => err);
      expect((e as Error).message.split("\n")[0]).toBe("ffmpeg failed: no space left on device (exited with code 1)");
    } finally {
      fs.rmSync(filler);
    }
  });
});
