/**
 * `--watch`/`--download` against a stub of the hosted service (see stub-service.ts): the timeout
 * holds whatever the service does, every id of a multi-generation start is reported whatever the
 * ending, and downloads are safe and interruptible. In process, except what needs a real process
 * (the built binary): that it exits once a poll is abandoned, and how it takes SIGINT and SIGTERM.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome, run, runBin, startBin, type RunOptions } from "./helpers.js";
import { startStub, type Stub } from "./stub-service.js";

const KEY = "mg_live_" + "5a".repeat(32);
let stub: Stub;
let home: string;
const hosted = () => ["--target", "hosted", "--base-url", stub.root];
const opts = (extra: RunOptions = {}): RunOptions => ({ home, env: { MEDIAGEN_API_KEY: KEY }, ...extra });
const startArgs = (ids: string, ...more: string[]) => [...hosted(), "asset", "start", "--type", "image", "--model", "stub-img", "--prompt", ids, ...more];

interface AssetJson {
  asset_id: string;
  status: string;
}

beforeAll(async () => {
  stub = await startStub();
  home = newHome();
});
afterAll(() => stub?.close());

// Each waits out its own 1 s timeout on its own ids: they wait at the same time.
describe.concurrent("--timeout holds while a poll is in flight", () => {
  it.each([
    ["a service that never answers", "hang-1"],
    ["a 429 whose window resets 30 s later", "rate-1"],
  ])("%s: exit 8 after about the timeout, with the resume command", async (_n, id) => {
    // In process, a 1 s timeout: what bounds the wait is the timeout, not the hang or the 30 s reset.
    const t0 = Date.now();
    const r = await run([...hosted(), "asset", "status", id, "--watch", "--timeout", "1s"], opts());
    const took = Date.now() - t0;
    expect(r.exitCode, r.stderr).toBe(8);
    // Far below the 30 s reset or a hang; loose enough for a loaded machine.
    expect(took).toBeLessThan(10_000);
    // The resume command runs as pasted: it keeps the flags that chose the target.
    expect(r.stderr).toContain(`Resume with: mediagen --target hosted --base-url ${stub.root} asset status ${id} --watch`);
  });

  it("the process itself exits about the timeout, though the abandoned poll still holds a connection", async () => {
    const t0 = Date.now();
    // A 1 s timeout: the process still outlives it only by its exit, not by the abandoned connection.
    const r = await runBin([...hosted(), "asset", "status", "hang-2", "--watch", "--timeout", "1s"], opts());
    expect(r.exitCode, r.stderr).toBe(8);
    // A node start plus the 1 s timeout, on a loaded machine; the abandoned connection would hold it for 60 s.
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.stderr).toContain(`Resume with: mediagen --target hosted --base-url ${stub.root} asset status hang-2 --watch`);
  });
});

describe("signals to the process", () => {
  /** Resolves once the stub has seen `request` (since `from`): the process is busy with it. */
  const until = async (request: string, from: number) => {
    const seen = () => stub.requests.slice(from).includes(request);
    for (let i = 0; i < 200 && !seen(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(seen()).toBe(true);
  };

  it("SIGTERM while waiting ends the process at once: it is not a Ctrl-C", async () => {
    const from = stub.requests.length;
    const child = startBin([...hosted(), "asset", "status", "pend-14", "--watch", "--json"], opts());
    await until("GET /asset/status/pend-14", from);
    const t0 = Date.now();
    child.kill("SIGTERM");
    const r = await child.result;
    expect(r.signal).toBe("SIGTERM");
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it("Ctrl-C outside a wait ends the process at once: no handler is left listening", async () => {
    // folder list against the stub: 503s, retried with backoff; no wait or download is running.
    const from = stub.requests.length;
    const child = startBin([...hosted(), "folder", "list", "--json"], opts());
    await until("GET /folder/list", from);
    const t0 = Date.now();
    child.kill("SIGINT");
    const r = await child.result;
    expect(r.signal).toBe("SIGINT");
    expect(Date.now() - t0).toBeLessThan(3_000);
  });
});

// Each on its own ids, most waiting out a 500 ms deadline: they wait at the same time.
describe.concurrent("several generations: one deadline, every id reported", () => {
  // Deadlines of 500 ms where the jobs stay pending (no poll hangs): the timeout is what ends each wait.
  it("start --count 2 --watch --json: one JSON array with both, even on timeout; resume names the unfinished one", async () => {
    const t0 = Date.now();
    const r = await run(startArgs("done-1,pend-1", "--count", "2", "--watch", "--timeout", "500ms", "--json"), opts());
    expect(r.exitCode, r.stderr).toBe(8);
    // One deadline for both, not one each.
    expect(Date.now() - t0).toBeLessThan(5_000);
    const out = r.json<AssetJson[]>();
    expect(out.map((a) => [a.asset_id, a.status])).toEqual([
      ["done-1", "completed"],
      ["pend-1", "processing"],
    ]);
    expect(r.errorLine()).toMatchObject({ code: "timeout" });
    expect(r.errorLine()!.message).toContain("asset status pend-1 --watch");
    expect(r.errorLine()!.message).not.toContain("status done-1");
  });

  it("-q prints one id per line, whatever the ending", async () => {
    const r = await run(startArgs("pend-2,done-2", "--count", "2", "--watch", "--timeout", "500ms", "-q"), opts());
    expect(r.exitCode).toBe(8);
    expect(r.stdout).toBe("pend-2\ndone-2\n");
  });

  it("a failed generation does not hide its sibling; exit 7", async () => {
    const r = await run(startArgs("fail-1,done-3", "--count", "2", "--watch", "--json"), opts());
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.json<AssetJson[]>().map((a) => a.status)).toEqual(["failed", "completed"]);
  });

  it("an id whose status never answered still appears, as status unknown", async () => {
    const r = await run([...hosted(), "asset", "status", "done-4", "hang-4", "--watch", "--timeout", "1s", "--json"], opts());
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.json()).toEqual([expect.objectContaining({ asset_id: "done-4", status: "completed" }), { asset_id: "hang-4", status: "unknown" }]);
  });

  it("human output off a TTY: the ids on stderr at start, a line per id on stdout", async () => {
    const r = await run(startArgs("done-5,pend-5", "--count", "2", "--watch", "--timeout", "500ms"), opts());
    expect(r.exitCode).toBe(8);
    expect(r.stderr).toMatch(/^done-5$/m);
    expect(r.stderr).toMatch(/^pend-5$/m);
    expect(r.stdout).toMatch(/^done-5 {2}completed {2}http/m);
    expect(r.stdout).toMatch(/^pend-5 {2}processing$/m);
  });

  it("Ctrl-C while waiting: exit 130, every id on stdout, and the resume command for the unfinished ones", async () => {
    const child = startBin([...hosted(), "asset", "status", "pend-13", "done-13", "--watch", "--json"], opts());
    for (let i = 0; i < 100 && !stub.requests.includes("GET /asset/status/done-13"); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    const r = await child.result;
    // Reported, then ended by SIGINT itself, so that a calling shell stops too (a shell shows 130).
    expect(r.signal, r.stderr).toBe("SIGINT");
    expect(r.json<AssetJson[]>().map((a) => [a.asset_id, a.status])).toEqual([
      ["pend-13", "processing"],
      ["done-13", "completed"],
    ]);
    expect(r.errorLine()!.message).toContain(`Resume with: mediagen --target hosted --base-url ${stub.root} asset status pend-13 --watch`);
  });

  it("asset status A B --json without --watch is one array; one id stays an object", async () => {
    const two = await run([...hosted(), "asset", "status", "done-6", "pend-6", "--json"], opts());
    expect(two.exitCode, two.stderr).toBe(0);
    expect(two.json<AssetJson[]>().map((a) => a.asset_id)).toEqual(["done-6", "pend-6"]);
    const one = await run([...hosted(), "asset", "status", "done-6", "--json"], opts());
    expect(one.json<AssetJson>().asset_id).toBe("done-6");
  });
});

describe("--download", () => {
  it("--json keeps stdout the objects and reports each saved path as an NDJSON line on stderr; -q prints the paths", async () => {
    const dir = path.join(newHome(), "out");
    const j = await run(startArgs("done-7,done-8", "--count", "2", "--download", dir, "--json"), opts());
    expect(j.exitCode, j.stderr).toBe(0);
    expect(j.json<AssetJson[]>().map((a) => a.asset_id)).toEqual(["done-7", "done-8"]);
    const saved = j.stderr
      .split("\n")
      .filter((l) => l.includes('"saved"'))
      .map((l) => JSON.parse(l) as { id: string; saved: string });
    expect(saved).toEqual([
      { id: "done-7", saved: path.join(dir, "done-7.png") },
      { id: "done-8", saved: path.join(dir, "done-8.png") },
    ]);
    for (const s of saved) expect(fs.existsSync(s.saved)).toBe(true);

    const q = await run([...hosted(), "asset", "status", "done-9", "pend-9", "--download", dir, "--timeout", "500ms", "-q"], opts());
    expect(q.exitCode).toBe(8);
    // The completed one is saved even though the other timed out; the other is named by its id.
    expect(q.stdout).toBe(`${path.join(dir, "done-9.png")}\npend-9\n`);
  });

  it("a file: link from a hosted service is refused (exit 1) and nothing is copied", async () => {
    const dir = path.join(newHome(), "out");
    const r = await run([...hosted(), "asset", "status", "file-1", "--download", dir, "--json"], opts());
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain("unsafe_url");
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("a directory that cannot be written fails with exit 2 before anything is started", async () => {
    const file = path.join(newHome(), "plain");
    fs.writeFileSync(file, "x");
    const before = stub.requests.length;
    const r = await run(startArgs("done-10", "--download", path.join(file, "sub"), "--json"), opts());
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.errorLine()).toMatchObject({ field: "--download" });
    expect(stub.requests.slice(before).filter((x) => x.startsWith("POST"))).toEqual([]);
  });

  it("the resume command quotes a directory with a space", async () => {
    const dir = path.join(newHome(), "my out");
    const r = await run([...hosted(), "asset", "status", "pend-11", "--download", dir, "--timeout", "500ms"], opts());
    expect(r.exitCode).toBe(8);
    expect(r.stderr).toContain(`asset status pend-11 --watch --download '${dir}'`);
  });

  it("Ctrl-C during a download: exit 130, no partial file, and how to resume", async () => {
    const dir = path.join(newHome(), "out");
    const child = startBin([...hosted(), "asset", "status", "slow-1", "--download", dir], opts());
    await stub.slowStarted();
    child.kill("SIGINT");
    const r = await child.result;
    // Reported, then ended by SIGINT itself, so that a calling shell stops too (a shell shows 130).
    expect(r.signal, r.stderr).toBe("SIGINT");
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(r.stderr).toContain(`Resume with: mediagen --target hosted --base-url ${stub.root} asset status slow-1 --watch --download ${dir}`);
  });
});

// Each on its own ids or home (the 5xx answers are retried with backoff): they wait at the same time.
describe.concurrent("other commands against the stub", () => {
  it("auth status against a 5xx reports error instead of throwing", async () => {
    const r = await run([...hosted(), "auth", "status", "--json"], opts());
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.json()).toMatchObject({ status: "error", target: "hosted", message: expect.stringContaining("503") });
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("completion offers the models of the target typed on the line", async () => {
    const r = await run(["__complete", "words", "--", ...hosted(), "asset", "start", "--model", "stub"], { home: newHome(), env: { MEDIAGEN_API_KEY: KEY } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("stubModelA\tStub A\nstubModelB\tStub B\n");
  });

  it("auth login --with-key --base-url without --target stores the key for the hosted target", async () => {
    const h = newHome();
    const r = await run(["auth", "login", "--with-key", "--base-url", stub.root, "--json"], { home: h, input: KEY });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ target: "hosted", base_url: `${stub.root}/api/public/v1` });
    const cfg = await run(["config", "list", "--json"], { home: h });
    expect(cfg.json()).toEqual(expect.arrayContaining([{ key: "target", value: "hosted", source: "profile" }]));
    const status = await run(["auth", "status", "--json"], { home: h });
    expect(status.json()).toMatchObject({ target: "hosted", key_source: "profile" });
  });
});
