/**
 * Finding what you made (issue 11): the journal of what this machine started (`mediagen history`,
 * `ls`), `mediagen download <id>` whatever command started the job, on both targets, and
 * `mediagen whoami`. The journal is appended by processes running at once without losing a line.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { ROOT, newHome, run } from "./helpers.js";
import { assertBuilt, childEnv, createKey, startServe, type ServeChild } from "../http/serve-child.js";

interface Entry {
  kind: string;
  id: string;
  target: string;
  base_url: string | null;
  model: string | null;
  cost: number | null;
  status: string;
  saved: string | null;
  avatar_id?: string;
  started_at: string;
}

describe("mediagen history", () => {
  let home: string;
  let assets: string[];
  let look: { avatar_id: string; look_id: string };
  let job: string;

  beforeAll(async () => {
    home = newHome();
    const a = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a red fox", "--count", "2", "--json"], { home });
    expect(a.exitCode, a.stderr).toBe(0);
    assets = a.json<{ asset_ids: string[] }>().asset_ids;
    const l = await run(["avatar", "create", "--prompt", "a friendly barista", "--json"], { home });
    expect(l.exitCode, l.stderr).toBe(0);
    look = l.json();
    const g = await run(["generate", "--prompt", "why cats purr", "--duration", "10", "--json"], { home });
    expect(g.exitCode, g.stderr).toBe(0);
    job = g.json<{ job_id: string }>().job_id;
  });

  it("lists what was started, most recent first: kind, id, target, model, cost, status", async () => {
    // As recorded (without --no-refresh the running jobs are read again: test/cli/lives-history.test.ts).
    const r = await run(["history", "--json", "--no-refresh"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const entries = r.json<Entry[]>();
    expect(entries.map((e) => [e.kind, e.id])).toEqual([
      ["generation", job],
      ["look", look.look_id],
      ["asset", assets[1]],
      ["asset", assets[0]],
    ]);
    expect(entries[3]).toMatchObject({ kind: "asset", target: "local", base_url: null, model: "imgA-4-fast", cost: 0.1, status: "generating", saved: null });
    expect(entries[1]).toMatchObject({ kind: "look", avatar_id: look.avatar_id, cost: 2, status: "pending" });
    expect(entries[0]).toMatchObject({ kind: "generation", cost: 5, status: "pending" });

    const human = await run(["history"], { home });
    expect(human.stdout.split("\n")[0]).toMatch(/KIND\s+ID\s+TARGET\s+MODEL\s+CREDITS\s+STATUS\s+VIDEO\s+SAVED/);
    for (const id of [...assets, look.look_id, job]) expect(human.stdout).toContain(id);
  });

  it("filters by --kind, --limit and --target; `ls` is the same command; -q prints ids", async () => {
    expect((await run(["ls", "--kind", "asset", "-q"], { home })).stdout.trim().split("\n")).toEqual([assets[1], assets[0]]);
    expect((await run(["history", "--limit", "1", "-q"], { home })).stdout.trim()).toBe(job);
    expect((await run(["history", "--target", "local", "-q"], { home })).stdout.trim().split("\n")).toHaveLength(4);
    const hosted = await run(["history", "--target", "hosted", "--json"], { home });
    expect(hosted.exitCode, hosted.stderr).toBe(0);
    expect(hosted.json()).toEqual([]);
    expect((await run(["ls", "--kind", "movie"], { home })).exitCode).toBe(2);
  });

  it("download <id> saves a finished asset, look or generation (its thumbnail), and the history keeps the path", async () => {
    const out = path.join(home, "out");
    for (const id of [assets[0]!, look.look_id, job]) {
      const r = await run(["download", id, "--dir", out, "--watch"], { home, timeoutMs: 60_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      const saved = r.stdout.trim();
      expect(saved.startsWith(out)).toBe(true);
      expect(fs.statSync(saved).size).toBeGreaterThan(0);
    }
    const entries = (await run(["history", "--json"], { home })).json<Entry[]>();
    const byId = new Map(entries.map((e) => [e.id, e]));
    expect(byId.get(assets[0]!)).toMatchObject({ status: "completed", saved: path.join(out, `${assets[0]}.png`) });
    expect(byId.get(look.look_id)!.saved).toBe(path.join(out, `${look.look_id}.png`));
    expect(byId.get(job)!.saved).toMatch(new RegExp(`${job}-thumbnail\\.(jpg|png)$`));
    // Finished: a plain download (no --watch) saves at once; an existing file needs --force.
    const again = await run(["download", assets[1]!, "--dir", out], { home, timeoutMs: 30_000 });
    if (again.exitCode === 8) expect(again.stderr).toMatch(/not finished yet.*--watch/);
    else expect(again.exitCode, again.stderr).toBe(0);
    const twice = await run(["download", assets[0]!, "--dir", out], { home });
    expect(twice.exitCode).toBe(2);
    expect((await run(["download", assets[0]!, "--dir", out, "--force"], { home })).exitCode).toBe(0);
  });

  it("a watch records the ending: a failed job reads failed in the history", async () => {
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "x", "--simulate", "fail", "--watch", "-q"], { home });
    expect(r.exitCode).toBe(7);
    const [latest] = (await run(["history", "--limit", "1", "--json"], { home })).json<Entry[]>();
    expect(latest).toMatchObject({ id: r.stdout.trim(), status: "failed" });
    const d = await run(["download", latest!.id], { home });
    expect(d.exitCode).toBe(7);
    expect(d.stderr).toMatch(/refunded/);
  });

  it("an id not in the history: an asset id is still read by its shape; anything else is exit 4", async () => {
    const unknown = await run(["download", "000000000000000000000000"], { home });
    expect(unknown.exitCode).toBe(4);
    const other = await run(["download", "what-is-this"], { home });
    expect(other.exitCode).toBe(4);
    expect(other.stderr).toMatch(/not in this machine's history/);
  });
});

describe("the journal under concurrent CLIs", () => {
  it("8 processes appending 50 jobs each at once: every line is whole, no job is lost", async () => {
    assertBuilt();
    const home = newHome();
    const journal = path.join(ROOT, "dist", "cli", "journal.js");
    const script = `
      const { recordStart, recordUpdate } = await import(${JSON.stringify(journal)});
      const w = process.argv[1];
      for (let i = 0; i < 50; i++) {
        const id = "w" + w + "-" + i;
        recordStart(${JSON.stringify(home)}, [{ kind: "asset", id, target: "local", base_url: null, profile: "default", model: "m", cost: 1, status: "generating", prompt: "p".repeat(150) }]);
        recordUpdate(${JSON.stringify(home)}, [{ kind: "asset", id, target: "local", status: "completed" }]);
      }`;
    await Promise.all(Array.from({ length: 8 }, (_, w) => execa(process.execPath, ["--input-type=module", "-e", script, String(w)])));
    const lines = fs.readFileSync(path.join(home, "history.jsonl"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(8 * 50 * 2);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    const r = await run(["history", "--limit", "0", "--json"], { home });
    const entries = r.json<Entry[]>();
    expect(entries).toHaveLength(400);
    expect(entries.every((e) => e.status === "completed")).toBe(true);
  });

  it("a line cut by a crash is skipped; the rest of the history stands", async () => {
    const home = newHome();
    await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "x", "-q"], { home });
    fs.appendFileSync(path.join(home, "history.jsonl"), '{"v":1,"event":"start","kind":"asset","id":"cut');
    fs.appendFileSync(path.join(home, "history.jsonl"), "\n");
    const r = await run(["history", "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<Entry[]>()).toHaveLength(1);
  });

  it("a history that cannot be written is a warning: the job is started and its id printed", async () => {
    const home = newHome();
    fs.mkdirSync(path.join(home, "history.jsonl"));
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "x", "-q"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^[0-9a-f]{24}$/);
    expect(r.stderr).toMatch(/Warning: could not write the history/);
  });
});

describe("on the hosted target (mediagen serve)", () => {
  let serve: ServeChild;
  let servedHome: string;
  let key: string;
  beforeAll(async () => {
    assertBuilt();
    servedHome = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
    serve = await startServe(childEnv(servedHome));
    key = await createKey(childEnv(servedHome), "PRO", 100);
  });
  afterAll(async () => {
    await serve?.stop("SIGTERM");
    fs.rmSync(servedHome, { recursive: true, force: true });
  });
  const env = () => ({ MEDIAGEN_API_KEY: key, NO_PROXY: "*", HTTP_PROXY: undefined, http_proxy: undefined });

  it("history records the hosted target and base URL; download reads the job there without --target", async () => {
    const home = newHome();
    const started = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "x", "--target", "hosted", "--base-url", serve.baseUrl, "-q"], {
      home,
      env: env(),
    });
    expect(started.exitCode, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const [entry] = (await run(["history", "--json"], { home })).json<Entry[]>();
    expect(entry).toMatchObject({ id, target: "hosted", base_url: serve.baseUrl });
    const out = path.join(home, "out");
    const d = await run(["download", id, "--dir", out, "--watch"], { home, env: env(), timeoutMs: 60_000 });
    expect(d.exitCode, d.stderr).toBe(0);
    expect(d.stdout.trim()).toBe(path.join(out, `${id}.png`));
  });

  it("whoami on the hosted target says the service does not tell the space, plan or balance", async () => {
    const r = await run(["whoami", "--target", "hosted", "--base-url", serve.baseUrl, "--json"], { home: newHome(), env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ target: "hosted", status: "ok", space: null, plan: null, balance: null });
    const human = await run(["whoami", "--target", "hosted", "--base-url", serve.baseUrl], { home: newHome(), env: env() });
    expect(human.stdout).toMatch(/^space\s+unknown: the hosted API does not tell/m);
  });
});

describe("mediagen whoami", () => {
  it("on the local target: the key's space, plan and balance (the same as `local spaces list`)", async () => {
    const home = newHome();
    const { api_key, space_id } = (await run(["local", "keys", "create", "--plan", "ENTREPRISE", "--credits", "42.5", "--json"], { home })).json<{
      api_key: string;
      space_id: string;
    }>();
    const r = await run(["whoami", "--json"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ target: "local", space: { id: space_id }, plan: "ENTREPRISE", balance: 42.5 });
    const human = await run(["whoami"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(human.stdout).toMatch(new RegExp(`^space\\s+${space_id}`, "m"));
    expect(human.stdout).toMatch(/^balance\s+42\.5 credits$/m);
    // auth status shows the same.
    const status = await run(["auth", "status", "--json"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(status.json()).toMatchObject({ space: { id: space_id }, plan: "ENTREPRISE", balance: 42.5 });
    // A key the service refuses (a plan without API access) still says where it stands: exit 3.
    const start = (await run(["local", "keys", "create", "--plan", "start", "--credits", "3", "--json"], { home })).json<{ api_key: string }>();
    const refused = await run(["whoami", "--json"], { home, env: { MEDIAGEN_API_KEY: start.api_key } });
    expect(refused.exitCode).toBe(3);
    expect(refused.json()).toMatchObject({ status: "forbidden", plan: "start", balance: 3 });
  });
});
